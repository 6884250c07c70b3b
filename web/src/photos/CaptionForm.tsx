import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { photosApi, type PhotoDetail, type WithEtag } from './photosApi.ts';

const CAPTION_MAX = 2000;

/**
 * The caption, editable: PATCH /v1/photos/{id} `{caption}` with If-Match (an empty caption is
 * sent as null). A 412 says in words that someone else changed the photo, with a Reload.
 */
export function CaptionForm({ photo, etag, onSaved, onReload }: {
  photo: PhotoDetail;
  etag: string | null;
  onSaved(saved: WithEtag<PhotoDetail>): void;
  onReload(): void;
}) {
  const [caption, setCaption] = useState(photo.caption ?? '');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const id = useId();
  // A caption changed elsewhere (another save answered a newer photo) refills the field, unless it is being edited.
  const shown = useRef(photo.caption ?? '');
  useEffect(() => {
    const next = photo.caption ?? '';
    setCaption((current) => (current === shown.current ? next : current));
    shown.current = next;
  }, [photo.caption]);
  const changed = caption.trim() !== (photo.caption ?? '');

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const saved = await photosApi.updateCaption(photo.id, caption.trim() || null, etag);
      setCaption(saved.body.caption ?? '');
      onSaved(saved);
      setNotice('The caption is saved.');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <form className="caption-form" onSubmit={save}>
      <label htmlFor={`${id}-caption`}>Caption</label>
      <textarea id={`${id}-caption`} value={caption} maxLength={CAPTION_MAX} rows={3} onChange={(e) => { setCaption(e.target.value); setNotice(null); }} />
      {error instanceof ApiProblem && error.status === 412
        ? (
          <div className="error" role="alert">
            <strong>Someone else changed this photo; reload</strong>
            <span> to see their changes, then make yours again. Nothing was saved. </span>
            <button type="button" onClick={() => { setError(null); onReload(); }}>Reload</button>
          </div>
        )
        : error ? <ErrorMessage error={error} /> : null}
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      <div className="form-actions">
        <button type="submit" disabled={busy || !changed}>{busy ? 'Saving…' : 'Save caption'}</button>
      </div>
    </form>
  );
}
