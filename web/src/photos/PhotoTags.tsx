import { useEffect, useId, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { photosApi, type PhotoDetail, type TagSummary, type WithEtag } from './photosApi.ts';

/**
 * The photo's tags: each with a Remove button (DELETE /v1/photos/{id}/tags/{tag_id}), and any
 * other tag of the workspace to add (PUT …). Removing answers 204 without the photo, so the page
 * reads the photo again (`onRemoved`) for its new ETag.
 */
export function PhotoTags({ photo, onChanged, onRemoved }: {
  photo: PhotoDetail;
  onChanged(saved: WithEtag<PhotoDetail>): void;
  onRemoved(): Promise<void>;
}) {
  const [all, setAll] = useState<TagSummary[] | null>(null);
  const [choice, setChoice] = useState('');
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const id = useId();
  useEffect(() => {
    let live = true;
    photosApi.allTags().then((tags) => live && setAll(tags), (err) => live && action.setError(err));
    return () => {
      live = false;
    };
  }, []);
  const others = (all ?? []).filter((t) => !photo.tags.some((mine) => mine.id === t.id));

  function act(work: () => Promise<void>, words: string) {
    setNotice(null);
    return action.run(async () => {
      await work();
      setNotice(words);
    });
  }
  function add(e: FormEvent) {
    e.preventDefault();
    const tag = others.find((t) => t.id === choice);
    if (!tag) return;
    void act(async () => {
      onChanged(await photosApi.applyTag(photo.id, tag.id));
      setChoice('');
    }, `Tag "${tag.name}" added.`);
  }
  const remove = (tag: TagSummary) => act(async () => {
    await photosApi.removeTag(photo.id, tag.id);
    await onRemoved();
  }, `Tag "${tag.name}" removed.`);

  return (
    <section aria-labelledby={`${id}-heading`} className="photo-tags">
      <h2 id={`${id}-heading`}>Tags</h2>
      {photo.tags.length === 0
        ? <p className="muted">No tags.</p>
        : (
          <ul aria-label="Tags of this photo">
            {photo.tags.map((tag) => (
              <li key={tag.id}>
                <span className="tag-dot" style={{ background: tag.color }} aria-hidden="true" />
                {tag.name}
                <button type="button" className="secondary" disabled={action.busy} aria-label={`Remove tag ${tag.name}`} onClick={() => remove(tag)}>Remove</button>
              </li>
            ))}
          </ul>
        )}
      <form onSubmit={add} className="tag-add">
        <label htmlFor={`${id}-add`}>Add a tag</label>
        <div>
          <select id={`${id}-add`} value={choice} onChange={(e) => setChoice(e.target.value)} disabled={all === null || others.length === 0}>
            <option value="">{all === null ? 'Loading tags…' : others.length === 0 ? 'No other tags' : 'Choose a tag'}</option>
            {others.map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
          </select>
          <button type="submit" disabled={action.busy || !choice}>Add tag</button>
        </div>
      </form>
      {notice ? <p role="status" className="muted">{notice}</p> : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
    </section>
  );
}
