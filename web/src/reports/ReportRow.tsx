import { useId, useState } from 'react';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { ShareButton } from '../share/ShareButton.tsx';
import { useAction } from '../useAction.ts';
import { reportsApi, type Report } from './reportsApi.ts';

const whenFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The status in words, as the row shows it and the page announces it. */
export function statusWords(r: Report): string {
  switch (r.status) {
    case 'queued': return 'Queued: waiting to be made';
    case 'processing': return 'Processing: the PDF is being made';
    case 'finished': return 'Finished';
    case 'failed': return `Failed: ${r.error ?? 'no reason was given'}`;
  }
}

function sizeWords(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What is in it: once finished, photos, pages and size; before, what was asked for. */
function contentWords(r: Report): string {
  if (r.status === 'finished' && r.photo_count !== null) {
    return [plural(r.photo_count, 'photo', 'photos'), r.page_count === null ? null : plural(r.page_count, 'page', 'pages'), r.byte_size === null ? null : sizeWords(r.byte_size)]
      .filter(Boolean).join(' · ');
  }
  const s = r.selection;
  if (s.photo_ids) return `${plural(s.photo_ids.length, 'photo', 'photos')} chosen`;
  return s.captured_after || s.captured_before || s.tag_ids ? 'Photos from a filter' : 'Every photo of the project';
}

/**
 * One report in the list: title, status in words (the failure's reason too), what is in it, who
 * asked and when; Open (the PDF in a new tab, through its signed URL) and Download (the download
 * endpoint) and Share (a public link, ShareDialog) once finished; Delete after a confirmation, only
 * where the role allows it.
 */
export function ReportRow({ report, who, mayDelete, onDeleted }: { report: Report; who: string; mayDelete: boolean; onDeleted(report: Report): void }) {
  const [confirming, setConfirming] = useState(false);
  const action = useAction();
  const id = useId();
  const named = <span className="visually-hidden"> “{report.title}”</span>;

  const remove = () => action.run(async () => {
    await reportsApi.remove(report.id);
    setConfirming(false);
    onDeleted(report);
  }, (err) => {
    setConfirming(false);
    action.setError(err);
  });

  return (
    <li className={`report report-${report.status}`} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{report.title}</h3>
      <p className="report-status">{statusWords(report)}</p>
      <p className="muted">
        {contentWords(report)} · Requested by {who}, <time dateTime={report.created_at}>{whenFormat.format(new Date(report.created_at))}</time>
      </p>
      <div className="form-actions">
        {report.status === 'finished' && report.url
          ? (
            <>
              <a className="button" href={report.url} target="_blank" rel="noopener">Open{named}<span className="visually-hidden"> (opens in a new tab)</span></a>
              <a className="button secondary" href={reportsApi.downloadHref(report.id)} download>Download{named}</a>
              <ShareButton projectId={report.project_id} content={{ report_id: report.id }} what={`the report “${report.title}”`} className="secondary">Share{named}</ShareButton>
            </>
          )
          : null}
        {mayDelete ? <button type="button" className="secondary" onClick={() => setConfirming(true)}>Delete{named}</button> : null}
      </div>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      {mayDelete
        ? (
          <ConfirmDialog
            open={confirming} title={`Delete the report “${report.title}”?`} confirmLabel="Delete report" danger busy={action.busy}
            onConfirm={remove} onCancel={() => setConfirming(false)}
          >
            <p>The PDF goes with it: its links stop working, for everyone who has them.</p>
          </ConfirmDialog>
        )
        : null}
    </li>
  );
}
