import { useCallback, useEffect, useMemo, useState } from 'react';
import { Link } from 'wouter';
import { Comments } from './comments/Comments.tsx';
import { api, ApiProblem, formatAddress, type Photo, type Project } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { ProjectForm } from './ProjectForm.tsx';
import { usePages, useWhenVisible } from './usePages.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** Photos in capture order (newest first), grouped by the viewer's local day. */
function byDay(photos: Photo[]): Array<{ day: string; photos: Photo[] }> {
  const groups: Array<{ day: string; photos: Photo[] }> = [];
  for (const photo of photos) {
    const day = dayFormat.format(new Date(photo.captured_at));
    const last = groups[groups.length - 1];
    if (last && last.day === day) last.photos.push(photo);
    else groups.push({ day, photos: [photo] });
  }
  return groups;
}

/** A project: its name and address, and its photos as a timeline by day. */
export function ProjectPage({ id }: { id: string }) {
  const [project, setProject] = useState<Project | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [editing, setEditing] = useState(false);
  const [actionError, setActionError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let live = true;
    setError(null);
    api.projectWithEtag(id).then(({ body, etag: tag }) => {
      if (!live) return;
      setProject(body);
      setEtag(tag);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [id, generation]);
  useEffect(() => {
    setProject(null);
    setEditing(false);
    setNotice(null);
    setActionError(null);
  }, [id]);

  async function changeStatus(archive: boolean) {
    setBusy(true);
    setActionError(null);
    setNotice(null);
    try {
      const { body, etag: tag } = archive ? await api.archiveProject(id) : await api.restoreProject(id);
      setProject(body);
      setEtag(tag);
      setNotice(archive ? 'The project is archived.' : 'The project is restored.');
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(false);
    }
  }
  const photos = usePages<Photo>(id, (cursor) => api.photos({ project_id: id, cursor, limit: 60 }));
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!photos.error) photos.loadMore();
  });
  const days = useMemo(() => byDay(photos.items), [photos.items]);

  useEffect(() => {
    if (project) document.title = `${project.name} · Jobsite`;
    return () => {
      document.title = 'Jobsite';
    };
  }, [project]);

  if (error) {
    return (
      <>
        <p><Link href="/projects">← Projects</Link></p>
        <ErrorMessage error={error} />
      </>
    );
  }
  return (
    <>
      <p><Link href="/projects">← Projects</Link></p>
      {project
        ? (
          <>
            <h1>{project.name}</h1>
            <p className="muted">
              {formatAddress(project.address) || 'No address'}
              {project.coordinates ? ` · ${project.coordinates.lat}, ${project.coordinates.lon}` : ''}
            </p>
            {project.status === 'archived' ? <p className="badge">Archived</p> : null}
            {project.description ? <p>{project.description}</p> : null}
            {notice ? <p role="status">{notice}</p> : null}
            {actionError ? <ErrorMessage error={actionError} /> : null}
            {editing
              ? (
                <ProjectForm
                  key={etag ?? ''} title="Edit project" project={project} submitLabel="Save changes" onCancel={() => setEditing(false)}
                  onSubmit={async (input) => {
                    const { body, etag: tag } = await api.updateProject(id, input, etag);
                    setProject(body);
                    setEtag(tag);
                    setEditing(false);
                    setNotice('Your changes are saved.');
                  }}
                  problemWords={(problem) => problem.status === 412
                    ? (
                      <div className="error" role="alert">
                        <strong>Someone else changed this project; reload</strong>
                        <span> to see their changes, then make yours again. Nothing was saved. </span>
                        <button type="button" onClick={reload}>Reload</button>
                      </div>
                    )
                    : null}
                />
              )
              : (
                <div className="form-actions">
                  <button type="button" onClick={() => { setNotice(null); setEditing(true); }}>Edit project</button>
                  {project.status === 'archived'
                    ? <button type="button" disabled={busy} onClick={() => changeStatus(false)}>Restore</button>
                    : <button type="button" disabled={busy} onClick={() => changeStatus(true)}>Archive</button>}
                </div>
              )}
          </>
        )
        : <p role="status">Loading the project…</p>}
      <section aria-labelledby="photos-heading">
        <h2 id="photos-heading">Photos</h2>
        {photos.error ? <ErrorMessage error={photos.error} /> : null}
        {!photos.loading && !photos.error && photos.items.length === 0 ? <p>No photos yet.</p> : null}
        {days.map((group) => (
          <section key={group.day} aria-label={group.day} className="photo-day">
            <h3>{group.day}</h3>
            <ul className="photo-grid">
              {group.photos.map((photo) => (
                <li key={photo.id}>
                  <a href={photo.variants.original} target="_blank" rel="noopener">
                    {photo.variants.thumbnail
                      ? <img src={photo.variants.thumbnail} alt={photo.caption ?? `Photo taken at ${timeFormat.format(new Date(photo.captured_at))}`} loading="lazy" />
                      : <span className="pending">{photo.processing_status === 'failed' ? 'Cannot be shown' : 'Processing…'}</span>}
                  </a>
                </li>
              ))}
            </ul>
          </section>
        ))}
        <div ref={sentinel} className="list-end">
          {photos.loading ? <p role="status">Loading photos…</p> : null}
          {photos.hasMore && !photos.loading ? <button type="button" onClick={photos.loadMore}>Load more photos</button> : null}
        </div>
      </section>
      {project ? <Comments target={{ type: 'project', id }} /> : null}
    </>
  );
}
