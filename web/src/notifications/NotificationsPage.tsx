import { useEffect, useRef, useState } from 'react';
import { Link } from 'wouter';
import { request } from '../api.ts';
import { commentsApi, me as fetchMe, personName, workspacePeople, type Comment, type Person } from '../comments/commentsApi.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { usePages, useWhenVisible } from '../usePages.ts';
import { notificationsApi, refreshUnread, useUnread, type Notification } from './notificationsApi.ts';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const EXCERPT = 140;

/** What a notification is about, read once per page: its comment, its task's title, its project's name (null: gone or hidden). */
interface Details {
  comments: Map<string, Comment | null>;
  tasks: Map<string, { title: string } | null>;
  projects: Map<string, { name: string } | null>;
}

const quiet = <T,>(p: Promise<T>) => p.catch(() => null);

/** Reads the comments, tasks and projects the notifications name that are not known yet. */
function useDetails(items: Notification[]): Details {
  const [details, setDetails] = useState<Details>({ comments: new Map(), tasks: new Map(), projects: new Map() });
  const asked = useRef(new Set<string>());
  useEffect(() => {
    // Each id is asked for once per page, even when the list grows before an answer is in.
    const want = (ids: Array<string | null>) => [...new Set(ids.filter((x): x is string => !!x && !asked.current.has(x)))];
    const commentIds = want(items.map((n) => n.comment_id ?? (n.subject.type === 'comment' ? n.subject.id : null)));
    const taskIds = want(items.map((n) => (n.subject.type === 'task' ? n.subject.id : null)));
    const projectIds = want(items.map((n) => n.project_id));
    for (const x of [...commentIds, ...taskIds, ...projectIds]) asked.current.add(x);
    if (commentIds.length + taskIds.length + projectIds.length === 0) return;
    void Promise.all([
      Promise.all(commentIds.map((id) => quiet(commentsApi.get(id)).then((c) => [id, c] as const))),
      Promise.all(taskIds.map((id) => quiet(request<{ title: string }>('GET', `/v1/tasks/${encodeURIComponent(id)}`)).then((t) => [id, t] as const))),
      Promise.all(projectIds.map((id) => quiet(request<{ name: string }>('GET', `/v1/projects/${encodeURIComponent(id)}`)).then((p) => [id, p] as const))),
    ]).then(([comments, tasks, projects]) => {
      setDetails((d) => ({
        comments: new Map([...d.comments, ...comments]),
        tasks: new Map([...d.tasks, ...tasks]),
        projects: new Map([...d.projects, ...projects]),
      }));
    });
  }, [items]);
  return details;
}

/** Where a notification leads: the comment on its project, photo or task page, the photo, the task, the project. */
function hrefOf(n: Notification, comment: Comment | null | undefined): string {
  if (comment) {
    if (comment.subject.type === 'photo') return `/photos/${comment.subject.id}#comment-${comment.id}`;
    if (comment.subject.type === 'project') return `/projects/${comment.project_id}#comment-${comment.id}`;
    return `/projects/${comment.project_id}/tasks/${comment.subject.id}#comment-${comment.id}`;
  }
  if (n.subject.type === 'photo') return `/photos/${n.subject.id}`;
  if (n.subject.type === 'task' && n.project_id) return `/projects/${n.project_id}/tasks/${n.subject.id}`;
  if (n.subject.type === 'project') return `/projects/${n.subject.id}`;
  if (n.subject.type === 'comment' && n.project_id) return `/projects/${n.project_id}#comment-${n.subject.id}`;
  return n.project_id ? `/projects/${n.project_id}` : '/projects';
}

/** The notification in words: who did what, where. */
function sentence(n: Notification, details: Details, people: Map<string, Person>): string {
  const actor = n.actor_id && people.get(n.actor_id);
  const who = actor ? personName(actor) : 'Someone';
  const projectName = n.project_id ? details.projects.get(n.project_id)?.name : undefined;
  const inProject = projectName ? ` in ${projectName}` : '';
  const comment = n.comment_id ? details.comments.get(n.comment_id) : undefined;
  const taskTitle = n.subject.type === 'task' ? details.tasks.get(n.subject.id)?.title : undefined;
  switch (n.kind) {
    case 'mention': {
      const where = comment?.subject.type === 'photo' ? ` on a photo${inProject}`
        : comment?.subject.type === 'task' ? ` on a task${inProject}`
        : projectName ? ` on ${projectName}` : '';
      return `${who} mentioned you in a comment${where}`;
    }
    case 'task_comment':
      return `${who} commented on your task${taskTitle ? ` “${taskTitle}”` : ''}${inProject}`;
    case 'task_assigned':
      return `${who} assigned you the task${taskTitle ? ` “${taskTitle}”` : ''}${inProject}`;
  }
}

