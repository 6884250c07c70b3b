import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { photosApi, type PhotoSelection, type TagSummary } from './photosApi.ts';
import { localDayStart, type TimelineFilters } from './useTimeline.ts';

/**
 * Which photos a report or an export takes: those chosen in the timeline (`photoIds`), or From /
 * To days and tags — the timeline's filter filled in when coming from it; nothing for every photo.
 */
export interface PhotoChoice {
  photoIds: string[] | null;
  from: string;
  setFrom(day: string): void;
  to: string;
  setTo(day: string): void;
  tagIds: string[];
  toggleTag(tagId: string, on: boolean): void;
  /** The workspace's tags (null while loading, or when they could not be read). */
  tags: TagSummary[] | null;
  tagsFailed: boolean;
  /** "To" before "From": nothing could match, so the form does not send. */
  backwards: boolean;
}

/** The choice's state; the tags are read only for a filter. A failure to read them goes to `onError`. */
export function usePhotoChoice(photoIds: string[] | null, filters: TimelineFilters, onError: (err: unknown) => void): PhotoChoice {
  const [from, setFrom] = useState(filters.from ?? '');
  const [to, setTo] = useState(filters.to ?? '');
  const [tagIds, setTagIds] = useState<string[]>(filters.tag ? [filters.tag] : []);
  const [tags, setTags] = useState<TagSummary[] | null>(null);
  const [tagsFailed, setTagsFailed] = useState(false);
  useEffect(() => {
    let live = true;
    if (photoIds === null) {
      photosApi.allTags().then((list) => live && setTags(list), (err) => {
        if (!live) return;
        setTagsFailed(true);
        onError(err);
      });
    }
    return () => {
      live = false;
    };
    // onError is the form's state setter, which never changes.
  }, [photoIds]);
  const toggleTag = (tagId: string, on: boolean) => setTagIds((list) => (on ? [...list, tagId] : list.filter((t) => t !== tagId)));
  return { photoIds, from, setFrom, to, setTo, tagIds, toggleTag, tags, tagsFailed, backwards: !!(from && to && to < from) };
}

/** The API's fields for the choice: `photo_ids`, or `captured_after` / `captured_before` (whole local days) and `tag_ids`. */
export function photoSelection(choice: PhotoChoice): PhotoSelection {
  if (choice.photoIds) return { photo_ids: choice.photoIds };
  const selection: PhotoSelection = {};
  const after = localDayStart(choice.from || null);
  const before = localDayStart(choice.to || null, 1);
  if (after) selection.captured_after = after;
  if (before) selection.captured_before = before;
  if (choice.tagIds.length) selection.tag_ids = choice.tagIds;
  return selection;
}

/**
 * The choice's fields: "n photos chosen in the timeline", or the "Which photos" fieldset. `labels`
 * name the two days; `missingTag`, a tag named by the address that the workspace no longer has,
 * stays listed so it can be unticked (or the API says why not).
 */
export function PhotoChoiceFields({ id, projectId, choice, labels, missingTag = null }: {
  id: string;
  projectId: string;
  choice: PhotoChoice;
  labels: { from: string; to: string };
  missingTag?: string | null;
}) {
  const { photoIds, from, to, tagIds, tags, backwards } = choice;
  if (photoIds) {
    return (
      <p className="report-choice">
        {photoIds.length === 1 ? '1 photo' : `${photoIds.length} photos`} chosen in the timeline.{' '}
        <Link href={`/projects/${projectId}`}>Back to the timeline</Link>
      </p>
    );
  }
  const shownTags = tags && missingTag && !tags.some((t) => t.id === missingTag)
    ? [...tags, { id: missingTag, name: 'A tag that no longer exists', color: '#000000' }] : tags;
  return (
    <fieldset>
      <legend>Which photos</legend>
      <p className="hint">Photos taken between these days (both included) and with any of the ticked tags; leave them empty for every photo of the project.</p>
      <div className="report-days">
        <div>
          <label htmlFor={`${id}-from`}>{labels.from}</label>
          <input id={`${id}-from`} type="date" value={from} max={to || undefined} onChange={(e) => choice.setFrom(e.target.value)} />
        </div>
        <div>
          <label htmlFor={`${id}-to`}>{labels.to}</label>
          <input
            id={`${id}-to`} type="date" value={to} min={from || undefined} aria-invalid={backwards ? true : undefined}
            aria-describedby={backwards ? `${id}-days-error` : undefined} onChange={(e) => choice.setTo(e.target.value)}
          />
        </div>
      </div>
      {backwards ? <p className="field-error" id={`${id}-days-error`}>“{labels.to}” is before “{labels.from}”: nothing could match.</p> : null}
      {shownTags === null
        ? (choice.tagsFailed ? null : <p role="status">Loading tags…</p>)
        : shownTags.length === 0
          ? <p className="hint">The workspace has no tags yet.</p>
          : (
            <fieldset className="report-tags">
              <legend>Tags</legend>
              {shownTags.map((t) => (
                <div className="checkbox-field" key={t.id}>
                  <input id={`${id}-tag-${t.id}`} type="checkbox" checked={tagIds.includes(t.id)} onChange={(e) => choice.toggleTag(t.id, e.target.checked)} />
                  <label htmlFor={`${id}-tag-${t.id}`}>{t.name}</label>
                </div>
              ))}
            </fieldset>
          )}
    </fieldset>
  );
}
