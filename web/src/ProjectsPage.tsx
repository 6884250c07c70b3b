import { lazy, Suspense, useDeferredValue, useEffect, useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { formatAddress, type Project } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { ProjectForm } from './ProjectForm.tsx';
import { arrivalNotice } from './projects/arrivalNotice.ts';
import { projectsApi, type Tag } from './projects/projectsApi.ts';
import { createProject } from './projects/saveProject.ts';
import { usePages, useWhenVisible } from './usePages.ts';

// Leaflet (~40 KiB gzipped) loads only when someone opens the map.
const ProjectsMap = lazy(() => import('./projects/ProjectsMap.tsx'));

type Status = 'active' | 'archived' | 'all';
const STATUSES: readonly string[] = ['active', 'archived', 'all'];
type View = 'list' | 'map';
interface Filters { q: string; status: Status; tag: string; view: View }

/** `/projects?q=…&status=…&tag_id=…&view=map`, leaving out what is the default. */
export function projectsAddress(f: Filters): string {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  if (f.status !== 'active') p.set('status', f.status);
  if (f.tag) p.set('tag_id', f.tag);
  if (f.view === 'map') p.set('view', 'map');
  const search = p.toString();
  return search ? `/projects?${search}` : '/projects';
}

/**
 * The projects: a search, status and tag filters, as a list (more as you scroll, or "Load more")
 * or on a map. Filters and view live in the address (`/projects?q=…&status=…&tag_id=…&view=map`):
 * back from a project finds them.
 */
export function ProjectsPage() {
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const params = new URLSearchParams(useSearch());
  const filters: Filters = {
    q: params.get('q') ?? '',
    status: (STATUSES.includes(params.get('status') ?? '') ? params.get('status') : 'active') as Status,
    tag: params.get('tag_id') ?? '',
    view: params.get('view') === 'map' ? 'map' : 'list',
  };
  const { q, status, tag, view } = filters;
  const update = (next: Partial<Filters>) => navigate(projectsAddress({ ...filters, ...next }), { replace: true });
  const query = useDeferredValue(q.trim());
  const searchId = useId();
  const statusId = useId();
  const tagId = useId();
  const [tags, setTags] = useState<Tag[] | null>(null);
  useEffect(() => {
    projectsApi.tags().then(setTags, () => setTags([]));
  }, []);
  const apiFilters = { q: query, status, tag_id: tag || undefined };
  const pages = usePages<Project>(JSON.stringify([query, status, tag, view]), (cursor) =>
    view === 'list' ? projectsApi.projectsPage(apiFilters, cursor, 30) : Promise.resolve({ data: [], has_more: false, next_cursor: null }));
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!pages.error) pages.loadMore();
  });
  const notice = arrivalNotice();
  const tagName = tags?.find((t) => t.id === tag)?.name;

  return (
    <>
      <div className="page-heading">
        <h1>Projects</h1>
        {creating ? null : <button type="button" onClick={() => setCreating(true)}>New project</button>}
      </div>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {creating
        ? (
          <ProjectForm
            title="New project" project={null} submitLabel="Create project" onCancel={() => setCreating(false)}
            onSubmit={async (input, extras) => {
              const { project, problem } = await createProject(input, extras);
              const words = problem instanceof Error ? problem.message : problem ? String(problem) : null;
              navigate(`/projects/${project.id}`, words
                ? { state: { notice: `The project is created, but not all of its crew and tags were saved (${words}). Edit the project to try again.` } }
                : undefined);
            }}
          />
        )
        : null}
      <form className="filters with-tag" role="search" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor={searchId}>Search projects</label>
          <input id={searchId} type="search" value={q} placeholder="Name or address" onChange={(e) => update({ q: e.target.value })} />
        </div>
        <div>
          <label htmlFor={statusId}>Status</label>
          <select id={statusId} value={status} onChange={(e) => update({ status: e.target.value as Status })}>
            <option value="active">Active</option>
            <option value="archived">Archived</option>
            <option value="all">All</option>
          </select>
        </div>
        <div>
          <label htmlFor={tagId}>Tag</label>
          <select id={tagId} value={tag} onChange={(e) => update({ tag: e.target.value })}>
            <option value="">All tags</option>
            {/* A tag in the address that is not (or no longer) in the list still shows as chosen. */}
            {tag && tags && !tagName ? <option value={tag}>A tag not found</option> : null}
            {(tags ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
        </div>
      </form>
      <div className="view-switch" role="group" aria-label="Show the projects as">
        <button type="button" aria-pressed={view === 'list'} onClick={() => update({ view: 'list' })}>List</button>
        <button type="button" aria-pressed={view === 'map'} onClick={() => update({ view: 'map' })}>Map</button>
      </div>
      {view === 'map'
        ? (
          <Suspense fallback={<p role="status">Loading the map…</p>}>
            <ProjectsMap filters={apiFilters} listHref={projectsAddress({ ...filters, view: 'list' })} />
          </Suspense>
        )
        : (
          <>
            {pages.error ? <ErrorMessage error={pages.error} /> : null}
            {!pages.loading && !pages.error && pages.items.length === 0
              ? <p>{query ? `No projects match “${query}”${tagName ? ` with the tag ${tagName}` : ''}.` : tag ? `No projects with the tag ${tagName ?? 'chosen'}.` : 'No projects yet.'}</p>
              : null}
            <ul className="project-list" aria-label="Projects">
              {pages.items.map((p) => (
                <li key={p.id}>
                  <Link href={`/projects/${p.id}`} className="project-card">
                    {p.cover_photo ? <img src={p.cover_photo.thumbnail_url} alt="" loading="lazy" width="64" height="64" /> : <span className="no-cover" aria-hidden="true" />}
                    <span>
                      <span className="project-name">{p.name}</span>
                      <span className="muted">{formatAddress(p.address) || 'No address'}{p.status === 'archived' ? ' · Archived' : ''}</span>
                    </span>
                  </Link>
                </li>
              ))}
            </ul>
            <div ref={sentinel} className="list-end">
              {pages.loading ? <p role="status">Loading projects…</p> : null}
              {pages.hasMore && !pages.loading ? <button type="button" onClick={pages.loadMore}>Load more</button> : null}
            </div>
          </>
        )}
    </>
  );
}
