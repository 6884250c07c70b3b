import { useLocation } from 'wouter';
import type { TimelineFilters } from './useTimeline.ts';

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
 * form with the filter filled in.
 */
export function TimelineSelection({ projectId, filters, selected, onStart, onCancel, onMakeReport }: {
  projectId: string;
  filters: TimelineFilters;
  /** null: not selecting. */
  selected: string[] | null;
  onStart(): void;
  onCancel(): void;
  onMakeReport(): void;
}) {
  const search = filterSearch(filters);
  const [, navigate] = useLocation();
  if (selected === null) {
    return (
      <div className="timeline-actions">
        <button type="button" className="secondary" onClick={onStart}>Select</button>
        {search ? <button type="button" className="secondary" onClick={() => navigate(`/projects/${projectId}/reports/new${search}`)}>Make a report from this filter</button> : null}
      </div>
    );
  }
  const n = selected.length;
  return (
    <div className="timeline-actions selecting" role="group" aria-label="Selection">
      <p role="status">{n === 0 ? 'No photo selected: tick the photos to put in the report.' : n === 1 ? '1 photo selected' : `${n} photos selected`}</p>
      <button type="button" disabled={n === 0} onClick={onMakeReport}>Make a report</button>
      <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
    </div>
  );
}
