import { useId, type FormEvent } from 'react';
import type { Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { PhotoChoiceFields, photoSelection, usePhotoChoice } from '../photos/PhotoChoice.tsx';
import type { TimelineFilters } from '../photos/useTimeline.ts';
import { useAction } from '../useAction.ts';
import { exportsApi, type ExportInput, type PhotoExport } from './exportsApi.ts';

/**
 * "Export photos (ZIP)": which photos — those chosen in the timeline, or From / To days and tags
 * (the timeline's filter filled in when coming from it; nothing for every photo) — then `POST
 * /v1/projects/{id}/exports`. The API's refusals are shown in its words and nothing is lost.
 */
export function ExportForm({ project, photoIds, filters, onCreated, onCancel }: {
  project: Project;
  /** Photos chosen in the timeline; null: a filter instead. */
  photoIds: string[] | null;
  filters: TimelineFilters;
  onCreated(created: PhotoExport): void;
  onCancel(): void;
}) {
  const id = useId();
  const action = useAction();
  const choice = usePhotoChoice(photoIds, filters, action.setError);

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    action.clear();
    if (choice.backwards) return;
    const input: ExportInput = photoSelection(choice);
    await action.run(async () => onCreated(await exportsApi.create(project.id, input)));
  }

  return (
    <form className="report-form" aria-labelledby={`${id}-heading`} onSubmit={submit} noValidate>
      <h2 id={`${id}-heading`}>Export photos (ZIP)</h2>
      <p className="hint">One ZIP of the original files, named by when they were taken, with a spreadsheet (CSV) and a JSON file describing each photo.</p>
      <PhotoChoiceFields id={id} projectId={project.id} choice={choice} labels={{ from: 'Taken from', to: 'Taken until' }} />
      <p className="hint">Only processed photos go in; videos are not exported.</p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Starting the export…' : 'Start export'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
