import { useEffect, useState, type ChangeEvent, type DragEvent } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { formatSize } from './postFile.ts';
import type { UploadRow, Uploads } from './useUploads.ts';
import './uploads.css';

const STATUS_WORDS: Record<UploadRow['status'], string> = {
  waiting: 'Waiting',
  uploading: 'Uploading',
  done: 'Uploaded',
  failed: 'Not uploaded',
  cancelled: 'Cancelled',
};

/** "2 of 5 uploaded…" while busy, then "5 uploaded." or "4 uploaded, 1 not uploaded." — one line, announced politely. */
function summary(rows: UploadRow[]): string {
  const count = (s: UploadRow['status']) => rows.filter((r) => r.status === s).length;
  const done = count('done');
  if (count('waiting') + count('uploading')) return `${done} of ${rows.length} uploaded…`;
  const parts = [`${done} uploaded`];
  if (count('failed')) parts.push(`${count('failed')} not uploaded`);
  if (count('cancelled')) parts.push(`${count('cancelled')} cancelled`);
  return `${parts.join(', ')}.`;
}

export interface FileUploaderWords {
  /** The drop zone's name ("Upload photos and videos"). */
  zone: string;
  /** Before the buttons ("Drop photos and videos here, or"). */
  hint: string;
  /** The file button ("Choose photos and videos"). */
  choose: string;
  /** The camera button, shown on phones only; none when absent. */
  camera?: string;
  /** The file input's `accept`; anything when absent (the API says what it refuses). */
  accept?: string;
  /** What a file without a name is called in its row. */
  unnamed(file: File): string;
}

/**
 * A drop zone with a file button (and on a phone a camera button), and below it a row per file with
 * its progress, Cancel while it travels, and the API's refusal in words with Retry. What is sent
 * where is `uploads`' business (useUploads).
 */
export function FileUploader({ uploads, words }: { uploads: Uploads; words: FileUploaderWords }) {
  const [dragging, setDragging] = useState(false);

  const picked = (e: ChangeEvent<HTMLInputElement>) => {
    const files = Array.from(e.target.files ?? []);
    e.target.value = ''; // the same file can be chosen again
    if (files.length) uploads.add(files);
  };
  const dragOver = (e: DragEvent) => {
    if (!e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const dragLeave = (e: DragEvent) => {
    if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
  };
  const drop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const files = Array.from(e.dataTransfer.files);
    if (files.length) uploads.add(files);
  };
  // A file dropped just beside the zone would make the browser leave the page to show it (and
  // stop the uploads): outside the zone a drop of files does nothing.
  useEffect(() => {
    const ignore = (e: globalThis.DragEvent) => {
      // The zone's own handlers ran first (React listens at the root) and prevented the default.
      if (!e.defaultPrevented && e.dataTransfer?.types.includes('Files')) {
        e.preventDefault();
        e.dataTransfer.dropEffect = 'none';
      }
    };
    window.addEventListener('dragover', ignore);
    window.addEventListener('drop', ignore);
    return () => {
      window.removeEventListener('dragover', ignore);
      window.removeEventListener('drop', ignore);
    };
  }, []);
  const finished = uploads.rows.some((r) => r.status === 'done' || r.status === 'failed' || r.status === 'cancelled');
  const busy = uploads.rows.some((r) => r.status === 'waiting' || r.status === 'uploading');

  return (
    <div className="uploader">
      <div
        role="group" aria-label={words.zone} className={dragging ? 'drop-zone dragging' : 'drop-zone'}
        onDragEnter={dragOver} onDragOver={dragOver} onDragLeave={dragLeave} onDrop={drop}
      >
        <p className="drop-hint">{words.hint}</p>
        <div className="upload-actions">
          <label className="file-button">
            {words.choose}
            <input className="visually-hidden" type="file" accept={words.accept} multiple onChange={picked} />
          </label>
          {words.camera
            ? (
              <label className="file-button camera-button">
                {words.camera}
                <input className="visually-hidden" type="file" accept={words.accept} capture="environment" onChange={picked} />
              </label>
            )
            : null}
        </div>
      </div>
      <div className="upload-summary">
        {/* Always in the page, so that screen readers announce its first words too. */}
        <p role="status">{uploads.rows.length ? summary(uploads.rows) : ''}{busy ? ' Stay on this page until they are done.' : ''}</p>
        {finished && !busy ? <button type="button" className="secondary" onClick={uploads.clearFinished}>Clear list</button> : null}
      </div>
      {uploads.rows.length
        ? (
          <ul className="upload-list" aria-label="Uploads">
            {uploads.rows.map((row) => <UploadRowView key={row.id} row={row} name={row.file.name || words.unnamed(row.file)} onCancel={uploads.cancel} onRetry={uploads.retry} />)}
          </ul>
        )
        : null}
    </div>
  );
}

function UploadRowView({ row, name, onCancel, onRetry }: { row: UploadRow; name: string; onCancel(id: number): void; onRetry(id: number): void }) {
  const percent = row.total ? Math.round((row.sent / row.total) * 100) : 0;
  return (
    <li className={`upload-row ${row.status}`}>
      <div className="upload-name">
        <strong>{name}</strong>
        <span className="muted"> {formatSize(row.file.size)} · {STATUS_WORDS[row.status]}{row.status === 'uploading' ? ` ${percent}%` : ''}</span>
      </div>
      {row.status === 'failed' || row.status === 'cancelled'
        ? <span />
        : <progress aria-label={`Upload of ${name}`} max={row.total || 1} value={row.status === 'done' ? row.total || 1 : row.sent} />}
      <div className="upload-buttons">
        {row.status === 'waiting' || row.status === 'uploading'
          ? <button type="button" className="secondary" onClick={() => onCancel(row.id)}>Cancel<span className="visually-hidden"> {name}</span></button>
          : null}
        {row.status === 'failed' || row.status === 'cancelled'
          ? <button type="button" className="secondary" onClick={() => onRetry(row.id)}>Retry<span className="visually-hidden"> {name}</span></button>
          : null}
      </div>
      {row.status === 'failed' ? <ErrorMessage error={row.error} /> : null}
    </li>
  );
}
