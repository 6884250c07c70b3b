import type { FastifyInstance } from 'fastify';
import { ApiError, type FieldError } from './errors.ts';

/**
 * Text the API refuses wherever it arrives (JSON bodies, query strings, multipart fields): NUL, which PostgreSQL cannot store in text, and lone UTF-16 surrogates
 * (`"\ud800"` in JSON), which are not Unicode text and would be stored as U+FFFD. Checked once
 * here rather than in every schema, so no field can forget it.
 */
const UNSAFE_TEXT = /\u0000|\p{Cs}/u;

const problemWith = (text: string): string =>
  text.includes('\u0000') ? 'must not contain NUL (U+0000) characters' : 'must be valid Unicode text (it holds a lone surrogate, e.g. an unpaired \\ud800 escape)';

/** The first string (or object key) under `value` holding unsafe text, as a field error at `path`. */
export function findUnsafeText(value: unknown, path: string): FieldError | null {
  if (typeof value === 'string') return UNSAFE_TEXT.test(value) ? { path, message: problemWith(value) } : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnsafeText(value[i], `${path}.${i}`);
      if (found) return found;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSAFE_TEXT.test(key)) return { path: `${path}.${key.replace(UNSAFE_TEXT, '?')}`, message: `the field name ${problemWith(key)}` };
    const found = findUnsafeText(item, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

/** A 400 validation_failed naming the field when `value` holds unsafe text, else null. */
export function unsafeTextError(value: unknown, path: string): ApiError | null {
  const found = findUnsafeText(value, path);
  return found ? new ApiError(400, 'validation_failed', 'Validation failed', `${found.path} ${found.message}`, { errors: [found] }) : null;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes as UTF-8 text; anything else (a Latin-1 body, a truncated character) is a 400, never silently replaced. */
export function decodeUtf8(bytes: Uint8Array, what: string): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new ApiError(400, 'invalid_utf8', 'Bad request', `${what} is not valid UTF-8.`);
  }
}

const PERCENT_RUN = /(?:%[0-9A-Fa-f]{2})+/g;

/**
 * Percent-encoded bytes in a URL must decode as UTF-8: `%FF` or an encoded surrogate (`%ED%A0%80`)
 * would otherwise reach the handler as literal text (the query parser keeps what it cannot decode).
 */
export function checkUrlEncoding(url: string): void {
  if (!url.includes('%')) return;
  for (const [run] of url.matchAll(PERCENT_RUN)) {
    const bytes = Uint8Array.from(run.slice(1).split('%'), (hex) => parseInt(hex, 16));
    decodeUtf8(bytes, 'A percent-encoded part of the URL');
  }
}

/**
 * The URL's share of the rule: percent-encoding that is not UTF-8 (400 invalid_utf8) before
 * anything else runs, and NUL in a query parameter (400 validation_failed naming it) before the
 * route's own validation. Path parameters are ids: one holding NUL names nothing, so it is a 404
 * like any other id of the wrong shape (see docs/conventions.md).
 */
export function registerTextChecks(app: FastifyInstance): void {
  app.addHook('onRequest', async (req) => checkUrlEncoding(req.url));
  app.addHook('preValidation', async (req) => {
    const unsafe = unsafeTextError(req.query, 'query');
    if (unsafe) throw unsafe;
  });
}
