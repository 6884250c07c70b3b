import crypto from 'node:crypto';

/**
 * Secrets of browser sign-in: the session cookie's value, and the single-use tokens of invitation
 * and reset links. Each is 32 random bytes (base64url); only its SHA-256 is stored. The CSRF token
 * of a session is derived from the session's secret (so nothing more is stored, and
 * GET /v1/sessions/current can give it back), and compared in constant time.
 */
export const SESSION_COOKIE = 'jobsite_session';
const SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const newSecret = (): string => crypto.randomBytes(32).toString('base64url');
export const isWellFormedSecret = (value: string): boolean => SHAPE.test(value);
export const hashSecret = (secret: string): Buffer => crypto.createHash('sha256').update(secret).digest();

export const csrfTokenOf = (sessionSecret: string): string =>
  crypto.createHmac('sha256', sessionSecret).update('jobsite csrf').digest('base64url');

export function csrfTokenMatches(sessionSecret: string, given: string): boolean {
  const expected = Buffer.from(csrfTokenOf(sessionSecret));
  const actual = Buffer.from(given);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** The session secret from a Cookie header (the first `jobsite_session`), or null. */
export function sessionCookieOf(header: string | undefined): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    return part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
  }
  return null;
}

export interface CookieOptions {
  secure: boolean;
  maxAgeSeconds: number;
}

export function sessionCookie(secret: string, { secure, maxAgeSeconds }: CookieOptions): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

export const clearedSessionCookie = (secure: boolean): string =>
  `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
