/**
 * A project's events (GET /v1/events, docs/events.md) in words: who did what, when, and where it
 * leads. Pure, so every kind in the server's catalogue is unit-tested (test/activity-phrases.test.ts).
 *
 * An event carries no actor: who did it is read from its `data` where the resource records it
 * (`creator_id`, `created_by`, `completed_by`, `author_id`, `uploaded_by`, `requested_by`; a
 * task's assignment from the `notification.created` that follows it). Otherwise the sentence is
 * in the passive ("Rosa Crew was added to the crew"): it never guesses a name.
 */

export interface ActivityEvent {
  id: string;
  event: string;
  project_id: string | null;
  created_at: string;
  data: Record<string, unknown>;
}

/** A person's name by user id; undefined when unknown. */
export type NameOf = (userId: string) => string | undefined;

/** One line of the activity: one event, or several alike by the same person close in time. */
export interface ActivityLine {
  /** The events, newest first (one unless grouped). */
  events: ActivityEvent[];
  /** Who did it (usr_…), when the events say. */
  actorId: string | null;
  /** For a `project.updated`: the project as the next older project event left it, to say what changed. */
  previous?: Record<string, unknown>;
}

export interface Phrase {
  text: string;
  /** Where the line leads; the project when what it was about is gone. */
  href: string;
}

/** What one item of a grouped line links to (a photo with its thumbnail, a task, a document). */
export interface LineItem {
  label: string;
  href: string;
  thumbnail: string | null;
}

type Data = Record<string, unknown>;
const str = (d: Data, key: string): string | null => (typeof d[key] === 'string' ? d[key] as string : null);
/** "1 photo", "214 photos", or "photos" when the count is unknown. */
const count = (d: Data, key: string): string => (typeof d[key] === 'number' ? `${d[key] as number} photo${d[key] === 1 ? '' : 's'}` : 'photos');
const obj = (d: Data, key: string): Data => (d[key] !== null && typeof d[key] === 'object' ? d[key] as Data : {});
const quoted = (s: string | null) => (s ? ` “${s}”` : '');
const enc = encodeURIComponent;

/** Kinds that are not shown as lines: a notification is one person's, and echoes the comment or assignment listed with it. */
export const HIDDEN_EVENTS: ReadonlySet<string> = new Set(['notification.created']);

/** Kinds whose consecutive events by one person within GROUP_GAP_MS make one line ("uploaded 5 photos"). */
const GROUPED: Record<string, { verb: string; one: string; many: string }> = {
  'photo.created': { verb: 'uploaded', one: 'photo', many: 'photos' },
  'video.created': { verb: 'uploaded', one: 'video', many: 'videos' },
  'document.uploaded': { verb: 'uploaded', one: 'document', many: 'documents' },
  'task.created': { verb: 'created', one: 'task', many: 'tasks' },
  'task.completed': { verb: 'completed', one: 'task', many: 'tasks' },
};
export const GROUP_GAP_MS = 10 * 60_000;

const projectHref = (e: ActivityEvent) => `/projects/${enc(e.project_id ?? str(e.data, 'project_id') ?? str(e.data, 'id') ?? '')}`;
const taskHref = (e: ActivityEvent) => `${projectHref(e)}/tasks/${enc(str(e.data, 'id') ?? '')}`;
const documentHref = (e: ActivityEvent) => `${projectHref(e)}/documents/${enc(str(e.data, 'id') ?? '')}`;
const photoHref = (e: ActivityEvent) => `/photos/${enc(str(e.data, 'id') ?? '')}`;

/** Who did it, as far as the event's data (or, for an assignment, its notification) says. */
export function actorOf(e: ActivityEvent): string | null {
  const d = e.data;
  switch (e.event) {
    case 'project.created': case 'task.created': case 'tag.created': return str(d, 'created_by');
    case 'photo.created': case 'video.created': return str(d, 'creator_id');
    case 'task.completed': return str(d, 'completed_by');
    case 'comment.created': case 'comment.updated': return str(d, 'author_id');
    case 'document.uploaded': return str(d, 'uploaded_by');
    case 'report.finished': case 'report.failed': case 'export.finished': case 'export.failed': return str(d, 'requested_by');
    case 'notification.created': return str(d, 'actor_id');
    case 'share_link.created': return str(d, 'created_by');
    case 'share_link.revoked': return str(d, 'revoked_by');
    case 'photo.assigned': return str(d, 'user_id');
    default: return null;
  }
}

