import { useId, useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useWhenVisible } from '../usePages.ts';
import type { MediaItem } from './mediaApi.ts';
import { PhotoCheckbox } from './PhotoCheckbox.tsx';
import { PhotoUploader } from './PhotoUploader.tsx';
import { TimelineFilterForm } from './TimelineFilterForm.tsx';
import { filtersFrom, TimelineSelection } from './TimelineSelection.tsx';
import { useTimeline, type TimelineFilters } from './useTimeline.ts';
import './photos.css';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
const timeFormat = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/** Items in capture order (newest first), grouped by the viewer's local day. */
function byDay(items: MediaItem[]): Array<{ day: string; items: MediaItem[] }> {
  const groups: Array<{ day: string; items: MediaItem[] }> = [];
  for (const item of items) {
    const day = dayFormat.format(new Date(item.capturedAt));
    const last = groups[groups.length - 1];
    if (last && last.day === day) last.items.push(item);
    else groups.push({ day, items: [item] });
  }
  return groups;
}

/** "1:05" from 65.2 seconds. */
function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** What a tile is called: the caption, else when it was taken ("Photo taken at 14:02"); a video says so, and how long it runs. */
function nameOf(item: MediaItem): string {
  const at = timeFormat.format(new Date(item.capturedAt));
  if (item.kind === 'photo') return item.caption ?? `Photo taken at ${at}`;
  const length = item.durationSeconds === null ? '' : `, ${formatDuration(item.durationSeconds)}`;
  return `${item.caption ? `Video: ${item.caption}` : `Video recorded at ${at}`}${length}`;
}

/**
 * A project's photos and videos: the uploader, filters by tag and capture day (kept in the
 * address: `?tag=…&from=…&to=…`), and the timeline grouped by day, newest first, loading more as
 * its end scrolls into view. Just-uploaded items show at once as "Processing…". "Select" turns
 * the processed photos into checkboxes, for a report, a share link or an export (TimelineSelection).
 */
export function PhotoTimeline({ projectId, mayExport = false }: { projectId: string; mayExport?: boolean }) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const filters = useMemo(() => filtersFrom(search), [search]);
  const setFilters = (next: TimelineFilters) => {
    const params = new URLSearchParams(search);
    for (const key of ['tag', 'from', 'to'] as const) {
      if (next[key]) params.set(key, next[key]);
      else params.delete(key);
    }
    const query = params.toString();
    navigate(query ? `${location}?${query}` : location, { replace: true });
  };
  const timeline = useTimeline(projectId, filters);
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!timeline.error) timeline.loadMore();
  });
  const days = useMemo(() => byDay(timeline.items), [timeline.items]);
  const filtered = !!(filters.tag || filters.from || filters.to);
  const [selected, setSelected] = useState<string[] | null>(null);
  const toggle = (id: string, on: boolean) => setSelected((list) => (list === null ? list : on ? [...list, id] : list.filter((x) => x !== id)));
  const checkboxId = useId();

  return (
    <section aria-labelledby="photos-heading" className="media">
      <h2 id="photos-heading">Photos and videos</h2>
      <PhotoUploader projectId={projectId} onUploaded={timeline.addUploaded} />
      <TimelineFilterForm filters={filters} onChange={setFilters} />
      <TimelineSelection
        projectId={projectId} filters={filters} selected={selected} mayExport={mayExport}
        onStart={() => setSelected([])} onCancel={() => setSelected(null)}
        onMakeReport={() => navigate(`/projects/${projectId}/reports/new`, { state: { photoIds: selected } })}
        onExport={() => navigate(`/projects/${projectId}/exports/new`, { state: { photoIds: selected } })}
      />
      {timeline.error
        ? (
          <>
            <ErrorMessage error={timeline.error} />
            <button type="button" onClick={timeline.reload}>Try again</button>
          </>
        )
        : null}
      {!timeline.loading && !timeline.error && timeline.items.length === 0
        ? <p>{filtered ? 'No photos or videos match these filters.' : 'No photos or videos yet.'}</p>
        : null}
      {days.map((group) => (
        <section key={group.day} aria-label={group.day} className="photo-day">
          <h3>{group.day}</h3>
          <ul className="photo-grid">
            {group.items.map((item) => (
              <li key={item.id}>
                {selected === null
                  ? <MediaTile item={item} />
                  : <SelectableTile item={item} inputId={`${checkboxId}-${item.id}`} checked={selected.includes(item.id)} onChange={(on) => toggle(item.id, on)} />}
              </li>
            ))}
          </ul>
        </section>
      ))}
      <div ref={sentinel} className="list-end">
        {timeline.loading ? <p role="status">Loading photos and videos…</p> : null}
        {timeline.hasMore && !timeline.loading && !timeline.error ? <button type="button" onClick={timeline.loadMore}>Load more</button> : null}
      </div>
    </section>
  );
}

function MediaTile({ item }: { item: MediaItem }) {
  const name = nameOf(item);
  const content = item.status === 'processed' && item.thumbnail
    ? <img src={item.thumbnail} alt={name} loading="lazy" />
    : (
      <span className="pending">
        <span className="visually-hidden">{name}: </span>
        {item.status === 'failed' ? 'Cannot be shown' : item.status === 'pending' ? 'Processing…' : item.kind === 'video' ? 'Video' : 'No preview'}
      </span>
    );
  const badge = item.kind === 'video' ? <span className="video-badge" aria-hidden="true">▶ {item.durationSeconds === null ? '' : formatDuration(item.durationSeconds)}</span> : null;
  // Photos open their page; a video has none, so it opens the file itself (the browser plays it).
  return item.kind === 'photo'
    ? <Link href={item.href} className="media-tile">{content}</Link>
    : <a href={item.href} className="media-tile">{content}{badge}</a>;
}

/** In Select mode: a processed photo is a checkbox; anything else cannot go into a report and says why. */
function SelectableTile({ item, inputId, checked, onChange }: { item: MediaItem; inputId: string; checked: boolean; onChange(on: boolean): void }) {
  const name = nameOf(item);
  if (item.kind === 'photo' && item.status === 'processed') {
    return <PhotoCheckbox inputId={inputId} name={name} thumbnail={item.thumbnail} checked={checked} onChange={onChange} hideName />;
  }
  const why = item.kind === 'video' ? 'Videos are not printed in reports' : item.status === 'pending' ? 'Still processing' : 'Cannot be printed';
  return (
    <span className="media-tile unselectable">
      {item.thumbnail ? <img src={item.thumbnail} alt="" loading="lazy" /> : null}
      <span className="why"><span className="visually-hidden">{name}: </span>{why}</span>
    </span>
  );
}
