/**
 * When a failed delivery is tried again: pure functions, so the schedule, its jitter and the
 * Retry-After clamping can be tested without a clock or a database.
 *
 * After failed attempt n (1-based) the next one comes RETRY_DELAYS_MS[n - 1] later, ±20 % jitter
 * (none for the immediate retry); after attempt MAX_ATTEMPTS (11) the delivery has failed.
 */
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const RETRY_DELAYS_MS: readonly number[] = Object.freeze([
  0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 14 * HOUR, 20 * HOUR, 24 * HOUR,
]);

/** The first attempt plus one per retry. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

export const JITTER = 0.2;

/** A source of uniform numbers in [0, 1), like Math.random (injected by tests). */
export type RandomSource = () => number;

/**
 * The delay before the attempt after failed attempt `attempt` (1-based), jittered, or null when
 * that was the last one.
 */
export function scheduledDelayMs(attempt: number, random: RandomSource = Math.random): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer (got ${attempt})`);
  const base = RETRY_DELAYS_MS[attempt - 1];
  if (base === undefined) return null;
  if (base === 0) return 0;
  return Math.round(base * (1 + JITTER * (2 * random() - 1)));
}

/**
 * A Retry-After header (delay-seconds or an HTTP date) as milliseconds from `now`, or null when
 * absent or unreadable. A date in the past is 0.
 */
export function parseRetryAfter(value: string | readonly string[] | null | undefined, now: Date): number | null {
  const text = (Array.isArray(value) ? value[0] : value as string | null | undefined)?.trim();
  if (!text) return null;
  if (/^\d+$/.test(text)) {
    const seconds = Number(text);
    return Number.isSafeInteger(seconds) ? seconds * SECOND : null;
  }
  // IMF-fixdate, and the obsolete RFC 850 and asctime forms, all of which Date.parse reads.
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Retry-After moves the next attempt, but only between the scheduled delay and twice it. */
export function applyRetryAfter(scheduledMs: number, retryAfterMs: number | null): number {
  if (retryAfterMs === null) return scheduledMs;
  return Math.min(Math.max(retryAfterMs, scheduledMs), 2 * scheduledMs);
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/** What follows failed attempt `attempt`: another one after delayMs, or none (the delivery failed). */
export function nextAttempt(attempt: number, retryAfterMs: number | null, random: RandomSource = Math.random): RetryDecision {
  const scheduled = scheduledDelayMs(attempt, random);
  if (scheduled === null) return { retry: false };
  return { retry: true, delayMs: applyRetryAfter(scheduled, retryAfterMs) };
}
