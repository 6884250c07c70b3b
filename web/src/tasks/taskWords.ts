/** How a task's due date, state and people are put in words, and how the form's due day becomes `due_at`. */
import { personName, type Person } from '../comments/commentsApi.ts';
import type { Task } from './tasksApi.ts';

const dayFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' });
const dayTimeFormat = new Intl.DateTimeFormat(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });

/** Open, with a due time that has passed. */
export const isOverdue = (task: Task, now = new Date()) => task.status === 'open' && task.due_at !== null && new Date(task.due_at) < now;

/** A due time at the end of a day (as the form saves it) is said as the day alone; any other with its time. */
export function formatDue(dueAt: string): string {
  const at = new Date(dueAt);
  const endOfDay = at.getHours() === 23 && at.getMinutes() === 59;
  return (endOfDay ? dayFormat : dayTimeFormat).format(at);
}

/** "Due Tue, Mar 3, 2026", "Overdue: was due …", or "No due date". */
export function dueWords(task: Task, now = new Date()): string {
  if (task.due_at === null) return 'No due date';
  return isOverdue(task, now) ? `Overdue: was due ${formatDue(task.due_at)}` : `Due ${formatDue(task.due_at)}`;
}

export const statusWords = (task: Task) => (task.status === 'completed' ? 'Completed' : 'Open');

export const photoCountWords = (n: number) => (n === 0 ? 'No photos' : n === 1 ? '1 photo' : `${n} photos`);

/** The assignee by name; "Unassigned"; "Someone" while (or if) their name cannot be read. */
export function assigneeWords(task: Task, people: Map<string, Person>): string {
  if (task.assignee_id === null) return 'Unassigned';
  const person = people.get(task.assignee_id);
  return `Assigned to ${person ? personName(person) : 'someone'}`;
}

/** The `<input type="date">` value (the viewer's local day) of a due time. */
export function dueDayOf(dueAt: string | null): string {
  if (dueAt === null) return '';
  const at = new Date(dueAt);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** A due day means "by the end of that day" where the viewer is: 23:59:59.999 local time, in UTC. */
export function dueAtOf(day: string): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  return new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59, 999).toISOString();
}

/** What a status line says after a task is completed or reopened. */
export const toggledWords = (task: Task) => (task.status === 'completed' ? `“${task.title}” is completed.` : `“${task.title}” is reopened.`);
