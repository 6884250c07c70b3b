/**
 * @mentions in the browser, by the server's own rules (src/features/comments/comments.mentions.ts):
 * what is being typed after an `@`, who it may name, putting the chosen handle in, and which parts
 * of a shown comment are mentions.
 */
import { HANDLE_MAX_LENGTH, mentionSpans } from '../../../src/features/comments/comments.mentions.ts';
import { personName, type Person } from './commentsApi.ts';

/** An `@` and the handle characters typed after it, up to the caret. */
export interface MentionQuery {
  /** Index of the `@`. */
  at: number;
  /** What follows it up to the caret (may be empty). */
  text: string;
}

const HANDLE_CHAR = /[A-Za-z0-9_-]/;

/** The mention being typed at `caret`, or null when the caret is not right after `@` and handle characters. */
export function mentionQuery(value: string, caret: number): MentionQuery | null {
  let at = caret;
  while (at > 0 && caret - at <= HANDLE_MAX_LENGTH && HANDLE_CHAR.test(value.charAt(at - 1))) at--;
  if (at === 0 || value.charAt(at - 1) !== '@') return null;
  at--;
  const text = value.slice(at + 1, caret);
  if (text.length > HANDLE_MAX_LENGTH || text.startsWith('-')) return null;
  // Whether an `@` here may start a mention at all (not an e-mail address, URL or word): ask the server's rule.
  if (!mentionSpans(`${value.slice(0, at)}@a`).some((s) => s.index === at)) return null;
  return { at, text };
}

/** Up to `max` active people for `text`: handles starting with it first, then handles or names containing it. */
export function suggestPeople(people: Person[], text: string, excludeId: string | null, max = 8): Person[] {
  const q = text.toLowerCase();
  const candidates = people.filter((p) => p.status === 'active' && p.id !== excludeId);
  const starts = candidates.filter((p) => p.handle.toLowerCase().startsWith(q));
  const contains = q === '' ? [] : candidates.filter((p) => !starts.includes(p) &&
    (p.handle.toLowerCase().includes(q) || personName(p).toLowerCase().includes(q)));
  const byHandle = (a: Person, b: Person) => a.handle.localeCompare(b.handle);
  return [...starts.sort(byHandle), ...contains.sort(byHandle)].slice(0, max);
}

/**
 * `value` with the mention being typed replaced by `@handle ` (the rest of a handle the caret was in
 * goes too); the caret lands after the space.
 */
export function insertMention(value: string, query: MentionQuery, handle: string): { value: string; caret: number } {
  let end = query.at + 1 + query.text.length;
  while (end < value.length && HANDLE_CHAR.test(value.charAt(end))) end++;
  const rest = value.slice(end);
  const spaced = /^\s/.test(rest) ? rest : ` ${rest}`;
  const before = `${value.slice(0, query.at)}@${handle}`;
  return { value: before + spaced, caret: before.length + 1 };
}

export type BodySegment = { text: string; mention: boolean };

/** A comment's body cut into plain text and the mentions the API resolved (`mentions`); other `@words` stay plain. */
export function bodySegments(body: string, mentions: Array<{ handle: string }>): BodySegment[] {
  const known = new Set(mentions.map((m) => m.handle.toLowerCase()));
  const segments: BodySegment[] = [];
  let from = 0;
  for (const span of mentionSpans(body)) {
    if (!known.has(span.handle.toLowerCase())) continue;
    if (span.index > from) segments.push({ text: body.slice(from, span.index), mention: false });
    segments.push({ text: body.slice(span.index, span.index + span.length), mention: true });
    from = span.index + span.length;
  }
  if (from < body.length) segments.push({ text: body.slice(from), mention: false });
  return segments;
}
