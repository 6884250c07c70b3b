import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { Link } from 'wouter';
import type { Project, Session } from '../api.ts';
import type { ProjectSectionProps } from './sectionProps.ts';
import './projects.css';


interface Section {
  slug: string;
  title: string;
  Component: ComponentType<ProjectSectionProps>;
}

/** The project's sections after Photos (its main page), one line each, each a lazily loaded module. */
const SECTIONS: Section[] = [
  { slug: 'tasks', title: 'Tasks', Component: lazy(() => import('../tasks/ProjectTasks.tsx')) },
  { slug: 'documents', title: 'Documents', Component: lazy(() => import('../documents/ProjectDocuments.tsx')) },
  { slug: 'activity', title: 'Activity', Component: lazy(() => import('../activity/ProjectActivity.tsx')) },
  { slug: 'reports', title: 'Reports', Component: lazy(() => import('../reports/ProjectReports.tsx')) },
  { slug: 'exports', title: 'Exports', Component: lazy(() => import('../exports/ProjectExports.tsx')) },
  { slug: 'share-links', title: 'Share links', Component: lazy(() => import('../share/ProjectShareLinks.tsx')) },
];

/** The slug of `/projects/{id}/<slug>/…`, or null for an unknown one. '' is Photos. */
export function knownSection(slug: string): boolean {
  return slug === '' || SECTIONS.some((s) => s.slug === slug);
}

/** The tabs under the project's header: Photos, then each section, as links (the address is the state). */
export function ProjectSectionNav({ projectId, current }: { projectId: string; current: string }) {
  if (SECTIONS.length === 0) return null;
  const all = [{ slug: '', title: 'Photos' }, ...SECTIONS];
  return (
    <nav aria-label="Project" className="project-sections">
      <ul>
        {all.map((s) => (
          <li key={s.slug}>
            <Link href={s.slug ? `/projects/${projectId}/${s.slug}` : `/projects/${projectId}`} aria-current={s.slug === current ? 'page' : undefined}>{s.title}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The section at `slug` (not Photos, which the project page draws itself). */
export function ProjectSection({ slug, rest, project, session }: { slug: string; rest: string; project: Project; session: Session }): ReactNode {
  const section = SECTIONS.find((s) => s.slug === slug);
  if (!section) {
    return <><h2>Page not found</h2><p>This project has no page “{slug}”. <Link href={`/projects/${project.id}`}>Go to its photos</Link>.</p></>;
  }
  return (
    <Suspense fallback={<p role="status">Loading…</p>}>
      <section.Component project={project} session={session} rest={rest} />
    </Suspense>
  );
}
