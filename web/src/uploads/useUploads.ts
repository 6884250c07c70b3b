import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiProblem } from '../api.ts';
import { newIdempotencyKey, UploadRefused, type UploadOptions } from './postFile.ts';

/** At most this many files travel at once: enough to fill the line, few enough that each shows progress and a phone's connection is not split twenty ways. */
export const PARALLEL_UPLOADS = 3;

export interface UploadRow {
  id: number;
  file: File;
  status: 'waiting' | 'uploading' | 'done' | 'failed' | 'cancelled';
  sent: number;
  total: number;
  error: unknown;
  /** Kept for a retry after a lost answer, so the server replays an object it already made instead of making a second one. */
  idempotencyKey: string;
}

export interface Uploads {
  rows: UploadRow[];
  add(files: File[]): void;
  cancel(id: number): void;
  retry(id: number): void;
  clearFinished(): void;
}

let nextRowId = 1;

/** Sends one file (postFile to the right endpoint) and resolves with what the API made of it. */
export type SendFile<T> = (file: File, options: UploadOptions) => Promise<T>;

/**
 * A queue of uploads: files wait, PARALLEL_UPLOADS of them upload at a time with their progress
 * (each sent by `send`), and each ends done (the item goes to `onUploaded`), failed (the API's
 * words) or cancelled; failed and cancelled ones can be retried.
 */
export function useUploads<T>(send: SendFile<T>, onUploaded: (item: T) => void): Uploads {
  const [rows, setRows] = useState<UploadRow[]>([]);
  const running = useRef(new Map<number, AbortController>());
  const uploaded = useRef(onUploaded);
  uploaded.current = onUploaded;
  const sender = useRef(send);
  sender.current = send;

  const patch = useCallback((id: number, change: Partial<UploadRow>) => {
    setRows((prev) => prev.map((r) => (r.id === id ? { ...r, ...change } : r)));
  }, []);

  const start = useCallback((row: UploadRow) => {
    const controller = new AbortController();
    running.current.set(row.id, controller);
    patch(row.id, { status: 'uploading', sent: 0, error: null });
    const attempt = (idempotencyKey: string, mayRenewKey: boolean): Promise<T> => sender.current(row.file, {
      idempotencyKey,
      signal: controller.signal,
      onProgress: (sent, total) => patch(row.id, { sent, total }),
    }).catch((err: unknown) => {
      // A stored refusal replayed for a retry's key is the server's answer to the earlier, cut-off
      // body, not to this file: send it once more under a new key.
      if (mayRenewKey && err instanceof UploadRefused && err.replayed) {
        const fresh = newIdempotencyKey();
        patch(row.id, { idempotencyKey: fresh, sent: 0 });
        return attempt(fresh, false);
      }
      throw err;
    });
    attempt(row.idempotencyKey, true).then(
      (item) => {
        patch(row.id, { status: 'done', sent: row.file.size, total: row.file.size });
        uploaded.current(item);
      },
      (err: unknown) => {
        const cancelled = err instanceof DOMException && err.name === 'AbortError';
        patch(row.id, cancelled ? { status: 'cancelled' } : { status: 'failed', error: err });
      },
    ).finally(() => running.current.delete(row.id));
  }, [patch]);

  // Start waiting files while fewer than PARALLEL_UPLOADS are on their way.
  useEffect(() => {
    let free = PARALLEL_UPLOADS - running.current.size;
    for (const row of rows) {
      if (free <= 0) break;
      if (row.status === 'waiting' && !running.current.has(row.id)) {
        start(row);
        free--;
      }
    }
  }, [rows, start]);

  // Leaving the page stops what is still on its way (the server keeps nothing of a cut-off upload).
  useEffect(() => () => {
    for (const controller of running.current.values()) controller.abort();
  }, []);

  const add = useCallback((files: File[]) => {
    const added = files.map((file): UploadRow => ({
      id: nextRowId++, file, status: 'waiting', sent: 0, total: file.size, error: null,
      idempotencyKey: newIdempotencyKey(),
    }));
    setRows((prev) => [...prev, ...added]);
  }, []);

  const cancel = useCallback((id: number) => {
    const controller = running.current.get(id);
    if (controller) controller.abort();
    else setRows((prev) => prev.map((r) => (r.id === id && r.status === 'waiting' ? { ...r, status: 'cancelled' } : r)));
  }, []);

  const retry = useCallback((id: number) => {
    setRows((prev) => prev.map((r) => {
      if (r.id !== id || (r.status !== 'failed' && r.status !== 'cancelled')) return r;
      // Only a lost answer keeps its key: the server may have the file already. After a refusal
      // or a cancel, the same key would only replay the old answer.
      const lostAnswer = r.error instanceof ApiProblem && r.error.status === 0;
      return { ...r, status: 'waiting', sent: 0, error: null, idempotencyKey: lostAnswer ? r.idempotencyKey : newIdempotencyKey() };
    }));
  }, []);

  const clearFinished = useCallback(() => {
    setRows((prev) => prev.filter((r) => r.status === 'waiting' || r.status === 'uploading'));
  }, []);

  return { rows, add, cancel, retry, clearFinished };
}
