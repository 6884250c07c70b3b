import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { request, type Page, type Photo, type Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { MoveToProject, ProjectFinder, useProjectChoices } from './MoveToProject.tsx';
import './unfiled.css';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const nameOf = (photo: Photo) => photo.caption || `Photo taken ${timeFormat.format(new Date(photo.captured_at))}`;

const unfiledPage = (cursor: string | null) =>
  request<Page<Photo>>('GET', '/v1/photos', { query: { project_id: 'none', limit: 30, cursor } });

/**
 * The inbox of photos uploaded without a project (`POST /v1/photos`) that their location did not
 * file (docs/photos.md, "Photos that file themselves"): `GET /v1/photos?project_id=none`, each with
 * a "Move to project" choice (`PATCH /v1/photos/{id}` with `project_id`). The choices are the
 * 100 most recently changed active projects, or those the "Find a project" box finds.
 */
export function UnfiledPhotos() {
  const [photos, setPhotos] = useState<Photo[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const choices = useProjectChoices();
  const { projects, error: projectsError } = choices;
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    unfiledPage(null).then((page) => {
      if (!live) return;
      setPhotos(page.data);
      setCursor(page.has_more ? page.next_cursor : null);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, []);

  useEffect(() => {
    document.title = 'Unfiled photos · Jobsite';
    return () => {
      document.title = 'Jobsite';
    };
  }, []);

  async function more() {
    try {
      const page = await unfiledPage(cursor);
      setPhotos((list) => [...(list ?? []), ...page.data]);
      setCursor(page.has_more ? page.next_cursor : null);
    } catch (err) {
      setError(err);
    }
  }

  const moved = (photo: Photo, project: Project) => {
    setPhotos((list) => (list ?? []).filter((p) => p.id !== photo.id));
    setNotice(`Moved “${nameOf(photo)}” to ${project.name}`);
  };

  return (
    <section aria-labelledby="unfiled-heading" className="unfiled">
      <h1 id="unfiled-heading">Unfiled photos</h1>
      <p className="muted">
        Photos uploaded without a project that their location did not place: no GPS position, or no project near enough.
        Move each to its project.
      </p>
      <p role="status" className="notice">{notice ?? ''}</p>
      {error || projectsError ? <ErrorMessage error={error ?? projectsError} /> : null}
      {photos === null && !error ? <p role="status">Loading the photos…</p> : null}
      {photos !== null && photos.length === 0 ? <p>No photos are waiting: every photo is filed under a project.</p> : null}
      {photos && photos.length > 0 ? <ProjectFinder choices={choices} /> : null}
      {photos && photos.length > 0 ? (
        <ul className="unfiled-list" aria-label="Photos waiting for a project">
          {photos.map((photo) => <UnfiledPhoto key={photo.id} photo={photo} projects={projects} onMoved={(p) => moved(photo, p)} />)}
        </ul>
      ) : null}
      {cursor ? <button type="button" onClick={more}>Show more photos</button> : null}
    </section>
  );
}

function UnfiledPhoto({ photo, projects, onMoved }: { photo: Photo; projects: Project[]; onMoved(project: Project): void }) {
  const name = nameOf(photo);
  return (
    <li className="unfiled-item" aria-label={name}>
      <Link href={`/photos/${photo.id}`} className="unfiled-thumb">
        {photo.variants.thumbnail ? <img src={photo.variants.thumbnail} alt={name} loading="lazy" /> : <span>{photo.processing_status === 'pending' ? 'Processing…' : name}</span>}
      </Link>
      <div className="unfiled-body">
        <p className="unfiled-name">{name}</p>
        <MoveToProject photoId={photo.id} projects={projects} onMoved={onMoved} />
      </div>
    </li>
  );
}
