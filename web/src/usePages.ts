import { useCallback, useEffect, useRef, useState } from 'react';
import type { Page } from './api.ts';

export interface Pages<T> {
  items: T[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore(): void;
}

/**
 * A keyset-paginated list: the first page whenever `key` changes (a new search), then the next
 * page on loadMore() with the previous page's `next_cursor`. Answers to an older key are dropped.
 */
export function usePages<T>(key: string, fetchPage: (cursor: string | null) => Promise<Page<T>>): Pages<T> {
  const [items, setItems] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [hasMore, setHasMore] = useState(false);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const load = useCallback((from: string | null, replace: boolean) => {
    const mine = ++generation.current;
    setLoading(true);
    setError(null);
    fetchRef.current(from).then(
      (page) => {
        if (mine !== generation.current) return;
        setItems((prev) => (replace ? page.data : [...prev, ...page.data]));
        setCursor(page.next_cursor);
        setHasMore(page.has_more && page.next_cursor !== null);
        setLoading(false);
      },
      (err) => {
        if (mine !== generation.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, []);

  useEffect(() => {
    setItems([]);
    setHasMore(false);
    load(null, true);
  }, [key, load]);

  const loadMore = useCallback(() => {
    if (!loading && hasMore) load(cursor, false);
  }, [loading, hasMore, cursor, load]);

  return { items, loading, error, hasMore, loadMore };
}

/** Calls `onVisible` when the returned element scrolls into view (infinite scroll next to a button). */
export function useWhenVisible<E extends Element>(onVisible: () => void) {
  const ref = useRef<E>(null);
  const callback = useRef(onVisible);
  callback.current = onVisible;
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) callback.current();
    }, { rootMargin: '200px' });
    observer.observe(el);
    return () => observer.disconnect();
  });
  return ref;
}
