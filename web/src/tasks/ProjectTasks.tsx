import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { personName } from '../comments/commentsApi.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { TaskDetail } from './TaskDetail.tsx';
import { TaskForm } from './TaskForm.tsx';
import { TaskRow } from './TaskRow.tsx';
import { tasksApi, type Task, type TaskFilters } from './tasksApi.ts';
import { toggledWords } from './taskWords.ts';
import { usePeople } from '../comments/usePeople.ts';
import { mayEditTasks, useCrew } from './useTaskPeople.ts';
import './tasks.css';

function filtersFrom(search: string): TaskFilters {
  const params = new URLSearchParams(search);
  const status = params.get('status');
  return {
    assignee_id: params.get('assignee_id') || null,
    status: status === 'open' || status === 'completed' ? status : null,
    overdue: params.get('overdue') === '1',
  };
}

function searchOf(filters: TaskFilters): string {
  const params = new URLSearchParams();
  if (filters.assignee_id) params.set('assignee_id', filters.assignee_id);
  if (filters.overdue) params.set('overdue', '1');
  else if (filters.status) params.set('status', filters.status);
  const s = params.toString();
  return s ? `?${s}` : '';
}

interface Listing {
  items: Task[];
  cursor: string | null;
  loading: boolean;
  error: unknown;
}

/** /projects/{id}/tasks: the list; /projects/{id}/tasks/{taskId}: one task. */
export default function ProjectTasks({ project, session, rest }: ProjectSectionProps) {
  const [taskId] = rest.split('/').filter(Boolean);
  if (taskId) return <TaskDetail key={taskId} taskId={taskId} project={project} session={session} />;
  return <TaskList project={project} session={session} />;
}

/**
 * A project's tasks, soonest due first: filters by assignee, status and overdue kept in the
 * address (`?assignee_id=…&status=…&overdue=1`), "New task", and each task done or not in place.
 */
function TaskList({ project, session }: Omit<ProjectSectionProps, 'rest'>) {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const filters = useMemo(() => filtersFrom(search), [search]);
  const people = usePeople(session.user.id);
  const { crew, crewError } = useCrew(project.id);
  const [listing, setListing] = useState<Listing>({ items: [], cursor: null, loading: true, error: null });
  const [now, setNow] = useState(() => new Date());
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const generation = useRef(0);
  const newButton = useRef<HTMLButtonElement>(null);
  const id = useId();
  const mayEdit = mayEditTasks(session.user.role);

  const load = useCallback((cursor: string | null) => {
    const mine = ++generation.current;
    const at = new Date();
    setNow(at);
    setListing((l) => ({ ...l, items: cursor ? l.items : [], loading: true, error: null }));
    tasksApi.projectTasks(project.id, filters, cursor, at).then(
      (page) => mine === generation.current && setListing((l) => ({
        items: cursor ? [...l.items, ...page.data] : page.data, cursor: page.has_more ? page.next_cursor : null, loading: false, error: null,
      })),
      (error) => mine === generation.current && setListing((l) => ({ ...l, loading: false, error })),
    );
  }, [project.id, filters]);
  useEffect(() => load(null), [load]);

  const setFilters = (next: TaskFilters) => navigate(`${location}${searchOf(next)}`, { replace: true });
  // The assignee filter offers the crew, and whoever the address names (assigned earlier, since left the crew).
  const assigneeChoices = [...crew];
  const named = filters.assignee_id ? people.get(filters.assignee_id) : undefined;
  if (named && !crew.some((p) => p.id === named.id)) assigneeChoices.push(named);
  const filtered = !!(filters.assignee_id || filters.status || filters.overdue);

  return (
    <section aria-labelledby={`${id}-heading`} className="tasks">
      <div className="page-heading">
        <h2 id={`${id}-heading`}>Tasks</h2>
        {mayEdit && !creating
          ? <button type="button" ref={newButton} onClick={() => { setNotice(null); setCreating(true); }}>New task</button>
          : null}
      </div>
      {crewError ? <ErrorMessage error={crewError} /> : null}
      {creating
        ? (
          <TaskForm
            heading="New task" crew={crew} people={people} submitLabel="Create task"
            onCancel={() => { setCreating(false); requestAnimationFrame(() => newButton.current?.focus()); }}
            onSubmit={async (input) => {
              const task = await tasksApi.create(project.id, input);
              setCreating(false);
              setNotice(`Task “${task.title}” is created.`);
              load(null);
              requestAnimationFrame(() => newButton.current?.focus());
            }}
          />
        )
        : null}
      <form className="task-filters" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor={`${id}-assignee`}>Assigned to</label>
          <select id={`${id}-assignee`} value={filters.assignee_id ?? ''} onChange={(e) => setFilters({ ...filters, assignee_id: e.target.value || null })}>
            <option value="">Anyone</option>
            {assigneeChoices.map((p) => <option key={p.id} value={p.id}>{p.id === session.user.id ? `${personName(p)} (me)` : personName(p)}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-status`}>Status</label>
          <select
            id={`${id}-status`} value={filters.overdue ? 'open' : filters.status ?? ''} disabled={filters.overdue}
            aria-describedby={filters.overdue ? `${id}-overdue-hint` : undefined}
            onChange={(e) => setFilters({ ...filters, status: (e.target.value || null) as TaskFilters['status'] })}
          >
            <option value="">Open and completed</option>
            <option value="open">Open</option>
            <option value="completed">Completed</option>
          </select>
        </div>
        <div className="checkbox-field">
          <input id={`${id}-overdue`} type="checkbox" checked={!!filters.overdue} onChange={(e) => setFilters({ ...filters, overdue: e.target.checked })} />
          <label htmlFor={`${id}-overdue`}>Overdue only</label>
          {filters.overdue ? <p className="hint" id={`${id}-overdue-hint`}>Overdue tasks are open ones.</p> : null}
        </div>
      </form>
      <div role="status">{notice}</div>
      {listing.error ? <ErrorMessage error={listing.error} /> : null}
      {!listing.loading && !listing.error && listing.items.length === 0
        ? <p>{filtered ? 'No tasks match these filters.' : 'No tasks yet.'}</p>
        : null}
      {listing.items.length > 0
        ? (
          <ul className="task-list" aria-label="Tasks">
            {listing.items.map((task) => (
              <TaskRow
                key={task.id} task={task} people={people} now={now}
                onChanged={(changed) => {
                  setListing((l) => ({ ...l, items: l.items.map((t) => (t.id === changed.id ? changed : t)) }));
                  setNotice(toggledWords(changed));
                }}
              />
            ))}
          </ul>
        )
        : null}
      {listing.loading ? <p role="status">Loading tasks…</p> : null}
      {listing.cursor && !listing.loading
        ? <p><button type="button" className="secondary" onClick={() => load(listing.cursor)}>Load more tasks</button></p>
        : null}
    </section>
  );
}
