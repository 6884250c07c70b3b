/** Header values a blob is served with, made safe to put in a response. */

const TOKEN = "[a-z0-9!#$%&'*+.^_`|~-]+";
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[ \\t]*;[ \\t]*${TOKEN}=(?:${TOKEN}|"[^"\\\\\\x00-\\x1f\\x7f]*"))*$`, 'i');

/** A syntactically valid media type (RFC 9110 §8.3.1), e.g. `image/jpeg` or `text/plain; charset=utf-8`. */
export function isMediaType(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 255 && MEDIA_TYPE.test(value);
}

/** A file name fit for Content-Disposition: 1..255 characters, no control characters or path separators. */
export function isFilename(value: unknown): value is string {
  // eslint-disable-next-line no-control-regex
  return typeof value === 'string' && value.length >= 1 && value.length <= 255 && !/[\x00-\x1f\x7f/\\]/.test(value);
}

/**
 * `inline; filename="fallback"; filename*=UTF-8''…` (RFC 6266): the quoted name is an ASCII stand-in
 * for old clients, the starred one the exact name for everyone else.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', filename?: string): string {
  if (filename === undefined) return disposition;
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
