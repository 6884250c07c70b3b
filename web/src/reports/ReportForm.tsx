import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { photosApi, type TagSummary } from '../photos/photosApi.ts';
import { localDayStart, type TimelineFilters } from '../photos/useTimeline.ts';
import { zoneGroups } from '../timeZones.ts';
import { reportsApi, TITLE_MAX, type Layout, type PageSize, type Report, type ReportInput } from './reportsApi.ts';

const LAYOUTS: Array<[Layout, string]> = [[1, '1 photo per page'], [2, '2 photos per page'], [4, '4 photos per page (2 × 2)']];

/**
 * "New report": the title, which photos (those chosen in the timeline, or From / To days and tags —
 * the timeline's filter filled in when coming from it), the layout, page size and time zone (the
 * workspace's by default), and what else to print. Sends POST /v1/projects/{id}/reports; the
 * API's refusals are shown in its words and nothing is lost.
 */
export function ReportForm({ project, photoIds, filters, onCreated, onCancel }: {
  project: Project;
  /** Photos chosen in the timeline; null: a filter instead. */
  photoIds: string[] | null;
  filters: TimelineFilters;
  onCreated(report: Report): void;
  onCancel(): void;
}) {
  const id = useId();
  const [title, setTitle] = useState(`Photo report: ${project.name}`);
  const [from, setFrom] = useState(filters.from ?? '');
  const [to, setTo] = useState(filters.to ?? '');
  const [tagIds, setTagIds] = useState<string[]>(filters.tag ? [filters.tag] : []);
  const [tags, setTags] = useState<TagSummary[] | null>(null);
  const [layout, setLayout] = useState<Layout>(2);
  const [pageSize, setPageSize] = useState<PageSize>('letter');
  const [zone, setZone] = useState('');
  const [workspaceZone, setWorkspaceZone] = useState<string | null>(null);
  const [annotations, setAnnotations] = useState(true);
  const [tasks, setTasks] = useState(false);
  const [comments, setComments] = useState(false);
  const [titleProblem, setTitleProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const titleInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    let live = true;
    reportsApi.workspaceTimeZone().then((z) => {
      if (!live) return;
      setWorkspaceZone(z);
      setZone((current) => current || z);
    }, () => undefined); // Then "where each photo was taken" stays chosen: still a good report.
    if (photoIds === null) photosApi.allTags().then((list) => live && setTags(list), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [photoIds]);
  const groups = useMemo(() => zoneGroups(['UTC', ...(workspaceZone ? [workspaceZone] : [])]), [workspaceZone]);
  const backwards = !!(from && to && to < from);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    setError(null);
    if (!title.trim()) {
      setTitleProblem('Give the report a title.');
      titleInput.current?.focus();
      return;
    }
    if (backwards) return;
    const input: ReportInput = {
      title: title.trim(),
      options: { layout, page_size: pageSize, include_annotations: annotations, include_tasks: tasks, include_comments: comments, ...(zone ? { time_zone: zone } : {}) },
    };
    if (photoIds) input.photo_ids = photoIds;
    else {
      const after = localDayStart(from || null);
      const before = localDayStart(to || null, 1);
      if (after) input.captured_after = after;
      if (before) input.captured_before = before;
      if (tagIds.length) input.tag_ids = tagIds;
    }
    setBusy(true);
    try {
      onCreated(await reportsApi.create(project.id, input));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  const toggleTag = (tagId: string, on: boolean) => setTagIds((list) => (on ? [...list, tagId] : list.filter((t) => t !== tagId)));
  // A tag named by the address that the workspace no longer has stays listed, so it can be unticked (or the API says why not).
  const shownTags = tags && filters.tag && !tags.some((t) => t.id === filters.tag)
    ? [...tags, { id: filters.tag, name: 'A tag that no longer exists', color: '#000000' }] : tags;

  return (
    <form className="report-form" aria-labelledby={`${id}-heading`} onSubmit={submit} noValidate>
      <h2 id={`${id}-heading`}>New report</h2>
      <label htmlFor={`${id}-title`}>Title</label>
      <input
        id={`${id}-title`} ref={titleInput} value={title} maxLength={TITLE_MAX} required
        aria-invalid={titleProblem ? true : undefined} aria-describedby={titleProblem ? `${id}-title-error` : `${id}-title-hint`}
        onChange={(e) => { setTitle(e.target.value); setTitleProblem(null); }}
      />
      {titleProblem ? <p className="field-error" id={`${id}-title-error`}>{titleProblem}</p> : <p className="hint" id={`${id}-title-hint`}>Printed on the cover; also the PDF’s file name.</p>}

      {photoIds
        ? (
          <p className="report-choice">
            {photoIds.length === 1 ? '1 photo' : `${photoIds.length} photos`} chosen in the timeline.{' '}
            <Link href={`/projects/${project.id}`}>Back to the timeline</Link>
          </p>
        )
        : (
          <fieldset>
            <legend>Which photos</legend>
            <p className="hint">Photos taken between these days (both included) and with any of the ticked tags; leave them empty for every photo of the project.</p>
            <div className="report-days">
              <div>
                <label htmlFor={`${id}-from`}>From</label>
                <input id={`${id}-from`} type="date" value={from} max={to || undefined} onChange={(e) => setFrom(e.target.value)} />
              </div>
              <div>
                <label htmlFor={`${id}-to`}>To</label>
                <input
                  id={`${id}-to`} type="date" value={to} min={from || undefined} aria-invalid={backwards ? true : undefined}
                  aria-describedby={backwards ? `${id}-days-error` : undefined} onChange={(e) => setTo(e.target.value)}
                />
              </div>
            </div>
            {backwards ? <p className="field-error" id={`${id}-days-error`}>“To” is before “From”: nothing could match.</p> : null}
            {shownTags === null
              ? <p role="status">Loading tags…</p>
              : shownTags.length === 0
                ? <p className="hint">The workspace has no tags yet.</p>
                : (
                  <fieldset className="report-tags">
                    <legend>Tags</legend>
                    {shownTags.map((t) => (
                      <div className="checkbox-field" key={t.id}>
                        <input id={`${id}-tag-${t.id}`} type="checkbox" checked={tagIds.includes(t.id)} onChange={(e) => toggleTag(t.id, e.target.checked)} />
                        <label htmlFor={`${id}-tag-${t.id}`}>{t.name}</label>
                      </div>
                    ))}
                  </fieldset>
                )}
          </fieldset>
        )}

      <fieldset>
        <legend>Layout</legend>
        {LAYOUTS.map(([n, words]) => (
          <div className="checkbox-field" key={n}>
            <input id={`${id}-layout-${n}`} type="radio" name="layout" checked={layout === n} onChange={() => setLayout(n)} />
            <label htmlFor={`${id}-layout-${n}`}>{words}</label>
          </div>
        ))}
      </fieldset>
      <label htmlFor={`${id}-size`}>Page size</label>
      <select id={`${id}-size`} value={pageSize} onChange={(e) => setPageSize(e.target.value as PageSize)}>
        <option value="letter">US Letter</option>
        <option value="a4">A4</option>
      </select>
      <label htmlFor={`${id}-zone`}>Time zone</label>
      <select id={`${id}-zone`} value={zone} aria-describedby={`${id}-zone-hint`} onChange={(e) => setZone(e.target.value)}>
        <option value="">Where each photo was taken</option>
        {groups.map(([region, zones]) => (
          <optgroup key={region} label={region}>
            {zones.map((z) => <option key={z} value={z}>{z.replaceAll('_', ' ')}{z === workspaceZone ? ' (the workspace’s)' : ''}</option>)}
          </optgroup>
        ))}
      </select>
      <p className="hint" id={`${id}-zone-hint`}>Every date and time of the report is printed in this zone.</p>
      <fieldset>
        <legend>Also print</legend>
        <div className="checkbox-field">
          <input id={`${id}-annotations`} type="checkbox" checked={annotations} onChange={(e) => setAnnotations(e.target.checked)} />
          <label htmlFor={`${id}-annotations`}>Drawings on the photos</label>
        </div>
        <div className="checkbox-field">
          <input id={`${id}-tasks`} type="checkbox" checked={tasks} onChange={(e) => setTasks(e.target.checked)} />
          <label htmlFor={`${id}-tasks`}>The project’s tasks</label>
        </div>
        <div className="checkbox-field">
          <input id={`${id}-comments`} type="checkbox" checked={comments} onChange={(e) => setComments(e.target.checked)} />
          <label htmlFor={`${id}-comments`}>Comments</label>
        </div>
      </fieldset>
      <p className="hint">The cover shows the project’s cover photo, or else the report’s first photo.</p>
      {error ? <ErrorMessage error={error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={busy}>{busy ? 'Asking for the report…' : 'Make the report'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
