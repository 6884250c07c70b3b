import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/types.ts';
import { StringEnum } from '../http/schema-types.ts';
import type { FileRequest, FileResponse, FilesService } from './files.service.ts';

const tags = ['Files'];

const Segment = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });

const FileParams = Type.Object({
  kind: Segment('What the object is, e.g. `photos`.'),
  year: Segment('Year the object was stored.'),
  month: Segment('Month the object was stored.'),
  name: Segment('The object\'s random name, with `.<variant>` for a derived object (`.thumbnail`).'),
});

const FileQuery = Type.Object({
  expires: Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: 'Unix time (seconds) after which the link answers 403 `url_expired`.' }),
  sig: Type.String({ minLength: 1, maxLength: 128, description: 'base64url HMAC-SHA256 over the key, `expires` and the overrides below.' }),
  disposition: Type.Optional(StringEnum(['inline', 'attachment'] as const, { description: 'Sent as `Content-Disposition`.' })),
  filename: Type.Optional(Type.String({ maxLength: 255, description: 'File name for `Content-Disposition`.' })),
  type: Type.Optional(Type.String({ maxLength: 255, description: 'Served as `Content-Type` instead of the stored type.' })),
});

/** The request headers of every download (signed URLs, documents, reports). */
export const FileHeaders = Type.Object({
  range: Type.Optional(Type.String({ description: 'One byte range, e.g. `bytes=0-1023`, `bytes=1024-` or `bytes=-512`; several ranges, or a malformed header, get the whole object.' })),
  'if-range': Type.Optional(Type.String({ description: 'An `ETag`: honour `Range` only if the object still has it.' })),
  'if-none-match': Type.Optional(Type.String({ description: 'An `ETag` from an earlier response: 304 with no body if it matches.' })),
});

const problem = (description: string) => ({
  description, content: { 'application/problem+json': { schema: { $ref: 'Problem#' } } },
});

export const bytes = { type: 'string', format: 'binary' };

/** What a download route hands to FilesService: the method and the conditional and range headers. */
export const fileRequestOf = (req: FastifyRequest): FileRequest => ({
  method: req.method, range: req.headers.range, ifRange: req.headers['if-range'] as string | undefined,
  ifNoneMatch: req.headers['if-none-match'],
});

/** Sends what FilesService answered: status, headers, and the stream (none for HEAD and 304). */
export const sendFile = (reply: FastifyReply, served: FileResponse) => reply.code(served.status).headers(served.headers).send(served.body ?? undefined);
const objectHeaders = {
  'Content-Type': { type: 'string', description: 'The type stored with the object (or the signed `type`).' },
  'Content-Length': { type: 'integer' },
  ETag: { type: 'string', description: 'Strong: the object\'s SHA-256 in quotes.' },
  'Cache-Control': { type: 'string', description: '`private, max-age=<seconds until the link expires>`.' },
  'Accept-Ranges': { type: 'string', const: 'bytes' },
  'Content-Disposition': { type: 'string', description: 'When the link names a file name or disposition.' },
};

/**
 * `GET /v1/files/<key>`: the blob behind a signed URL the API handed out (photo `url`, variants,
 * video posters, downloads). Public, because the signature is the credential: such URLs must work
 * in an `<img>` tag without a bearer header. Not rate-limited per key (there is no key).
 */
export function fileRoutes(app: App, files: FilesService): void {
  // GET and HEAD declared together: Fastify's automatic HEAD route would announce Content-Length: 0.
  app.route({
    method: ['GET', 'HEAD'],
    url: '/v1/files/:kind/:year/:month/:name',
    config: { auth: false },
    schema: {
      tags,
      summary: 'Download a file through a signed URL',
      description: 'The URLs of photos, variants, posters and downloads point here when blobs are stored on the server\'s disk ' +
        '(with S3 storage they are presigned S3 URLs instead). No `Authorization`: the signature is the credential. Take these URLs ' +
        'from API responses as they are; they expire (`expires`), and changing any part of them invalidates the signature. ' +
        'Supports `HEAD`, `If-None-Match` and single byte ranges (video seeking).',
      security: [],
      params: FileParams,
      querystring: FileQuery,
      headers: FileHeaders,
      response: {
        200: { description: 'The object.', headers: objectHeaders, content: { '*/*': { schema: bytes } } },
        206: {
          description: 'The byte range asked for.',
          headers: { ...objectHeaders, 'Content-Range': { type: 'string', description: '`bytes <first>-<last>/<size>`.' } },
          content: { '*/*': { schema: bytes } },
        },
        304: { description: 'Not modified: `If-None-Match` matched the `ETag`.', type: 'null' },
        403: problem('`invalid_signature`: the link was altered or not issued here; `url_expired`: it is past `expires`.'),
        404: problem('`not_found`: the object was deleted.'),
        416: problem('`range_not_satisfiable`: the range starts beyond the end of the object; `Content-Range: bytes */<size>` gives the size.'),
      },
    },
    handler: async (req, reply) => {
      const { kind, year, month, name } = req.params;
      return sendFile(reply, await files.serve(`${kind}/${year}/${month}/${name}`, req.query, fileRequestOf(req)));
    },
  });
}
