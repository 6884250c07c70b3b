import { useId } from 'react';
import { Link } from 'wouter';
import type { Person } from '../comments/commentsApi.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { tasksApi, type Task } from './tasksApi.ts';
import { assigneeWords, dueWords, isOverdue, photoCountWords, statusWords } from './taskWords.ts';

/**
 * The checkbox that completes or reopens a task (`POST /v1/tasks/{id}/complete|reopen`; anyone
 * who can see the project may). Its name says what it is ("Completed: …"), its state is the
 * checkbox's own; the caller announces the change in its status line.
 */
export function CompleteToggle({ task, onChanged, label }: {
  task: Task;
  onChanged(task: Task, etag: string | null): void;
  /** The visible words next to the box; the title is always in its name. */
  label?: string;
}) {
  const action = useAction();
  const id = useId();

  function toggle() {
    if (action.busy) return;
    void action.run(async () => {
      const { body, etag } = task.status === 'completed' ? await tasksApi.reopen(task.id) : await tasksApi.complete(task.id);
      onChanged(body, etag);
    });
  }

  return (
    <div className="complete-toggle">
      {/* Not disabled while saving: a disabled box would lose the keyboard focus. */}
      <input id={id} type="checkbox" checked={task.status === 'completed'} aria-busy={action.busy || undefined} onChange={toggle} />
      <label htmlFor={id}>
        {label ? <span aria-hidden="true">{label}</span> : null}
        <span className="visually-hidden">Completed: {task.title}</span>
      </label>
      {action.error ? <ErrorMessage error={action.error} /> : null}
    </div>
  );
}

/** One task in a list: done or not, its title linking to its page, assignee, due date (overdue in words), status, photos. */
export function TaskRow({ task, people, projectName, now, onChanged }: {
  task: Task;
  people: Map<string, Person>;
  /** Shown when the list spans projects (My tasks), once known. */
  projectName?: string;
  now: Date;
  onChanged(task: Task): void;
}) {
  const overdue = isOverdue(task, now);
  return (
    <li className={`task-row${task.status === 'completed' ? ' done' : ''}`}>
      <CompleteToggle task={task} onChanged={(t) => onChanged(t)} />
      <div className="task-main">
        <Link href={`/projects/${task.project_id}/tasks/${task.id}`} className="task-title">{task.title}</Link>
        <ul className="task-facts">
          {projectName ? <li>{projectName}</li> : null}
          <li>{assigneeWords(task, people)}</li>
          <li className={overdue ? 'overdue' : undefined}>{overdue ? <strong>{dueWords(task, now)}</strong> : dueWords(task, now)}</li>
          <li>{statusWords(task)}</li>
          <li>{photoCountWords(task.photo_ids.length)}</li>
        </ul>
      </div>
    </li>
  );
}
