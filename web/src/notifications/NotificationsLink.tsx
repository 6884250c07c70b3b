import { useEffect } from 'react';
import { Link } from 'wouter';
import { forgetUnread, refreshUnread, useUnread } from './notificationsApi.ts';
import './notifications.css';

/** How often the header asks for the unread count while the page is visible. */
const POLL_MS = 30_000;

/**
 * "Notifications" in the main navigation with the unread count, in its name too
 * ("Notifications, 3 unread"). Asked for on start, every 30 s while the page is visible, when the
 * window gets focus or the page becomes visible again, and whenever something marks one read.
 */
export function NotificationsLink({ current }: { current: boolean }) {
  const unread = useUnread();
  useEffect(() => {
    void refreshUnread();
    const whenVisible = () => {
      if (!document.hidden) void refreshUnread();
    };
    const timer = window.setInterval(whenVisible, POLL_MS);
    window.addEventListener('focus', whenVisible);
    document.addEventListener('visibilitychange', whenVisible);
    return () => {
      window.clearInterval(timer);
      window.removeEventListener('focus', whenVisible);
      document.removeEventListener('visibilitychange', whenVisible);
      forgetUnread();
    };
  }, []);

  const count = unread && unread.count > 0 ? `${unread.count}${unread.more ? '+' : ''}` : null;
  return (
    <Link href="/notifications" aria-current={current ? 'page' : undefined} aria-label={count ? `Notifications, ${count} unread` : undefined}>
      Notifications{count ? <>{' '}<span className="unread-count">{count}</span></> : null}
    </Link>
  );
}
