import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
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
  const action = useAction();
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
    setNotice(null);
    await action.run(async () => {
      const saved = await photosApi.updateCaption(photo.id, caption.trim() || null, etag);
      setCaption(saved.body.caption ?? '');
      onSaved(saved);
      setNotice('The caption is saved.');
    });
  }

  return (
    <form className="caption-form" onSubmit={save}>
      <label htmlFor={`${id}-caption`}>Caption</label>
      <textarea id={`${id}-caption`} value={caption} maxLength={CAPTION_MAX} rows={3} onChange={(e) => { setCaption(e.target.value); setNotice(null); }} />
      {action.error instanceof ApiProblem && action.error.status === 412
        ? (
          <div className="error" role="alert">
            <strong>Someone else changed this photo; reload</strong>
            <span> to see their changes, then make yours again. Nothing was saved. </span>
            <button type="button" onClick={() => { action.clear(); onReload(); }}>Reload</button>
          </div>
        )
        : action.error ? <ErrorMessage error={action.error} /> : null}
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy || !changed}>{action.busy ? 'Saving…' : 'Save caption'}</button>
      </div>
    </form>
  );
}
