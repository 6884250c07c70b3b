import { useCallback, useId, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { useWhoName } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { chosenPhotos, filtersFrom } from '../photos/TimelineSelection.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { ReportForm } from './ReportForm.tsx';
import { ReportRow, statusWords } from './ReportRow.tsx';
import { mayDeleteReport, type Report } from './reportsApi.ts';
import { useReports } from './useReports.ts';
import './reports.css';

/** /projects/{id}/reports: the list; /projects/{id}/reports/new: the form (photos chosen in the timeline, or `?tag&from&to`). */
export default function ProjectReports({ project, session, rest }: ProjectSectionProps) {
  const [location, navigate] = useLocation();
  const search = useSearch();
  const [notice, setNotice] = useState<string | null>(null);
  const listPath = `/projects/${project.id}/reports`;
  const photoIds = useMemo(chosenPhotos, [location]);
  const filters = useMemo(() => filtersFrom(search), [search]);

  if (rest === 'new') {
    return (
      <ReportForm
        project={project} photoIds={photoIds} filters={filters}
        onCreated={(report) => {
          setNotice(`The report “${report.title}” is queued: it will be ready in a moment.`);
          navigate(listPath);
        }}
        onCancel={() => navigate(photoIds || search ? `/projects/${project.id}${search ? `?${search}` : ''}` : listPath)}
      />
    );
  }
  if (rest) {
    return <><h2>Page not found</h2><p>Reports have no page “{rest}”.</p></>;
  }
  return <ReportList project={project} session={session} notice={notice} setNotice={setNotice} onNew={() => navigate(`${listPath}/new`)} />;
}

/**
 * The project's reports, newest first, 20 a page: each with its status, live while it is being
 * made (useReports polls; the status line says when one finishes or fails), Open and Download,
 * and Delete where the role allows it.
 */
function ReportList({ project, session, notice, setNotice, onNew }: Omit<ProjectSectionProps, 'rest'> & {
  notice: string | null;
  setNotice(notice: string | null): void;
  onNew(): void;
}) {
  const id = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const onChange = useCallback((r: Report) => {
    if (r.status === 'finished' || r.status === 'failed') setNotice(`The report “${r.title}”: ${statusWords(r)}.`);
  }, [setNotice]);
  const reports = useReports(project.id, onChange);
  const who = useWhoName(session.user.id);

  return (
    <section aria-labelledby={`${id}-heading`} className="reports">
      <div className="page-heading">
        <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>Reports</h2>
        <button type="button" onClick={() => { setNotice(null); onNew(); }}>New report</button>
      </div>
      <p className="hint">A report is a PDF of photos, by day. Choose the photos in the timeline (Select), or by days and tags with New report.</p>
      <div role="status" className="report-notice">{notice}</div>
      {reports.error
        ? (
          <>
            <ErrorMessage error={reports.error} />
            <button type="button" onClick={reports.reload}>Try again</button>
          </>
        )
        : null}
      {!reports.loading && !reports.error && reports.items.length === 0 ? <p>No reports yet.</p> : null}
      {reports.items.length > 0
        ? (
          <ul className="report-list" aria-label="Reports">
            {reports.items.map((report) => (
              <ReportRow
                key={report.id} report={report} who={who(report.requested_by)}
                mayDelete={mayDeleteReport(session.user.role, session.user.id, report)}
                onDeleted={(gone) => {
                  reports.drop(gone.id);
                  setNotice(`The report “${gone.title}” is deleted.`);
                  heading.current?.focus(); // its row, and the focus in it, are gone
                }}
              />
            ))}
          </ul>
        )
        : null}
      {reports.loading ? <p role="status">Loading reports…</p> : null}
      {reports.hasMore && !reports.loading && !reports.error
        ? <p><button type="button" className="secondary" onClick={reports.loadMore}>Load more reports</button></p>
        : null}
    </section>
  );
}
