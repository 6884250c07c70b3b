import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useState, type MouseEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { api, type Project } from '../api.ts';
import { Comments } from '../comments/Comments.tsx';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { AnnotationOverlay } from './AnnotationShapes.tsx';
import { CaptionForm } from './CaptionForm.tsx';
import { PhotoFacts, captureTime } from './PhotoFacts.tsx';
import { MoveToProject, ProjectFinder, useProjectChoices } from './MoveToProject.tsx';
import { PhotoTags } from './PhotoTags.tsx';
import { photosApi, timelineNeighbours, type PhotoDetail, type WithEtag } from './photosApi.ts';
import './photo.css';

// The drawing tools load only when someone starts annotating: the first screen stays small.
const AnnotationEditor = lazy(() => import('./AnnotationEditor.tsx'));

/** What the browser can show: the large variant, else the original unless it is HEIC (browsers cannot show it). */
function displayUrl(photo: PhotoDetail): string | null {
  return photo.variants.large ?? (photo.content_type === 'image/heic' ? null : photo.variants.original);
}

/** Arrow keys page through the photos, unless someone is typing or choosing in a field. */
function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

/**
 * One photo (`/photos/{id}`): the image with its annotations over it, previous / next in the
 * project's timeline (also ← / →), when and where it was taken and by whom, the caption and tags
 * to edit, and "Annotate" (the drawing tools, loaded on demand).
 */