/** "a photo", "the task “Pour slab”", "the project": what a comment is on. */
function commentSubject(d: Data): string {
  const type = str(obj(d, 'subject'), 'type');
  return type === 'photo' ? 'a photo' : type === 'task' ? 'a task' : 'the project';
}

function commentHref(e: ActivityEvent, withAnchor: boolean): string {
  const subject = obj(e.data, 'subject');
  const id = str(subject, 'id') ?? '';
  const anchor = withAnchor ? `#comment-${enc(str(e.data, 'id') ?? '')}` : '';
  const type = str(subject, 'type');
  if (type === 'photo') return `/photos/${enc(id)}${anchor}`;
  if (type === 'task') return `${projectHref(e)}/tasks/${enc(id)}${anchor}`;
  return `${projectHref(e)}${anchor}`;
}

/** "Rosa Crew", "Rosa Crew and Sam Lee", "Ann, Bo and Cy". */
function listOf(names: string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/** What a `project.updated` changed, given the project before (when the log still has it). */
function projectChange(after: Data, before: Data | undefined, nameOf: NameOf): string {
  if (!before) return 'The project’s details were changed';
  const crewAfter = Array.isArray(after.member_ids) ? after.member_ids as string[] : [];
  const crewBefore = Array.isArray(before.member_ids) ? before.member_ids as string[] : [];
  const named = (ids: string[]) => listOf(ids.map((id) => nameOf(id) ?? 'Someone'));
  const added = crewAfter.filter((id) => !crewBefore.includes(id));
  const removed = crewBefore.filter((id) => !crewAfter.includes(id));
  if (added.length > 0) return `${named(added)} ${added.length > 1 ? 'were' : 'was'} added to the crew`;
  if (removed.length > 0) return `${named(removed)} ${removed.length > 1 ? 'were' : 'was'} taken off the crew`;
  if (after.name !== before.name) return `The project was renamed “${str(after, 'name') ?? ''}”`;
  if (after.cover_photo_id !== before.cover_photo_id) return after.cover_photo_id ? 'The project got a new cover photo' : 'The project’s cover photo was removed';
  if (JSON.stringify(after.tags) !== JSON.stringify(before.tags)) return 'The project’s tags were changed';
  if (after.description !== before.description) return 'The project’s description was changed';
  if (JSON.stringify([after.address, after.coordinates]) !== JSON.stringify([before.address, before.coordinates])) return 'The project’s address was changed';
  return 'The project’s details were changed';
}

interface Context {
  /** The actor's name, "Someone" when not known. */
  who: string;
  nameOf: NameOf;
  previous?: Data;
}

type Maker = (e: ActivityEvent, c: Context) => Phrase;

/** One phrase per kind of event in the server's catalogue (src/features/events/event-types.ts). */
const PHRASES: Record<string, Maker> = {
  'project.created': (e, c) => ({ text: `${c.who} created the project${quoted(str(e.data, 'name'))}`, href: projectHref(e) }),
  'project.updated': (e, c) => ({ text: projectChange(e.data, c.previous, c.nameOf), href: projectHref(e) }),
  'project.archived': (e) => ({ text: `The project${quoted(str(e.data, 'name'))} was archived`, href: projectHref(e) }),
  'project.restored': (e) => ({ text: `The project${quoted(str(e.data, 'name'))} was restored`, href: projectHref(e) }),
  'project.deleted': (e) => ({ text: `The project${quoted(str(e.data, 'name'))} was deleted`, href: '/projects' }),
  'photo.created': (e, c) => ({
    text: str(e.data, 'processing_status') === 'failed' ? `${c.who} uploaded a photo that could not be processed` : `${c.who} uploaded a photo${quoted(str(e.data, 'caption'))}`,
    href: photoHref(e),
  }),
  'photo.updated': (e) => ({ text: `A photo${quoted(str(e.data, 'caption'))} was changed`, href: photoHref(e) }),
  'photo.deleted': (e) => ({ text: `A photo${quoted(str(e.data, 'caption'))} was deleted`, href: projectHref(e) }),
  'photo.assigned': (e, c) => {
    const photo = obj(e.data, 'photo');
    const how = str(e.data, 'assigned_by');
    const text = how === 'user' ? `${c.who} moved a photo${quoted(str(photo, 'caption'))} here`
      : `A photo${quoted(str(photo, 'caption'))} was filed here by its location${how === 'geofence' ? ' (inside the site’s geofence)' : ' (the nearest site)'}`;
    return { text, href: `/photos/${enc(str(photo, 'id') ?? '')}` };
  },
  'video.created': (e, c) => ({ text: `${c.who} uploaded a video${quoted(str(e.data, 'caption'))}`, href: projectHref(e) }),
  'video.updated': (e) => ({ text: `A video${quoted(str(e.data, 'caption'))} was changed`, href: projectHref(e) }),
  'video.deleted': (e) => ({ text: `A video${quoted(str(e.data, 'caption'))} was deleted`, href: projectHref(e) }),
  'task.created': (e, c) => ({ text: `${c.who} created the task${quoted(str(e.data, 'title'))}`, href: taskHref(e) }),
  'task.assigned': (e, c) => {
    const assignee = str(e.data, 'assignee_id');
    const title = quoted(str(e.data, 'title'));
    if (!assignee) return { text: `The task${title} was unassigned`, href: taskHref(e) };
    const to = c.nameOf(assignee) ?? 'someone';
    return { text: c.who === 'Someone' ? `The task${title} was assigned to ${to}` : `${c.who} assigned the task${title} to ${to}`, href: taskHref(e) };
  },
  'task.completed': (e, c) => ({ text: `${c.who} completed${quoted(str(e.data, 'title'))}`, href: taskHref(e) }),
  'task.reopened': (e) => ({ text: `The task${quoted(str(e.data, 'title'))} was reopened`, href: taskHref(e) }),
  'task.updated': (e) => ({ text: `The task${quoted(str(e.data, 'title'))} was changed`, href: taskHref(e) }),
  'task.deleted': (e) => ({ text: `The task${quoted(str(e.data, 'title'))} was deleted`, href: `${projectHref(e)}/tasks` }),
  'comment.created': (e, c) => ({ text: `${c.who} commented on ${commentSubject(e.data)}`, href: commentHref(e, true) }),
  'comment.updated': (e, c) => ({ text: `${c.who} edited a comment on ${commentSubject(e.data)}`, href: commentHref(e, true) }),
  'comment.deleted': (e) => ({ text: `A comment on ${commentSubject(e.data)} was deleted`, href: commentHref(e, false) }),
  'document.uploaded': (e, c) => ({ text: `${c.who} uploaded the document${quoted(str(e.data, 'name'))}`, href: documentHref(e) }),
  'document.updated': (e) => ({ text: `A document was renamed${quoted(str(e.data, 'name'))}`, href: documentHref(e) }),
  'document.deleted': (e) => ({ text: `The document${quoted(str(e.data, 'name'))} was deleted`, href: `${projectHref(e)}/documents` }),
  'report.finished': (e, c) => ({ text: `Report${quoted(str(e.data, 'title'))} finished (asked for by ${c.who})`, href: `${projectHref(e)}/reports/${enc(str(e.data, 'id') ?? '')}` }),
  'report.failed': (e, c) => ({
    text: `Report${quoted(str(e.data, 'title'))} could not be made (asked for by ${c.who})${str(e.data, 'error') ? `: ${str(e.data, 'error')}` : ''}`,
    href: `${projectHref(e)}/reports/${enc(str(e.data, 'id') ?? '')}`,
  }),
  'share_link.created': (e, c) => ({ text: `${c.who} shared ${sharedWhat(e.data)} by link`, href: projectHref(e) }),
  'share_link.revoked': (e, c) => ({ text: `${c.who} turned off a link that shared ${sharedWhat(e.data)}`, href: projectHref(e) }),
  // No page of its own in the web app: the activity links to the project.
  'export.finished': (e, c) => ({ text: `A ZIP of ${count(e.data, 'photo_count')} is ready (asked for by ${c.who})`, href: projectHref(e) }),
  'export.failed': (e, c) => ({
    text: `A ZIP export could not be made (asked for by ${c.who})${str(e.data, 'error') ? `: ${str(e.data, 'error')}` : ''}`, href: projectHref(e),
  }),
  'tag.created': (e, c) => ({ text: `${c.who} created the tag${quoted(str(e.data, 'name'))}`, href: '/projects' }),
  'tag.updated': (e) => ({ text: `The tag${quoted(str(e.data, 'name'))} was changed`, href: '/projects' }),
  'tag.deleted': (e) => ({ text: `The tag${quoted(str(e.data, 'name'))} was deleted`, href: '/projects' }),
  'user.added': (e, c) => ({ text: `${personOf(e.data, c)} joined the workspace`, href: '/projects' }),
  'user.updated': (e, c) => ({ text: `${personOf(e.data, c)}’s details were changed`, href: '/projects' }),
  'user.removed': (e, c) => ({ text: `${personOf(e.data, c)} was deactivated`, href: '/projects' }),
  'notification.created': (e, c) => {
    const notified = c.nameOf(str(e.data, 'user_id') ?? '') ?? 'someone';
    const kind = str(e.data, 'kind');
    const text = kind === 'mention' ? `${c.who} mentioned ${notified} in a comment`
      : kind === 'task_assigned' ? `${c.who} assigned a task to ${notified}`
      : kind === 'task_comment' ? `${c.who} commented on a task of ${notified}’s`
      : `${notified} was notified`;
    return { text, href: projectHref(e) };
  },
  'webhook.ping': () => ({ text: 'A test event was sent to a webhook', href: '/projects' }),
  'webhook.disabled': (e) => ({ text: `The webhook to ${str(e.data, 'url') ?? 'an endpoint'} was turned off after failing`, href: '/projects' }),
};

/** "3 photos", "a photo", "a report": what a share link shows. */
function sharedWhat(d: Data): string {
  if (str(d, 'report_id')) return 'a report';
  const count = Array.isArray(d.photo_ids) ? d.photo_ids.length : 0;
  return count === 1 ? 'a photo' : `${count} photos`;
}

/** A user event's subject by name: from the directory, else the event's own first and last name. */
function personOf(d: Data, c: Context): string {
  const own = [str(d, 'first_name'), str(d, 'last_name')].filter(Boolean).join(' ');
  return c.nameOf(str(d, 'id') ?? '') ?? (own || str(d, 'email') || 'Someone');
}

export const hasPhrase = (event: string): boolean => Object.hasOwn(PHRASES, event);

/** One event in words; an unknown kind says so ("Something changed: thing.moved"). */
export function phraseOf(e: ActivityEvent, nameOf: NameOf, actorId: string | null = actorOf(e), previous?: Data): Phrase {
  const who = (actorId && nameOf(actorId)) || 'Someone';
  const make = PHRASES[e.event];
  if (!make) return { text: `Something changed: ${e.event}`, href: e.project_id ? projectHref(e) : '/projects' };
  return make(e, { who, nameOf, previous });
}

/** A line in words: a single event's phrase, or "Rosa Crew uploaded 5 photos". */
export function phraseOfLine(line: ActivityLine, nameOf: NameOf): Phrase {
  const [first] = line.events;
  if (!first) return { text: '', href: '/projects' };
  const group = GROUPED[first.event];
  if (line.events.length === 1 || !group) return phraseOf(first, nameOf, line.actorId, line.previous);
  const who = (line.actorId && nameOf(line.actorId)) || 'Someone';
  const list = first.event.startsWith('task.') ? '/tasks' : first.event.startsWith('document.') ? '/documents' : '';
  return { text: `${who} ${group.verb} ${line.events.length} ${group.many}`, href: `${projectHref(first)}${list}` };
}

/** The items of a grouped line, each with its own link (photos with their thumbnails while the event's signed URL lasts). */
export function itemsOfLine(line: ActivityLine, now: number): LineItem[] {
  if (line.events.length < 2) return [];
  return line.events.map((e, i) => {
    const d = e.data;
    switch (e.event) {
      case 'photo.created': {
        const thumbnail = str(obj(d, 'variants'), 'thumbnail');
        return { label: str(d, 'caption') ?? `Photo ${i + 1} of ${line.events.length}`, href: photoHref(e), thumbnail: thumbnail && isFresh(e, now) ? thumbnail : null };
      }
      case 'video.created': return { label: str(d, 'caption') ?? `Video ${i + 1} of ${line.events.length}`, href: projectHref(e), thumbnail: null };
      case 'document.uploaded': return { label: str(d, 'name') ?? 'Document', href: documentHref(e), thumbnail: null };
      default: return { label: str(d, 'title') ?? 'Task', href: taskHref(e), thumbnail: null };
    }
  });
}

/** Events sign their URLs for 24 hours (EVENT_URL_TTL_SECONDS); an older thumbnail URL no longer works. */
const SIGNED_URL_LIFE_MS = 23 * 3600_000;
const isFresh = (e: ActivityEvent, now: number) => now - Date.parse(e.created_at) < SIGNED_URL_LIFE_MS;

/**
 * One project's events (newest first, as the API lists them) as lines: notifications left out, an
 * assignment credited to whoever its notification names, a crew change compared with the project
 * before it, and runs of alike events by one person grouped.
 */
export function linesOf(events: readonly ActivityEvent[]): ActivityLine[] {
  // The project as each project event found it: one pass from the oldest.
  const before = new Map<ActivityEvent, Data>();
  let project: Data | undefined;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!;
    if (!e.event.startsWith('project.')) continue;
    if (project) before.set(e, project);
    project = e.data;
  }
  const lines: ActivityLine[] = [];
  events.forEach((e, i) => {
    if (HIDDEN_EVENTS.has(e.event)) return;
    const actorId = e.event === 'task.assigned' ? assignerOf(events, i) : actorOf(e);
    const last = lines.at(-1);
    const lastEvent = last?.events.at(-1);
    if (last && lastEvent && GROUPED[e.event] && lastEvent.event === e.event && actorId !== null && last.actorId === actorId
      && Date.parse(lastEvent.created_at) - Date.parse(e.created_at) <= GROUP_GAP_MS) {
      last.events.push(e);
      return;
    }
    const line: ActivityLine = { events: [e], actorId };
    if (e.event === 'project.updated') line.previous = before.get(e);
    lines.push(line);
  });
  return lines;
}

/** The `notification.created` (kind task_assigned) emitted just after a `task.assigned` names who assigned it. */
function assignerOf(events: readonly ActivityEvent[], i: number): string | null {
  const taskId = str(events[i]!.data, 'id');
  for (let j = i - 1; j >= Math.max(0, i - 3); j--) {
    const n = events[j]!;
    if (n.event === 'task.assigned' && str(n.data, 'id') === taskId) return null; // a later assignment of the same task
    if (n.event === 'notification.created' && str(n.data, 'kind') === 'task_assigned' && str(obj(n.data, 'subject'), 'id') === taskId) {
      return str(n.data, 'actor_id');
    }
  }
  return null;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'always' });
const STEPS: Array<[Intl.RelativeTimeFormatUnit, number]> = [['minute', 60], ['hour', 3600], ['day', 86_400], ['week', 7 * 86_400], ['month', 30 * 86_400], ['year', 365 * 86_400]];

/** "just now", "5 minutes ago", "2 hours ago", "3 days ago". */
export function timeAgo(iso: string, now: number): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  let [unit, size] = STEPS[0]!;
  for (const [u, s] of STEPS) if (seconds >= s) [unit, size] = [u, s];
  return relative.format(-Math.max(1, Math.round(seconds / size)), unit);
}
