import { useCallback, useEffect, useRef, useState } from 'react';
import type { Session } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { TaskRow } from './TaskRow.tsx';
import { tasksApi, type Task } from './tasksApi.ts';
import { toggledWords } from './taskWords.ts';
import { usePeople } from '../comments/usePeople.ts';
import './tasks.css';

type Status = 'open' | 'completed';

interface Listing {
  items: Task[];
  cursor: string | null;
  loading: boolean;
  error: unknown;
}

const EMPTY: Listing = { items: [], cursor: null, loading: true, error: null };

/**
 * /tasks: the tasks assigned to the signed-in user across projects (`GET /v1/tasks?assignee_id=me`),
 * open ones first, then completed ones, each soonest due first; each names its project and links
 * to its page, and can be completed or reopened in place.
 */
export function MyTasks({ session }: { session: Session }) {
  const me = session.user.id;
  const people = usePeople(me);
  const [lists, setLists] = useState<Record<Status, Listing>>({ open: EMPTY, completed: EMPTY });
  const [projectNames, setProjectNames] = useState<Map<string, string>>(new Map());
  const [now, setNow] = useState(() => new Date());
  const [notice, setNotice] = useState<string | null>(null);
  const asked = useRef(new Set<string>());

  const load = useCallback((status: Status, cursor: string | null) => {
    setLists((l) => ({ ...l, [status]: { ...l[status], loading: true, error: null } }));
    tasksApi.tasks({ assignee_id: me, status }, cursor).then(
      (page) => setLists((l) => ({
        ...l,
        [status]: { items: cursor ? [...l[status].items, ...page.data] : page.data, cursor: page.has_more ? page.next_cursor : null, loading: false, error: null },
      })),
      (error) => setLists((l) => ({ ...l, [status]: { ...l[status], loading: false, error } })),
    );
  }, [me]);
  useEffect(() => {
    setNow(new Date());
    load('open', null);
    load('completed', null);
  }, [load]);

  useEffect(() => {
    document.title = 'My tasks · Jobsite';
    return () => {
      document.title = 'Jobsite';
    };
  }, []);

  // Each project's name, read once.
  const projectIds = [...new Set([...lists.open.items, ...lists.completed.items].map((t) => t.project_id))].filter((p) => !asked.current.has(p));
  useEffect(() => {
    if (projectIds.length === 0) return;
    for (const p of projectIds) asked.current.add(p);
    Promise.all(projectIds.map((p) => tasksApi.project(p).then((project) => [p, project.name] as const, () => [p, 'A project'] as const)))
      .then((found) => setProjectNames((m) => new Map([...m, ...found])));
  }, [projectIds.join(',')]);

  // In place, so the focus stays on its checkbox; it moves to the other list at the next visit.
  function changed(task: Task) {
    setLists((l) => ({
      open: { ...l.open, items: l.open.items.map((t) => (t.id === task.id ? task : t)) },
      completed: { ...l.completed, items: l.completed.items.map((t) => (t.id === task.id ? task : t)) },
    }));
    setNotice(toggledWords(task));
  }

  const section = (status: Status, heading: string, empty: string) => {
    const listing = lists[status];
    return (
      <section aria-labelledby={`my-${status}-heading`}>
        <h2 id={`my-${status}-heading`}>{heading} {listing.loading ? null : <span className="muted">({listing.items.length}{listing.cursor ? '+' : ''})</span>}</h2>
        {listing.error ? <ErrorMessage error={listing.error} /> : null}
        {!listing.loading && !listing.error && listing.items.length === 0 ? <p>{empty}</p> : null}
        {listing.items.length > 0
          ? (
            <ul className="task-list" aria-label={heading}>
              {listing.items.map((task) => (
                <TaskRow key={task.id} task={task} people={people} now={now} projectName={projectNames.get(task.project_id) ?? ''} onChanged={changed} />
              ))}
            </ul>
          )
          : null}
        {listing.loading ? <p role="status">Loading…</p> : null}
        {listing.cursor && !listing.loading
          ? <p><button type="button" className="secondary" onClick={() => load(status, listing.cursor)}>Load more {status} tasks</button></p>
          : null}
      </section>
    );
  };

  return (
    <div className="tasks my-tasks">
      <h1>My tasks</h1>
      <p className="muted">Tasks assigned to you in every project you can see, soonest due first.</p>
      <div role="status">{notice}</div>
      {section('open', 'Open', 'Nothing open is assigned to you.')}
      {section('completed', 'Completed', 'None completed yet.')}
    </div>
  );
}
