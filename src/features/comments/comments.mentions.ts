/**
 * Finding `@handle` mentions in a comment's body: a pure function (no database), so every rule
 * of what counts as a mention is tested on its own (test/mentions.test.ts). Which of the handles
 * found name a user who may be mentioned is the repository's question (CommentsRepository.audience).
 *
 * Handles (users.schemas.ts) are 1..39 of `A-Z a-z 0-9 _ -`, neither starting nor ending with
 * `-`, unique per workspace case-insensitively. So, in a body:
 *
 * - `@` must not follow a letter, digit or a character an e-mail address or URL path may have
 *   right before its `@` (`rita@example.com`, `https://x.test/@rita`, `a.@b`): those are not mentions (brackets,
 *   quotes, `|` and `:` before it are fine: `(@rita)`, `{@rita}`, `cc:@rita`);
 * - the handle is the longest run of handle characters after the `@`; trailing `-` are punctuation
 *   (`@rita-` mentions rita), as is anything else that cannot be in a handle (`@rita,` `@rita.` `(@rita)`);
 * - a run longer than 39 characters, one that starts with `-`, or one followed by another `@`
 *   (`@rita@example.com`) or by a letter no handle may hold (`@ritaé`) is not a mention;
 * - the same handle twice, in any case, is one mention; the first spelling is kept, in the order of
 *   first appearance.
 */

export const HANDLE_MAX_LENGTH = 39;

/** At most this many users are mentioned (and notified) by one comment; further handles stay plain text (as on GitHub). */
export const MAX_MENTIONS_PER_COMMENT = 50;

const HANDLE_RUN = /@([A-Za-z0-9_-]+)/g;
/** Characters that, right before `@`, make it part of an e-mail address, URL or word rather than a mention. */
const NOT_BEFORE = /[\p{L}\p{N}\p{M}!#$%&*+\-/=?^_`~.@\\]/u;
/** Characters that, right after the handle, make it part of something longer than a handle. */
const NOT_AFTER = /[\p{L}\p{N}\p{M}@]/u;

/** The handles `body` mentions, deduplicated case-insensitively, in the order they first appear. */
export function mentionedHandles(body: string): string[] {
  const found = new Map<string, string>();
  for (const { handle } of mentionSpans(body)) {
    const key = handle.toLowerCase();
    if (!found.has(key)) found.set(key, handle);
  }
  return [...found.values()];
}

/**
 * Every mention in `body`, repeats included, in order: where its `@` is and how long `@handle` is
 * (trailing `-` not counted). The web app uses it to highlight mentions by the same rules.
 */
export function mentionSpans(body: string): Array<{ index: number; length: number; handle: string }> {
  const spans: Array<{ index: number; length: number; handle: string }> = [];
  for (const match of body.matchAll(HANDLE_RUN)) {
    const at = match.index;
    const run = match[1]!;
    const before = at > 0 ? charBefore(body, at) : '';
    if (before !== '' && NOT_BEFORE.test(before)) continue;
    const after = charAt(body, at + 1 + run.length);
    if (after !== '' && NOT_AFTER.test(after)) continue;
    const handle = run.replace(/-+$/, '');
    if (handle === '' || handle.startsWith('-') || handle.length > HANDLE_MAX_LENGTH) continue;
    spans.push({ index: at, length: 1 + handle.length, handle });
  }
  return spans;
}

/** The whole code point before index `i` (a letter outside the BMP is two UTF-16 units). */
function charBefore(text: string, i: number): string {
  const low = text.charCodeAt(i - 1);
  if (i >= 2 && low >= 0xdc00 && low <= 0xdfff) return text.slice(i - 2, i);
  return text.charAt(i - 1);
}

function charAt(text: string, i: number): string {
  const cp = text.codePointAt(i);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}
