import { useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { ApiProblem } from '../api.ts';
import { personName, type Person } from '../comments/commentsApi.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { TITLE_MAX, type Task, type TaskInput } from './tasksApi.ts';
import { dueAtOf, dueDayOf } from './taskWords.ts';

type Field = 'title' | 'description' | 'assignee_id' | 'due_at';
const FIELDS: Field[] = ['title', 'description', 'assignee_id', 'due_at'];

/** The field an API error's path names (`body.assignee_id` → assignee_id), if it is one of ours. */
const fieldOf = (path: string): Field | null => FIELDS.find((f) => path === `body.${f}` || path.endsWith(`/${f}`)) ?? null;

/**
 * New and edit: Title, Description, Assigned to (the project's crew only, and whoever it is
 * assigned to now), Due date (a day: due by its end, in the viewer's time zone). An empty title is
 * refused before sending; the API's refusals go next to their field, its title and detail above.
 */
export function TaskForm({ heading, task, crew, people, submitLabel, onSubmit, onCancel, problemWords }: {
  heading: string;
  task?: Task;
  crew: Person[];
  people: Map<string, Person>;
  submitLabel: string;
  onSubmit(input: TaskInput): Promise<void>;
  onCancel(): void;
  /** Words of its own for some refusals (a 412), else null for the API's. */
  problemWords?(problem: ApiProblem): ReactNode;
}) {
  const [title, setTitle] = useState(task?.title ?? '');
  const [description, setDescription] = useState(task?.description ?? '');
  const [assignee, setAssignee] = useState(task?.assignee_id ?? '');
  const [dueDay, setDueDay] = useState(dueDayOf(task?.due_at ?? null));
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const action = useAction();
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const ids = (f: Field) => ({ input: `${id}-${f}`, error: `${id}-${f}-error` });

  // The current assignee stays choosable even if they are no longer on the crew (nothing changes by accident).
  const choices = [...crew];
  if (task?.assignee_id && !crew.some((p) => p.id === task.assignee_id)) {
    const current = people.get(task.assignee_id);
    if (current) choices.push(current);
  }
  choices.sort((a, b) => personName(a).localeCompare(personName(b)));
  const onCrew = new Set(crew.map((p) => p.id));

  function focusFirst(errors: Partial<Record<Field, string>>) {
    const first = FIELDS.find((f) => errors[f]);
    if (first) requestAnimationFrame(() => formRef.current?.querySelector<HTMLElement>(`#${CSS.escape(ids(first).input)}`)?.focus());
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    action.clear();
    const local: Partial<Record<Field, string>> = {};
    if (title.trim() === '') local.title = 'Give the task a title.';
    else if (title.trim().length > TITLE_MAX) local.title = `A title has at most ${TITLE_MAX} characters.`;
    setFieldErrors(local);
    if (Object.keys(local).length > 0) return focusFirst(local);
    await action.run(async () => {
      // An unchanged day keeps the task's own due time (one set through the API may not be the end of a day).
      const dueAt = task && dueDay === dueDayOf(task.due_at) ? task.due_at : dueAtOf(dueDay);
      await onSubmit({ title: title.trim(), description: description.trim() === '' ? null : description, assignee_id: assignee || null, due_at: dueAt });
    }, (err) => {
      action.setError(err);
      if (err instanceof ApiProblem) {
        const byField: Partial<Record<Field, string>> = {};
        for (const fe of err.errors) {
          const f = fieldOf(fe.path);
          if (f) byField[f] = fe.message;
        }
        setFieldErrors(byField);
        focusFirst(byField);
      }
    });
  }

  const described = (f: Field, hint?: string) => [hint, fieldErrors[f] ? ids(f).error : ''].filter(Boolean).join(' ') || undefined;
  const problem = (f: Field) => (fieldErrors[f] ? <p className="field-error" id={ids(f).error}>{fieldErrors[f]}</p> : null);
  const custom = action.error instanceof ApiProblem && problemWords ? problemWords(action.error) : null;

  return (
    <form ref={formRef} className="task-form" aria-label={heading} onSubmit={submit} noValidate>
      <h3>{heading}</h3>
      <label htmlFor={ids('title').input}>Title</label>
      <input
        id={ids('title').input} value={title} required aria-invalid={fieldErrors.title ? true : undefined}
        aria-describedby={described('title')} onChange={(e) => { setTitle(e.target.value); setFieldErrors((f) => ({ ...f, title: undefined })); }}
      />
      {problem('title')}
      <label htmlFor={ids('description').input}>Description <span className="muted">(optional)</span></label>
      <textarea
        id={ids('description').input} value={description} rows={3} aria-invalid={fieldErrors.description ? true : undefined}
        aria-describedby={described('description')} onChange={(e) => setDescription(e.target.value)}
      />
      {problem('description')}
      <label htmlFor={ids('assignee_id').input}>Assigned to</label>
      <p className="hint" id={`${id}-assignee-hint`}>Only the project’s crew can be chosen.</p>
      <select
        id={ids('assignee_id').input} value={assignee} aria-invalid={fieldErrors.assignee_id ? true : undefined}
        aria-describedby={described('assignee_id', `${id}-assignee-hint`)} onChange={(e) => { setAssignee(e.target.value); setFieldErrors((f) => ({ ...f, assignee_id: undefined })); }}
      >
        <option value="">Nobody</option>
        {choices.map((p) => <option key={p.id} value={p.id}>{personName(p)}{onCrew.has(p.id) ? '' : ' (not on the crew)'}</option>)}
      </select>
      {problem('assignee_id')}
      <label htmlFor={ids('due_at').input}>Due date <span className="muted">(optional)</span></label>
      <p className="hint" id={`${id}-due-hint`}>Due by the end of that day.</p>
      <input
        id={ids('due_at').input} type="date" value={dueDay} aria-invalid={fieldErrors.due_at ? true : undefined}
        aria-describedby={described('due_at', `${id}-due-hint`)} onChange={(e) => setDueDay(e.target.value)}
      />
      {problem('due_at')}
      {action.error ? custom ?? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : submitLabel}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
