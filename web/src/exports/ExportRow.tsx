import { useId } from 'react';
import { exportsApi, type PhotoExport } from './exportsApi.ts';

const whenFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The status in words, as the row shows it and the page announces it. */
export function statusWords(e: PhotoExport): string {
  switch (e.status) {
    case 'queued': return 'Queued: waiting to start';
    case 'processing': return 'Processing: the ZIP is being written';
    case 'finished': return 'Finished';
    case 'failed': return `Failed: ${e.error ?? 'no reason was given'}`;
  }
}

export function sizeWords(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** What is in it: once finished, photos and size; before, what was asked for. */
function contentWords(e: PhotoExport): string {
  if (e.status === 'finished' && e.photo_count !== null) {
    return [plural(e.photo_count, 'photo', 'photos'), e.byte_size === null ? null : sizeWords(e.byte_size)].filter(Boolean).join(' · ');
  }
  const s = e.selection;
  if (s.photo_ids) return `${plural(s.photo_ids.length, 'photo', 'photos')} chosen`;
  return s.captured_after || s.captured_before || s.tag_ids ? 'Photos from a filter' : 'Every photo of the project';
}

/** One export in the list: its file name, status in words (a failure's reason too), what is in it, who asked and when; "Download ZIP" once finished. */
export function ExportRow({ item, who }: { item: PhotoExport; who: string }) {
  const id = useId();
  return (
    <li className={`report report-${item.status}`} aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{item.file_name}</h3>
      <p className="report-status">
        {statusWords(item)}
        {item.status === 'queued' || item.status === 'processing' ? <progress className="export-progress" aria-label={`${item.file_name}: ${statusWords(item)}`} /> : null}
      </p>
      <p className="muted">
        {contentWords(item)} · Requested by {who}, <time dateTime={item.created_at}>{whenFormat.format(new Date(item.created_at))}</time>
      </p>
      {item.status === 'finished'
        ? (
          <div className="form-actions">
            <a className="button" href={exportsApi.downloadHref(item.id)} download>
              Download ZIP<span className="visually-hidden"> “{item.file_name}”</span>
            </a>
            {item.expires_at
              ? <span className="muted">Kept until <time dateTime={item.expires_at}>{whenFormat.format(new Date(item.expires_at))}</time></span>
              : null}
          </div>
        )
        : null}
    </li>
  );
}
