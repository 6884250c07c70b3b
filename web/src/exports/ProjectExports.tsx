import { useCallback, useId, useMemo, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useWhoName } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { chosenPhotos, filtersFrom } from '../photos/TimelineSelection.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { usePolledPages } from '../usePolledPages.ts';
import { ExportForm } from './ExportForm.tsx';
import { ExportRow, statusWords } from './ExportRow.tsx';
import { exportsApi, isPending, mayExport, type PhotoExport } from './exportsApi.ts';
import '../reports/reports.css';

/** /projects/{id}/exports: the list; /projects/{id}/exports/new: the form (photos chosen in the timeline, or `?tag&from&to`). */
export default function ProjectExports({ project, session, rest }: ProjectSectionProps) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const [notice, setNotice] = useState<string | null>(null);
  const listPath = `/projects/${project.id}/exports`;
  const photoIds = useMemo(chosenPhotos, [location]);
  const filters = useMemo(() => filtersFrom(search), [search]);
  const allowed = mayExport(session.user.role);

  if (rest === 'new' && allowed) {
    return (
      <ExportForm
        project={project} photoIds={photoIds} filters={filters}
        onCreated={(created) => {
          setNotice(`The export “${created.file_name}” is queued: the ZIP will be ready in a moment.`);
          navigate(listPath);
        }}
        onCancel={() => navigate(photoIds || search ? `/projects/${project.id}${search ? `?${search}` : ''}` : listPath)}
      />
    );
  }
  if (rest === 'new') {
    return <><h2>Export photos (ZIP)</h2><p>Your role ({session.user.role}) may not export photos. Ask an admin, a manager or a standard user of the workspace.</p></>;
  }
  if (rest) return <><h2>Page not found</h2><p>Exports have no page “{rest}”.</p></>;
  return <ExportList project={project} session={session} notice={notice} setNotice={setNotice} onNew={allowed ? () => navigate(`${listPath}/new`) : null} />;
}

/**
 * The project's exports, newest first, 20 a page: each with its status, live while the ZIP is
 * being written (polled with growing waits until finished or failed, and no longer once the
 * section is left), and "Download ZIP" once finished.
 */
function ExportList({ project, session, notice, setNotice, onNew }: Omit<ProjectSectionProps, 'rest'> & {
  notice: string | null;
  setNotice(notice: string | null): void;
  /** null: the role may not export. */
  onNew: (() => void) | null;
}) {
  const id = useId();
  const onChange = useCallback((e: PhotoExport) => {
    if (e.status === 'finished' || e.status === 'failed') setNotice(`The export “${e.file_name}”: ${statusWords(e)}.`);
  }, [setNotice]);
  const exports = usePolledPages(`exports:${project.id}`, (cursor) => exportsApi.list(project.id, cursor), exportsApi.get, isPending, onChange);
  const who = useWhoName(session.user.id);

  return (
    <section aria-labelledby={`${id}-heading`} className="reports">
      <div className="page-heading">
        <h2 id={`${id}-heading`}>Exports</h2>
        {onNew ? <button type="button" onClick={() => { setNotice(null); onNew(); }}>Export photos (ZIP)</button> : null}
      </div>
      <p className="hint">
        {onNew
          ? 'A ZIP of the original photos, for handing over or archiving. Choose photos in the timeline (Select), or by days and tags here.'
          : 'ZIPs of the original photos that others asked for. Your role may download them, not make new ones.'}
      </p>
      <div role="status" className="report-notice">{notice}</div>
      {exports.error
        ? (
          <>
            <ErrorMessage error={exports.error} />
            <button type="button" onClick={exports.reload}>Try again</button>
          </>
        )
        : null}
      {!exports.loading && !exports.error && exports.items.length === 0 ? <p>No exports yet.</p> : null}
      {exports.items.length > 0
        ? <ul className="report-list" aria-label="Exports">{exports.items.map((e) => <ExportRow key={e.id} item={e} who={who(e.requested_by)} />)}</ul>
        : null}
      {exports.loading ? <p role="status">Loading exports…</p> : null}
      {exports.hasMore && !exports.loading && !exports.error
        ? <p><button type="button" className="secondary" onClick={exports.loadMore}>Load more exports</button></p>
        : null}
    </section>
  );
}
