import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiProblem, type Page } from '../api.ts';
import { mediaApi, photoItem, videoItem, type MediaItem, type MediaQuery } from './mediaApi.ts';

/** The filters as the address holds them: a tag id, and days (YYYY-MM-DD, the viewer's local days, both included). */
export interface TimelineFilters {
  tag: string | null;
  from: string | null;
  to: string | null;
}

const PAGE_SIZE = 60;
/** Waits between two looks at pending items: quick at first (a photo takes seconds), then rarer. */
const POLL_DELAYS_MS = [1000, 1500, 2500, 4000, 6000, 10_000, 15_000, 30_000];
/** At most this many pending items are read per look. */
const POLL_BATCH = 20;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The start of a local day, or of the day after it, as an RFC 3339 instant; undefined for anything but a date. */
export function localDayStart(day: string | null, plusDays = 0): string | undefined {
  const m = day ? DAY.exec(day) : null;
  if (!m) return undefined;
  const at = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + plusDays);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The list parameters of the filters: `captured_after` the start of From, `captured_before` the end of To. */
export function queryOf(projectId: string, f: TimelineFilters): MediaQuery {
  return {
    project_id: projectId,
    tag_id: f.tag ?? undefined,
    captured_after: localDayStart(f.from),
    captured_before: localDayStart(f.to, 1),
  };
}

function matches(item: MediaItem, q: MediaQuery): boolean {
  if (q.tag_id && !item.tagIds.includes(q.tag_id)) return false;
  const at = new Date(item.capturedAt).getTime();
  if (q.captured_after && at < new Date(q.captured_after).getTime()) return false;
  if (q.captured_before && at >= new Date(q.captured_before).getTime()) return false;
  return true;
}

/** Newest first, as the lists sort (`captured_at` desc, then id desc). */
const newestFirst = (a: MediaItem, b: MediaItem) =>
  a.capturedAt === b.capturedAt ? (a.id < b.id ? 1 : -1) : (a.capturedAt < b.capturedAt ? 1 : -1);

interface Stream {
  kind: MediaItem['kind'];
  items: MediaItem[];
  cursor: string | null;
  hasMore: boolean;
}

async function fetchPage(kind: MediaItem['kind'], query: MediaQuery, cursor: string | null): Promise<Page<MediaItem>> {
  if (kind === 'photo') {
    const page = await mediaApi.photos({ ...query, cursor, limit: PAGE_SIZE });
    return { ...page, data: page.data.map(photoItem) };
  }
  const page = await mediaApi.videos({ ...query, cursor, limit: PAGE_SIZE });
  return { ...page, data: page.data.map(videoItem) };
}

export interface Timeline {
  items: MediaItem[];
  loading: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore(): void;
  reload(): void;
  /** Puts a just-uploaded item into the timeline at once (while it matches the filters), and watches it until processed. */
  addUploaded(item: MediaItem): void;
}

/**
 * The project's photos and videos, newest taken first: two keyset-paginated lists (GET /v1/photos
 * and GET /v1/videos, `sort=captured_at`) merged, each item shown only once every list that has
 * more has reached back to its time, so nothing older can still slot in above it. With a tag
 * chosen only photos are listed (videos carry no tags). Items still processing are read again,
 * with growing waits, until they are processed or failed.
 */