export function PhotoPage({ id }: { id: string }) {
  const [, navigate] = useLocation();
  // The photo last read, and for which address: while the next one loads, the last stays on screen
  // (the previous/next links keep their place, and with it the keyboard focus).
  const [loaded, setLoadedFor] = useState<(WithEtag<PhotoDetail> & { for: string }) | null>(null);
  const setLoaded = useCallback((got: WithEtag<PhotoDetail>) => setLoadedFor({ ...got, for: id }), [id]);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const [reads, setReads] = useState(0);
  const [projectName, setProjectName] = useState<string | null>(null);
  const [neighbours, setNeighbours] = useState<{ of: string; previous: string | null; next: string | null } | null>(null);
  const [neighboursError, setNeighboursError] = useState<unknown>(null);
  const [natural, setNatural] = useState<{ width: number; height: number } | null>(null);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let live = true;
    setError(null);
    photosApi.photo(id).then((got) => {
      if (!live) return;
      setLoadedFor({ ...got, for: id });
      setReads((n) => n + 1);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [id, generation]);
  useEffect(() => {
    setNeighboursError(null);
    setNatural(null);
    setEditing(false);
    setNotice(null);
  }, [id]);

  const photo = loaded?.body ?? null;
  const current = loaded?.for === id;
  const projectId = photo?.project_id;
  const capturedAt = current ? photo?.captured_at : undefined;
  const fresh = neighbours?.of === id ? neighbours : null;
  useEffect(() => {
    if (!projectId) return;
    let live = true;
    api.project(projectId).then((p) => live && setProjectName(p.name), () => live && setProjectName(null));
    return () => {
      live = false;
    };
  }, [projectId]);
  useEffect(() => {
    if (!projectId || !capturedAt) return;
    let live = true;
    timelineNeighbours({ id, project_id: projectId, captured_at: capturedAt })
      .then((n) => live && setNeighbours({ of: id, ...n }), (err) => live && setNeighboursError(err));
    return () => {
      live = false;
    };
  }, [id, projectId, capturedAt]);

  // A layout effect: subscribed in the same task as the render that enabled the links, so a key
  // pressed as soon as they are enabled is never met by the listener of the render before.
  useLayoutEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (editing || !fresh || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || isTyping(e.target)) return;
      const to = e.key === 'ArrowLeft' ? fresh.previous : e.key === 'ArrowRight' ? fresh.next : null;
      if (!to) return;
      e.preventDefault();
      navigate(`/photos/${to}`);
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editing, fresh, navigate]);

  useEffect(() => {
    document.title = `${photo?.caption || 'Photo'} · Jobsite`;
    return () => {
      document.title = 'Jobsite';
    };
  }, [photo?.caption]);

  const refresh = useCallback(async () => setLoaded(await photosApi.photo(id)), [id, setLoaded]);

  const back = projectId ? <p><Link href={`/projects/${projectId}`}>← {projectName ?? 'The project'}</Link></p>
    : photo ? <p><Link href="/photos/unfiled">← Unfiled photos</Link></p> : <p><Link href="/projects">← Projects</Link></p>;
  if (error) {
    return (
      <>
        {back}
        <h1>Photo</h1>
        <ErrorMessage error={error} />
      </>
    );
  }
  if (!photo || !loaded) return <p role="status">Loading the photo…</p>;

  const src = displayUrl(photo);
  const width = photo.width ?? natural?.width ?? null;
  const height = photo.height ?? natural?.height ?? null;
  const alt = photo.caption || `Photo taken ${captureTime(photo)}`;
  // Links of the photo before (kept while the next loads, so focus stays on them) do nothing until theirs are known.
  const inert = fresh ? {} : { 'aria-disabled': true, onClick: (e: MouseEvent) => e.preventDefault() };

  return (
    <div className="photo-page">
      {back}
      <h1>{photo.caption || 'Photo'}</h1>
      <nav aria-label="Photos of this project" className="photo-nav">
        {neighbours?.previous ? <Link href={`/photos/${neighbours.previous}`} {...inert} aria-keyshortcuts="ArrowLeft">← Previous photo</Link> : <span className="muted">{neighbours ? 'Newest photo' : ''}</span>}
        <span className="muted photo-nav-hint">Newest first · ← → keys</span>
        {neighbours?.next ? <Link href={`/photos/${neighbours.next}`} {...inert} aria-keyshortcuts="ArrowRight">Next photo →</Link> : <span className="muted">{neighbours ? 'Oldest photo' : ''}</span>}
      </nav>
      {current ? null : <p role="status">Loading the photo…</p>}
      {neighboursError ? <ErrorMessage error={neighboursError} /> : null}
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      <div className="photo-layout">
        <div className="photo-main">
          {editing && src && width && height
            ? (
              <Suspense fallback={<p role="status">Loading the drawing tools…</p>}>
                <AnnotationEditor
                  photo={photo} etag={loaded.etag} src={src} alt={alt} width={width} height={height}
                  onCancel={() => setEditing(false)}
                  onSaved={(next) => { setLoaded(next); setEditing(false); setNotice('The annotations are saved.'); }}
                />
              </Suspense>
            )
            : (
              <>
                {src
                  ? (
                    <div className="photo-frame">
                      <img
                        src={src} alt={alt}
                        onLoad={(e) => setNatural({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })}
                      />
                      {width && height ? <AnnotationOverlay shapes={photo.annotations} width={width} height={height} /> : null}
                    </div>
                  )
                  : <p className="photo-pending">{photo.processing_status === 'failed' ? `This photo cannot be shown: ${photo.processing_error ?? 'processing failed'}.` : 'Processing… the photo shows once it is ready.'}</p>}
                <div className="form-actions">
                  <button type="button" disabled={!current || !src || !width || !height} onClick={() => { setNotice(null); setEditing(true); }}>
                    {photo.annotations.length ? 'Edit annotations' : 'Annotate'}
                  </button>
                  <a className="button-link" href={photo.variants.original} target="_blank" rel="noopener">Original file</a>
                  {photo.variants.annotated ? <a className="button-link" href={photo.variants.annotated} target="_blank" rel="noopener">Annotated image</a> : null}
                </div>
              </>
            )}
        </div>
        <div className="photo-side">
          <PhotoFacts photo={photo} />
          <CaptionForm key={`${photo.id}-${reads}`} photo={photo} etag={loaded.etag} onSaved={setLoaded} onReload={reload} />
          <PhotoTags key={`tags-${photo.id}`} photo={photo} onChanged={setLoaded} onRemoved={refresh} />
          {photo.project_id === null
            ? <FileThisPhoto key={`file-${photo.id}`} photoId={photo.id} onMoved={(project) => { setNotice(`The photo is now in ${project.name}.`); void refresh(); }} />
            : <Comments key={`comments-${photo.id}`} target={{ type: 'photo', id: photo.id }} />}
        </div>
      </div>
    </div>
  );
}

/** An unfiled photo (uploaded without a project, not placed by its location): where it goes. Comments start once it is filed. */
function FileThisPhoto({ photoId, onMoved }: { photoId: string; onMoved(project: Project): void }) {
  const choices = useProjectChoices();
  const { projects, error } = choices;
  return (
    <section aria-labelledby="file-photo-heading" className="unfiled-file">
      <h2 id="file-photo-heading">Not filed under a project</h2>
      <p className="muted">Its location did not place it. Move it to its project; comments open once it is there.</p>
      {error ? <ErrorMessage error={error} /> : null}
      <ProjectFinder choices={choices} />
      <MoveToProject photoId={photoId} projects={projects} onMoved={onMoved} />
    </section>
  );
}
