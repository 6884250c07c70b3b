import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { AnnotationOverlay } from './AnnotationShapes.tsx';
import { CaptionForm } from './CaptionForm.tsx';
import { PhotoFacts, captureTime } from './PhotoFacts.tsx';
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
  const [loaded, setLoaded] = useState<WithEtag<PhotoDetail> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);
  const [reads, setReads] = useState(0);
  const [projectName, setProjectName] = useState<string | null>(null);
  const [neighbours, setNeighbours] = useState<{ previous: string | null; next: string | null } | null>(null);
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
      setLoaded(got);
      setReads((n) => n + 1);
    }, (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [id, generation]);
  useEffect(() => {
    setLoaded(null);
    setNeighbours(null);
    setNeighboursError(null);
    setNatural(null);
    setEditing(false);
    setNotice(null);
  }, [id]);

  const photo = loaded?.body ?? null;
  const projectId = photo?.project_id;
  const capturedAt = photo?.captured_at;
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
      .then((n) => live && setNeighbours(n), (err) => live && setNeighboursError(err));
    return () => {
      live = false;
    };
  }, [id, projectId, capturedAt]);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (editing || !neighbours || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || isTyping(e.target)) return;
      const to = e.key === 'ArrowLeft' ? neighbours.previous : e.key === 'ArrowRight' ? neighbours.next : null;
      if (!to) return;
      e.preventDefault();
      navigate(`/photos/${to}`);
    }
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [editing, neighbours, navigate]);

  useEffect(() => {
    document.title = `${photo?.caption || 'Photo'} · Jobsite`;
    return () => {
      document.title = 'Jobsite';
    };
  }, [photo?.caption]);

  const saved = useCallback((next: WithEtag<PhotoDetail>) => setLoaded(next), []);
  const refresh = useCallback(async () => setLoaded(await photosApi.photo(id)), [id]);

  const back = projectId ? <p><Link href={`/projects/${projectId}`}>← {projectName ?? 'The project'}</Link></p> : <p><Link href="/projects">← Projects</Link></p>;
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

  return (
    <div className="photo-page">
      {back}
      <h1>{photo.caption || 'Photo'}</h1>
      <nav aria-label="Photos of this project" className="photo-nav">
        {neighbours?.previous ? <Link href={`/photos/${neighbours.previous}`} aria-keyshortcuts="ArrowLeft">← Previous photo</Link> : <span className="muted">{neighbours ? 'Newest photo' : ''}</span>}
        <span className="muted photo-nav-hint">Newest first · ← → keys</span>
        {neighbours?.next ? <Link href={`/photos/${neighbours.next}`} aria-keyshortcuts="ArrowRight">Next photo →</Link> : <span className="muted">{neighbours ? 'Oldest photo' : ''}</span>}
      </nav>
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
                  <button type="button" disabled={!src || !width || !height} onClick={() => { setNotice(null); setEditing(true); }}>
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
          <CaptionForm key={`${photo.id}-${reads}`} photo={photo} etag={loaded.etag} onSaved={saved} onReload={reload} />
          <PhotoTags photo={photo} onChanged={saved} onRemoved={refresh} />
          {/* Comments: <Comments … /> for this photo goes here (wired at merge). */}
        </div>
      </div>
    </div>
  );
}
