/**
 * The caller's notifications (src/features/notifications): `GET /v1/notifications` (newest first,
 * `unread=true`), `POST /v1/notifications/{id}/read`, `POST /v1/notifications/read-all`; and the
 * unread count the header shows, shared by everything that changes it.
 */
import { useSyncExternalStore } from 'react';
import { request, type Page } from '../api.ts';

export interface Notification {
  id: string;
  user_id: string;
  kind: 'mention' | 'task_assigned' | 'task_comment';
  actor_id: string | null;
  project_id: string | null;
  subject: { type: 'project' | 'photo' | 'task' | 'comment'; id: string };
  comment_id: string | null;
  read_at: string | null;
  created_at: string;
}

export const notificationsApi = {
  list: (query: { cursor?: string | null; limit?: number; unread?: boolean }) =>
    request<Page<Notification>>('GET', '/v1/notifications', { query: { ...query, unread: query.unread ? 'true' : undefined } }),
  markRead: (id: string) => request<Notification>('POST', `/v1/notifications/${encodeURIComponent(id)}/read`),
  markAllRead: () => request<{ marked: number }>('POST', '/v1/notifications/read-all'),
};

/** The API has no count: a page of up to this many unread ones is counted, and more shows as "100+". */
export const UNREAD_PAGE = 100;

export interface Unread {
  count: number;
  /** More than `count` (a full page came back with more after it). */
  more: boolean;
}

let unread: Unread | null = null;
const listeners = new Set<() => void>();
let asked = 0;

function set(next: Unread | null) {
  unread = next;
  for (const l of listeners) l();
}

/**
 * Asks the API for the unread count now. Only the latest question's answer counts (a poll that was
 * on its way when something was marked read must not bring the old count back); a failure keeps the
 * last count: the badge is a hint, the inbox says what is wrong.
 */
export async function refreshUnread(): Promise<void> {
  const mine = ++asked;
  try {
    const page = await notificationsApi.list({ unread: true, limit: UNREAD_PAGE });
    if (mine === asked) set({ count: page.data.length, more: page.has_more });
  } catch {
    // Kept as it was.
  }
}

/** Forget the count (signed out: the next person must not see it). */
export function forgetUnread(): void {
  asked++;
  set(null);
}

/** The unread count as last heard; null before the first answer. */
export function useUnread(): Unread | null {
  return useSyncExternalStore((l) => {
    listeners.add(l);
    return () => listeners.delete(l);
  }, () => unread);
}
