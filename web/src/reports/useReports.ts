import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiProblem } from '../api.ts';
import { usePages } from '../usePages.ts';
import { isPending, reportsApi, type Report } from './reportsApi.ts';

/** Waits between two looks at reports still queued or processing: quick at first (a small report takes seconds), then rarer. */
const POLL_DELAYS_MS = [1000, 1000, 1500, 2500, 4000, 6000, 10_000, 15_000, 30_000];
/** At most this many unfinished reports are read per look. */
const POLL_BATCH = 20;

export interface ReportList {
  items: Report[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore(): void;
  reload(): void;
  /** Takes a report out of the list at once (deleted). */
  drop(id: string): void;
}

/**
 * A project's reports, newest first, a page at a time; those queued or processing are read again
 * (GET /v1/reports/{id}) after growing waits until they are finished or failed — and no longer once
 * none is, or once the page is left (the timer dies with the component). `onChange` hears each
 * report whose status moved, for the page to say so.
 */
export function useReports(projectId: string, onChange: (report: Report) => void): ReportList {
  const [generation, setGeneration] = useState(0);
  const pages = usePages(`${projectId}:${generation}`, (cursor) => reportsApi.list(projectId, cursor));
  /** Newer versions of listed reports (read while polling); null: gone (deleted). */
  const [updates, setUpdates] = useState<Map<string, Report | null>>(new Map());
  const reload = useCallback(() => {
    setUpdates(new Map());
    setGeneration((g) => g + 1);
  }, []);
  const drop = useCallback((id: string) => setUpdates((prev) => new Map([...prev, [id, null]])), []);

  const items = useMemo(() => pages.items.flatMap((r) => {
    const update = updates.get(r.id);
    return update === null ? [] : [update ?? r];
  }), [pages.items, updates]);

  const pending = items.filter(isPending);
  const pendingKey = pending.map((r) => r.id).join(',');
  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const attempt = useRef(0);
  const [round, setRound] = useState(0);
  const lastKey = useRef('');
  useEffect(() => {
    if (pendingKey !== lastKey.current) attempt.current = 0; // something new to watch: look soon
    lastKey.current = pendingKey;
    if (!pendingKey) return;
    let live = true;
    const delay = POLL_DELAYS_MS[Math.min(attempt.current, POLL_DELAYS_MS.length - 1)]!;
    const timer = setTimeout(async () => {
      attempt.current++;
      const batch = pendingRef.current.slice(0, POLL_BATCH);
      const results = await Promise.allSettled(batch.map((r) => reportsApi.get(r.id)));
      if (!live) return;
      const changed = new Map<string, Report | null>();
      results.forEach((result, i) => {
        const before = batch[i]!;
        if (result.status === 'fulfilled' && result.value.status !== before.status) {
          changed.set(before.id, result.value);
          onChangeRef.current(result.value);
        }
        if (result.status === 'rejected' && result.reason instanceof ApiProblem && result.reason.status === 404) changed.set(before.id, null);
        // Anything else (no connection, a 503): looked at again next round.
      });
      if (changed.size) setUpdates((prev) => new Map([...prev, ...changed]));
      setRound((n) => n + 1);
    }, delay);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [pendingKey, round]);

  return { items, loading: pages.loading, error: pages.error, hasMore: pages.hasMore, loadMore: pages.loadMore, reload, drop };
}
