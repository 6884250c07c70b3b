import { useLocation } from 'wouter';
import { ShareButton } from '../share/ShareButton.tsx';
import type { TimelineFilters } from './useTimeline.ts';

/** The photos the timeline's Select mode chose (PhotoTimeline puts them in the history entry's state), for the report and export forms. */
export function chosenPhotos(): string[] | null {
  const ids = (window.history.state as { photoIds?: unknown } | null)?.photoIds;
  return Array.isArray(ids) && ids.length > 0 && ids.every((x) => typeof x === 'string') ? ids : null;
}

/** The filters of an address's `?tag=…&from=…&to=…` (the timeline's, and the new report form's). */
export function filtersFrom(search: string): TimelineFilters {
  const params = new URLSearchParams(search);
  return { tag: params.get('tag') || null, from: params.get('from') || null, to: params.get('to') || null };
}

/** `?tag=…&from=…&to=…` of the filters that are set ('' for none). */
export function filterSearch(filters: TimelineFilters): string {
  const params = new URLSearchParams();
  for (const key of ['tag', 'from', 'to'] as const) if (filters[key]) params.set(key, filters[key]);
  const query = params.toString();
  return query ? `?${query}` : '';
}

/**
 * The timeline's Select mode, for reports: "Select" puts a checkbox on each photo; the bar then
 * says how many are selected (a live region), and "Make a report" opens the Reports section's
 * form with them (their ids travel in the history entry's state, not the address: a thousand ids
 * make too long an address). With a filter set, "Make a report from this filter" opens the same
 * form with the filter filled in. The same selection can be shared by link (Share) or exported
 * as a ZIP (Export selected), and "Export photos (ZIP)" opens the export form with the filter;
 * the export buttons only for roles that may export (`mayExport`).
 */
export function TimelineSelection({ projectId, filters, selected, mayExport, onStart, onCancel, onMakeReport, onExport }: {
  projectId: string;
  mayExport: boolean;
  filters: TimelineFilters;
  /** null: not selecting. */
  selected: string[] | null;
  onStart(): void;
  onCancel(): void;
  onMakeReport(): void;
  onExport(): void;
}) {
  const search = filterSearch(filters);
  const [, navigate] = useLocation();
  if (selected === null) {
    return (
      <div className="timeline-actions">
        <button type="button" className="secondary" onClick={onStart}>Select</button>
        {search ? <button type="button" className="secondary" onClick={() => navigate(`/projects/${projectId}/reports/new${search}`)}>Make a report from this filter</button> : null}
        {mayExport ? <button type="button" className="secondary" onClick={() => navigate(`/projects/${projectId}/exports/new${search}`)}>Export photos (ZIP)</button> : null}
      </div>
    );
  }
  const n = selected.length;
  return (
    <div className="timeline-actions selecting" role="group" aria-label="Selection">
      <p role="status">{n === 0 ? 'No photo selected: tick the photos for a report, a share link or an export.' : n === 1 ? '1 photo selected' : `${n} photos selected`}</p>
      <button type="button" disabled={n === 0} onClick={onMakeReport}>Make a report</button>
      <ShareButton projectId={projectId} content={{ photo_ids: selected }} what={n === 1 ? '1 photo' : `${n} photos`} disabled={n === 0} />
      {mayExport ? <button type="button" disabled={n === 0} onClick={onExport}>Export selected (ZIP)</button> : null}
      <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
    </div>
  );
}
