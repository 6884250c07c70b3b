import { useDeferredValue, useId, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, formatAddress, type Project } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { ProjectForm } from './ProjectForm.tsx';
import { usePages, useWhenVisible } from './usePages.ts';

type Status = 'active' | 'archived' | 'all';
const STATUSES: readonly string[] = ['active', 'archived', 'all'];

/**
 * The projects: a search, a status filter, and more as you scroll (or press "Load more"). The
 * search and filter live in the address (`/projects?q=…&status=…`): back from a project finds them.
 */
export function ProjectsPage() {
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const params = new URLSearchParams(useSearch());
  const q = params.get('q') ?? '';
  const status = (STATUSES.includes(params.get('status') ?? '') ? params.get('status') : 'active') as Status;
  const update = (next: { q?: string; status?: Status }) => {
    const p = new URLSearchParams();
    const nq = next.q ?? q;
    const ns = next.status ?? status;
    if (nq) p.set('q', nq);
    if (ns !== 'active') p.set('status', ns);
    const search = p.toString();
    navigate(search ? `/projects?${search}` : '/projects', { replace: true });
  };
  const query = useDeferredValue(q.trim());
  const searchId = useId();
  const statusId = useId();
  const pages = usePages<Project>(JSON.stringify([query, status]), (cursor) => api.projects({ q: query, status, cursor, limit: 30 }));
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!pages.error) pages.loadMore();
  });

  return (
    <>
      <div className="page-heading">
        <h1>Projects</h1>
        {creating ? null : <button type="button" onClick={() => setCreating(true)}>New project</button>}
      </div>
      {creating
        ? (
          <ProjectForm
            title="New project" project={null} submitLabel="Create project" onCancel={() => setCreating(false)}
            onSubmit={async (input) => {
              const project = await api.createProject(input);
              navigate(`/projects/${project.id}`);
            }}
          />
        )
        : null}
      <form className="filters" role="search" onSubmit={(e) => e.preventDefault()}>
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
      </form>
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {!pages.loading && !pages.error && pages.items.length === 0
        ? <p>{query ? `No projects match “${query}”.` : 'No projects yet.'}</p>
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
  );
}
