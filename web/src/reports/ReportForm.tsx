import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import type { Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { PhotoChoiceFields, photoSelection, usePhotoChoice } from '../photos/PhotoChoice.tsx';
import type { TimelineFilters } from '../photos/useTimeline.ts';
import { zoneGroups } from '../timeZones.ts';
import { useAction } from '../useAction.ts';
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
  const [layout, setLayout] = useState<Layout>(2);
  const [pageSize, setPageSize] = useState<PageSize>('letter');
  const [zone, setZone] = useState('');
  const [workspaceZone, setWorkspaceZone] = useState<string | null>(null);
  const [annotations, setAnnotations] = useState(true);
  const [tasks, setTasks] = useState(false);
  const [comments, setComments] = useState(false);
  const [titleProblem, setTitleProblem] = useState<string | null>(null);
  const action = useAction();
  const titleInput = useRef<HTMLInputElement>(null);
  const choice = usePhotoChoice(photoIds, filters, action.setError);

  useEffect(() => {
    let live = true;
    reportsApi.workspaceTimeZone().then((z) => {
      if (!live) return;
      setWorkspaceZone(z);
      setZone((current) => current || z);
    }, () => undefined); // Then "where each photo was taken" stays chosen: still a good report.
    return () => {
      live = false;
    };
  }, [photoIds]);
  const groups = useMemo(() => zoneGroups(['UTC', ...(workspaceZone ? [workspaceZone] : [])]), [workspaceZone]);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    action.clear();
    if (!title.trim()) {
      setTitleProblem('Give the report a title.');
      titleInput.current?.focus();
      return;
    }
    if (choice.backwards) return;
    const input: ReportInput = {
      ...photoSelection(choice),
      title: title.trim(),
      options: { layout, page_size: pageSize, include_annotations: annotations, include_tasks: tasks, include_comments: comments, ...(zone ? { time_zone: zone } : {}) },
    };
    await action.run(async () => onCreated(await reportsApi.create(project.id, input)));
  }

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

      <PhotoChoiceFields id={id} projectId={project.id} choice={choice} labels={{ from: 'From', to: 'To' }} missingTag={filters.tag} />

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
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Asking for the report…' : 'Make the report'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
