import type { Readable } from 'node:stream';
import { isDatabaseUnavailable } from '../db/unavailable.ts';
import { ApiError } from '../http/errors.ts';
import type { BlobStore } from './blob-store.ts';
import { parseRange } from './byte-range.ts';
import { contentDisposition } from './headers.ts';
import { isBlobKey } from './keys.ts';
import type { FileUrlQuery } from './url-signer.ts';

export interface FileRequest {
  method: string;
  range?: string;
  ifRange?: string;
  ifNoneMatch?: string;
}

export interface FileResponse {
  status: 200 | 206 | 304;
  headers: Record<string, string>;
  /** The bytes to send; null for HEAD and 304. */
  body: Readable | null;
}

// User uploads are served from the API's origin: never let a browser sniff or run them as a page.
// PDFs keep the browser's viewer, which a sandboxed CSP would block.
const SANDBOX = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; sandbox";

export interface ServeOptions {
  cacheControl: string;
  /** Instead of the stored type. */
  contentType?: string;
  disposition?: 'inline' | 'attachment';
  filename?: string;
}

const etagListMatches = (header: string, etag: string) =>
  header.trim() === '*' || header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);

/**
 * Serves a blob behind a signed URL (`GET /v1/files/<key>?expires=…&sig=…`): signature first (in
 * constant time), then expiry, then the object, with validators, caching until the URL expires,
 * single byte ranges (video seeking) and HEAD.
 */
export class FilesService {
  constructor(private readonly blobs: BlobStore, private readonly now: () => number = Date.now) {}

  async serve(key: string, query: FileUrlQuery, req: FileRequest): Promise<FileResponse> {
    const check = await this.blobs.urlSigner.verify(key, query).catch((err: unknown) => {
      // The signing secret could not be read: the database is down (503 database_unavailable).
      if (isDatabaseUnavailable(err)) throw err;
      throw Object.assign(new ApiError(503, 'service_unavailable', 'Service unavailable', 'The link cannot be checked right now; try again shortly.'), { cause: err });
    });
    if (!check.ok) {
      throw check.code === 'url_expired'
        ? new ApiError(403, 'url_expired', 'Forbidden', 'This link has expired; ask the API for the object again to get a fresh one.')
        : new ApiError(403, 'invalid_signature', 'Forbidden', 'This link is not valid: it was changed or not issued by this server.');
    }
    const maxAge = Math.max(0, check.expires - Math.floor(this.now() / 1000));
    return this.serveObject(key, {
      cacheControl: `private, max-age=${maxAge}`, contentType: check.contentType,
      disposition: check.disposition, filename: check.filename,
    }, req);
  }

  /**
   * Sends an object with validators, single byte ranges and HEAD: behind a signed URL (serve), or
   * from an authenticated route that has already checked the caller (document and report downloads).
   */
  async serveObject(key: string, options: ServeOptions, req: FileRequest): Promise<FileResponse> {
    // Only ever signed for generated keys; refused here again before the store is asked.
    const info = isBlobKey(key) ? await this.blobs.head(key) : null;
    if (!info) throw new ApiError(404, 'not_found', 'Not found', 'The file no longer exists.');

    const headers: Record<string, string> = {
      etag: info.etag,
      'cache-control': options.cacheControl,
    };
    if (req.ifNoneMatch && etagListMatches(req.ifNoneMatch, info.etag)) return { status: 304, headers, body: null };

    const contentType = options.contentType ?? info.contentType;
    Object.assign(headers, {
      'accept-ranges': 'bytes',
      'content-type': contentType,
      'x-content-type-options': 'nosniff',
      ...(/^application\/pdf\b/i.test(contentType) ? {} : { 'content-security-policy': SANDBOX }),
      ...(options.disposition ? { 'content-disposition': contentDisposition(options.disposition, options.filename) } : {}),
    });

    // If-Range: the range holds only for the version named (strong comparison; a date never matches).
    const rangeApplies = req.range !== undefined && (req.ifRange === undefined || req.ifRange.trim() === info.etag);
    const wanted = parseRange(rangeApplies ? req.range : undefined, info.byteSize);
    if (wanted.kind === 'unsatisfiable') {
      throw new ApiError(416, 'range_not_satisfiable', 'Range not satisfiable',
        `The object has ${info.byteSize} bytes; the range asked for lies outside it.`, {}, { 'content-range': `bytes */${info.byteSize}` });
    }
    const range = wanted.kind === 'range' ? wanted.range : undefined;
    headers['content-length'] = String(range ? range.end - range.start + 1 : info.byteSize);
    if (range) headers['content-range'] = `bytes ${range.start}-${range.end}/${info.byteSize}`;
    const status = range ? 206 : 200;
    if (req.method === 'HEAD') return { status, headers, body: null };

    const object = await this.blobs.get(key, range ? { range } : {});
    if (!object) throw new ApiError(404, 'not_found', 'Not found', 'The file no longer exists.');
    return { status, headers, body: object.stream };
  }
}
