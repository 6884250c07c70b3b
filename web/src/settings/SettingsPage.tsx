import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { Link } from 'wouter';
import type { Session } from '../api.ts';
import type { SectionProps } from './sectionProps.ts';
import './settings.css';

export type Role = 'admin' | 'manager' | 'standard' | 'restricted';

interface Section {
  slug: string;
  title: string;
  /** The roles the API lets do this section's work; the others do not see the link. */
  roles: readonly Role[];
  Component: ComponentType<SectionProps>;
}

/** One line per section, each its own lazily loaded module (not on the first screen). */
const SECTIONS: Section[] = [
  { slug: 'people', title: 'People', roles: ['admin', 'manager'], Component: lazy(() => import('../people/PeopleSettings.tsx')) },
  { slug: 'workspace', title: 'Workspace', roles: ['admin'], Component: lazy(() => import('../people/WorkspaceSettings.tsx')) },
  { slug: 'api-keys', title: 'API keys', roles: ['admin', 'manager', 'standard', 'restricted'], Component: lazy(() => import('./api-keys/ApiKeysSettings.tsx')) },
  { slug: 'webhooks', title: 'Webhooks', roles: ['admin'], Component: lazy(() => import('../webhooks/WebhooksSettings.tsx')) },
];

/** Who may see at least one section: the header shows "Settings" to them. */
export function canSeeSettings(role: string): boolean {
  return SECTIONS.some((s) => s.roles.includes(role as Role));
}

/**
 * `/settings` and `/settings/<section>/…`: the workspace's office work (people, keys, webhooks,
 * the workspace itself). A section the caller's role may not use is not linked; its address still
 * loads the section, whose API calls answer 403, shown in words.
 */
export function SettingsPage({ session, path }: { session: Session; path: string }) {
  const [slug = '', ...rest] = path.split('/').filter(Boolean);
  const visible = SECTIONS.filter((s) => s.roles.includes(session.user.role as Role));
  const section = SECTIONS.find((s) => s.slug === slug);
  useEffect(() => {
    document.title = `${section?.title ?? 'Settings'} · Jobsite`;
    return () => {
      document.title = 'Jobsite';
    };
  }, [section]);

  return (
    <div className="settings">
      <nav aria-label="Settings" className="settings-nav">
        <ul>
          {visible.map((s) => (
            <li key={s.slug}><Link href={`/settings/${s.slug}`} aria-current={s === section ? 'page' : undefined}>{s.title}</Link></li>
          ))}
        </ul>
      </nav>
      <div className="settings-body">
        {section
          ? (
            <Suspense fallback={<p role="status">Loading…</p>}>
              <section.Component session={session} rest={rest.join('/')} />
            </Suspense>
          )
          : slug
            ? <><h1>Page not found</h1><p>There is no settings page “{slug}”.</p></>
            : (
              <>
                <h1>Settings</h1>
                {visible.length === 0
                  ? <p>Your role ({session.user.role}) has no settings to manage. An admin of the workspace can change what you may do.</p>
                  : <p>Choose what to manage.</p>}
              </>
            )}
      </div>
    </div>
  );
}