const excerptOf = (c: Comment | null | undefined) => (c ? (c.body.length > EXCERPT ? `${c.body.slice(0, EXCERPT).trimEnd()}…` : c.body) : null);

/**
 * The caller's notifications, newest first (30 at a time, more as the list's end scrolls into view):
 * each says who did what where, links to it (and marks it read), unread ones say "Unread";
 * "Mark as read" on one, "Mark all as read" on all; the header's count follows.
 */
export function NotificationsPage() {
  const [generation, setGeneration] = useState(0);
  const pages = usePages<Notification>(String(generation), (cursor) => notificationsApi.list({ cursor, limit: 30 }));
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!pages.error) pages.loadMore();
  });
  const [readNow, setReadNow] = useState<Set<string>>(new Set());
  const [people, setPeople] = useState<Map<string, Person>>(new Map());
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const unread = useUnread();
  const details = useDetails(pages.items);

  useEffect(() => {
    document.title = 'Notifications · Jobsite';
    let live = true;
    fetchMe().then((user) => workspacePeople(user.id)).then((list) => live && setPeople(new Map(list.map((p) => [p.id, p]))), () => undefined);
    return () => {
      live = false;
      document.title = 'Jobsite';
    };
  }, []);

  // More unread than before (the header's poll heard of new ones): the list starts again from the newest.
  const lastCount = useRef<number | null>(null);
  useEffect(() => {
    const count = unread?.count ?? null;
    if (count !== null && lastCount.current !== null && count > lastCount.current) {
      setReadNow(new Set());
      setGeneration((g) => g + 1);
    }
    lastCount.current = count;
  }, [unread]);

  const isUnread = (n: Notification) => n.read_at === null && !readNow.has(n.id);
  const anyUnread = pages.items.some(isUnread) || (unread?.count ?? 0) > 0;

  // Not through action.run: marking one read leaves "Mark all as read" as it is.
  async function markRead(n: Notification) {
    action.clear();
    setNotice(null);
    try {
      await notificationsApi.markRead(n.id);
      setReadNow((s) => new Set(s).add(n.id));
      void refreshUnread();
    } catch (err) {
      action.setError(err);
    }
  }

  function markAllRead() {
    setNotice(null);
    void action.run(async () => {
      const { marked } = await notificationsApi.markAllRead();
      // Those shown are read now; any loaded later come with their read_at from the API.
      setReadNow(new Set(pages.items.map((n) => n.id)));
      setNotice(marked === 1 ? '1 notification is marked read.' : `${marked} notifications are marked read.`);
      await refreshUnread();
    });
  }

  return (
    <>
      <div className="page-heading">
        <h1>Notifications</h1>
        <button type="button" onClick={markAllRead} disabled={action.busy || !anyUnread}>Mark all as read</button>
      </div>
      <div role="status">{notice}</div>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {pages.error && !pages.loading ? <button type="button" onClick={() => setGeneration((g) => g + 1)}>Try again</button> : null}
      {!pages.loading && !pages.error && pages.items.length === 0
        ? <p>No notifications. You get one when someone mentions you, assigns you a task or comments on a task of yours.</p>
        : null}
      <ul className="notification-list" aria-label="Notifications">
        {pages.items.map((n) => {
          const comment = n.comment_id ? details.comments.get(n.comment_id) : undefined;
          const text = sentence(n, details, people);
          const excerpt = excerptOf(comment);
          const fresh = isUnread(n);
          return (
            <li key={n.id} className={fresh ? 'notification unread' : 'notification'}>
              <Link href={hrefOf(n, comment)} aria-label={fresh ? `Unread: ${text}` : undefined} onClick={() => { if (fresh) void markRead(n); }}>
                {fresh ? <><span className="unread-label">Unread</span>{' '}</> : null}
                {text}
              </Link>
              {excerpt ? <p className="notification-excerpt">“{excerpt}”</p> : null}
              <p className="notification-meta">
                <time dateTime={n.created_at} className="muted">{timeFormat.format(new Date(n.created_at))}</time>
                {fresh
                  ? <button type="button" className="link-button" aria-label={`Mark as read: ${text}`} onClick={() => markRead(n)}>Mark as read</button>
                  : <span className="muted"> · Read</span>}
              </p>
            </li>
          );
        })}
      </ul>
      <div ref={sentinel} className="list-end">
        {pages.loading ? <p role="status">Loading notifications…</p> : null}
        {pages.hasMore && !pages.loading ? <button type="button" onClick={pages.loadMore}>Load more</button> : null}
      </div>
    </>
  );
}
