import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiProblem, type Page } from './api.ts';
import { usePages } from './usePages.ts';

/** Waits between two looks at items still being made: quick at first (a small one takes seconds), then rarer. */
const POLL_DELAYS_MS = [1000, 1000, 1500, 2500, 4000, 6000, 10_000, 15_000, 30_000];
/** At most this many unfinished items are read per look. */
const POLL_BATCH = 20;

export interface PolledList<T> {
  items: T[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore(): void;
  reload(): void;
  /** Takes an item out of the list at once (deleted). */
  drop(id: string): void;
  /** Puts a newer version of a listed item in its place (changed by the page itself). */
  replace(item: T): void;
}

/**
 * A paged list of things made in the background (reports, exports), newest first: those still
 * pending are read again (`fetchOne`) after growing waits until they are not — and no longer once
 * none is, or once the page is left (the timer dies with the component). `onChange` hears each
 * item whose status moved, for the page to say so. A 404 drops the item (deleted meanwhile);
 * any other failure (no connection, a 503) is looked at again next round.
 */
export function usePolledPages<T extends { id: string; status: string }>(
  key: string,
  fetchPage: (cursor: string | null) => Promise<Page<T>>,
  fetchOne: (id: string) => Promise<T>,
  isPending: (item: T) => boolean,
  onChange: (item: T) => void,
): PolledList<T> {
  const [generation, setGeneration] = useState(0);
  const pages = usePages(`${key}:${generation}`, fetchPage);
  /** Newer versions of listed items (read while polling); null: gone (deleted). */
  const [updates, setUpdates] = useState<Map<string, T | null>>(new Map());
  const reload = useCallback(() => {
    setUpdates(new Map());
    setGeneration((g) => g + 1);
  }, []);
  const drop = useCallback((id: string) => setUpdates((prev) => new Map([...prev, [id, null]])), []);
  const replace = useCallback((item: T) => setUpdates((prev) => new Map([...prev, [item.id, item]])), []);

  const items = useMemo(() => pages.items.flatMap((r) => {
    const update = updates.get(r.id);
    return update === null ? [] : [update ?? r];
  }), [pages.items, updates]);

  const pending = items.filter(isPending);
  const pendingKey = pending.map((r) => r.id).join(',');
  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  const fetchOneRef = useRef(fetchOne);
  fetchOneRef.current = fetchOne;
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
      const results = await Promise.allSettled(batch.map((r) => fetchOneRef.current(r.id)));
      if (!live) return;
      const changed = new Map<string, T | null>();
      results.forEach((result, i) => {
        const before = batch[i]!;
        if (result.status === 'fulfilled' && result.value.status !== before.status) {
          changed.set(before.id, result.value);
          onChangeRef.current(result.value);
        }
        if (result.status === 'rejected' && result.reason instanceof ApiProblem && result.reason.status === 404) changed.set(before.id, null);
      });
      if (changed.size) setUpdates((prev) => new Map([...prev, ...changed]));
      setRound((n) => n + 1);
    }, delay);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [pendingKey, round]);

  return { items, loading: pages.loading, error: pages.error, hasMore: pages.hasMore, loadMore: pages.loadMore, reload, drop, replace };
}
