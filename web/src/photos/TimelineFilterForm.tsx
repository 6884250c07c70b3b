import { useEffect, useId, useState } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { mediaApi, type Tag } from './mediaApi.ts';
import type { TimelineFilters } from './useTimeline.ts';

/** Tag pickers list this many pages of 100 at most; a workspace has dozens of tags, not thousands. */
const MAX_TAG_PAGES = 5;

async function allTags(): Promise<Tag[]> {
  const tags: Tag[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < MAX_TAG_PAGES; i++) {
    const page = await mediaApi.tags(cursor);
    tags.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return tags;
}

/** Tag (photos only: videos carry no tags), From day and To day (both included); every change goes straight to the address. */
export function TimelineFilterForm({ filters, onChange }: { filters: TimelineFilters; onChange(next: TimelineFilters): void }) {
  const [tags, setTags] = useState<Tag[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const tagId = useId();
  const fromId = useId();
  const toId = useId();
  const noteId = useId();
  useEffect(() => {
    let live = true;
    allTags().then((list) => live && setTags(list), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, []);
  const unknownTag = filters.tag && tags && !tags.some((t) => t.id === filters.tag);
  const backwards = filters.from && filters.to && filters.to < filters.from;

  return (
    <form className="media-filters" role="search" aria-label="Filter photos and videos" onSubmit={(e) => e.preventDefault()}>
      <div>
        <label htmlFor={tagId}>Tag</label>
        <select id={tagId} value={filters.tag ?? ''} aria-describedby={filters.tag ? noteId : undefined} onChange={(e) => onChange({ ...filters, tag: e.target.value || null })}>
          <option value="">All photos and videos</option>
          {unknownTag ? <option value={filters.tag!}>A tag that no longer exists</option> : null}
          {(tags ?? []).map((t) => <option key={t.id} value={t.id}>{t.name}</option>)}
        </select>
      </div>
      <div>
        <label htmlFor={fromId}>From</label>
        <input id={fromId} type="date" value={filters.from ?? ''} max={filters.to ?? undefined} onChange={(e) => onChange({ ...filters, from: e.target.value || null })} />
      </div>
      <div>
        <label htmlFor={toId}>To</label>
        <input id={toId} type="date" value={filters.to ?? ''} min={filters.from ?? undefined} onChange={(e) => onChange({ ...filters, to: e.target.value || null })} />
      </div>
      {filters.tag || filters.from || filters.to
        ? <button type="button" className="secondary" onClick={() => onChange({ tag: null, from: null, to: null })}>Clear filters</button>
        : null}
      {filters.tag ? <p id={noteId} className="hint">Only photos: videos carry no tags.</p> : null}
      {backwards ? <p className="field-error">“To” is before “From”: nothing can match.</p> : null}
      {error ? <ErrorMessage error={error} /> : null}
    </form>
  );
}