export function useTimeline(projectId: string, filters: TimelineFilters): Timeline {
  const query = useMemo(() => queryOf(projectId, filters), [projectId, filters.tag, filters.from, filters.to]);
  const [streams, setStreams] = useState<Stream[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [uploads, setUploads] = useState<MediaItem[]>([]);
  /** Newer versions of items (read while polling); null: deleted meanwhile. */
  const [updates, setUpdates] = useState<Map<string, MediaItem | null>>(new Map());
  const [generation, setGeneration] = useState(0);
  const current = useRef(0);

  useEffect(() => {
    const mine = ++current.current;
    const kinds: Array<MediaItem['kind']> = query.tag_id ? ['photo'] : ['photo', 'video'];
    setStreams([]);
    setLoading(true);
    setError(null);
    Promise.all(kinds.map((kind) => fetchPage(kind, query, null))).then(
      (pages) => {
        if (mine !== current.current) return;
        setStreams(pages.map((page, i) => ({ kind: kinds[i]!, items: page.data, cursor: page.next_cursor, hasMore: page.has_more && page.next_cursor !== null })));
        setLoading(false);
      },
      (err) => {
        if (mine !== current.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, [query, generation]);

  // Where the merged list may be shown down to: the latest "last item" of the lists with more.
  const boundary = useMemo(() => {
    let at: string | null = null;
    for (const s of streams) {
      const last = s.items[s.items.length - 1];
      if (s.hasMore && last && (at === null || last.capturedAt > at)) at = last.capturedAt;
    }
    return at;
  }, [streams]);

  const items = useMemo(() => {
    const byId = new Map<string, { item: MediaItem; always: boolean }>();
    for (const s of streams) for (const item of s.items) byId.set(item.id, { item, always: false });
    // This visit's uploads show wherever they fall, even below what is loaded yet.
    for (const item of uploads) byId.set(item.id, { item, always: true });
    const shown: MediaItem[] = [];
    for (const [id, entry] of byId) {
      const update = updates.get(id);
      if (update === null) continue;
      const item = update ?? entry.item;
      if (entry.always ? matches(item, query) : boundary === null || item.capturedAt >= boundary) shown.push(item);
    }
    return shown.sort(newestFirst);
  }, [streams, uploads, updates, boundary, query]);

  const loadMore = useCallback(() => {
    if (loading || error || boundary === null) return;
    const mine = current.current;
    // The lists that hold the boundary back: the others already reach further.
    const behind = streams.filter((s) => s.hasMore && s.items[s.items.length - 1]?.capturedAt === boundary);
    setLoading(true);
    Promise.all(behind.map((s) => fetchPage(s.kind, query, s.cursor))).then(
      (pages) => {
        if (mine !== current.current) return;
        setStreams((prev) => prev.map((s) => {
          const i = behind.findIndex((b) => b.kind === s.kind);
          const page = pages[i];
          return page ? { ...s, items: [...s.items, ...page.data], cursor: page.next_cursor, hasMore: page.has_more && page.next_cursor !== null } : s;
        }));
        setLoading(false);
      },
      (err) => {
        if (mine !== current.current) return;
        setError(err);
        setLoading(false);
      },
    );
  }, [loading, error, boundary, streams, query]);

  const pollAttempt = useRef(0);
  const addUploaded = useCallback((item: MediaItem) => {
    pollAttempt.current = 0;
    setUploads((prev) => [item, ...prev.filter((u) => u.id !== item.id)]);
  }, []);

  // While any shown item is pending: read the pending ones again after a wait that grows.
  const pending = items.filter((i) => i.status === 'pending');
  const pendingKey = pending.map((i) => i.id).join(',');
  const [pollRound, setPollRound] = useState(0);
  const pendingRef = useRef(pending);
  pendingRef.current = pending;
  useEffect(() => {
    if (!pendingKey) {
      pollAttempt.current = 0;
      return;
    }
    let live = true;
    const delay = POLL_DELAYS_MS[Math.min(pollAttempt.current, POLL_DELAYS_MS.length - 1)]!;
    const timer = setTimeout(async () => {
      pollAttempt.current++;
      const batch = pendingRef.current.slice(0, POLL_BATCH);
      const results = await Promise.allSettled(batch.map((i) => mediaApi.item(i.kind, i.id)));
      if (!live) return;
      const changed = new Map<string, MediaItem | null>();
      results.forEach((r, i) => {
        if (r.status === 'fulfilled' && r.value.status !== 'pending') changed.set(r.value.id, r.value);
        if (r.status === 'rejected' && r.reason instanceof ApiProblem && r.reason.status === 404) changed.set(batch[i]!.id, null);
        // Anything else (no connection, a 503): looked at again on the next round.
      });
      if (changed.size) setUpdates((prev) => new Map([...prev, ...changed]));
      setPollRound((n) => n + 1);
    }, delay);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [pendingKey, pollRound]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const hasMore = streams.some((s) => s.hasMore);
  return { items, loading, error, hasMore, loadMore, reload, addUploaded };
}
