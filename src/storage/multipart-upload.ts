import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, validationFailed, type FieldError } from '../http/errors.ts';
import { findUnsafeText } from '../http/text-input.ts';
import type { BlobStore } from './blob-store.ts';
import { tooLarge } from './intake.ts';

/** The text fields of a multipart form, by name (a field sent twice has two values). */
export type FormValues = Map<string, string[]>;

export interface MultipartUploadOptions<S extends { key: string }, F> {
  /** What is uploaded, for messages: `photo`, `video`, `document`. */
  what: string;
  maxBytes: number;
  /** The text fields the form may carry; any other is a 400. */
  fieldNames: ReadonlySet<string>;
  /** Stores the `file` part (intake()); `fields` are those that came before it. */
  receive(file: Readable, filename: string | undefined, fields: FormValues): Promise<S>;
  /** Checks the text fields once the whole form is read; push problems to `errors`. */
  parse(fields: FormValues, errors: FieldError[], filename: string | undefined): F;
}

/**
 * Reads a multipart/form-data upload as a stream: one part named `file` (handed to `receive`
 * while it arrives) and text fields, in any order. Unknown fields, a missing or second file and
 * bad values are 400s listing every problem; too large is a 413. On any refusal, what `receive`
 * stored is deleted again: nothing is left behind.
 */
export async function readMultipartUpload<S extends { key: string }, F>(
  req: FastifyRequest, blobs: BlobStore, options: MultipartUploadOptions<S, F>,
): Promise<{ stored: S; fields: F }> {
  const values: FormValues = new Map();
  const errors: FieldError[] = [];
  let stored: S | null = null;
  let filename: string | undefined;
  try {
    const fieldCount = options.fieldNames.size + 10;
    const parts = req.parts({
      limits: { fileSize: options.maxBytes + 1, files: 1, fields: fieldCount, fieldSize: 16 * 1024, parts: fieldCount + 1, headerPairs: 100 },
    });
    for await (const part of parts) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          errors.push({ path: `body.${part.fieldname}`, message: `unknown file field; send the ${options.what} as \`file\`` });
          continue;
        }
        const badName = findUnsafeText(part.filename, 'body.file');
        if (badName) errors.push({ ...badName, message: `its file name ${badName.message}` });
        filename = part.filename;
        stored = await options.receive(part.file, part.filename, values);
      } else if (!options.fieldNames.has(part.fieldname)) {
        errors.push({ path: `body.${part.fieldname}`, message: 'unknown field' });
      } else {
        const unsafe = findUnsafeText(String(part.value), `body.${part.fieldname}`);
        if (unsafe) errors.push(unsafe);
        else values.set(part.fieldname, [...(values.get(part.fieldname) ?? []), String(part.value)]);
      }
    }
    if (!stored) {
      if (errors.length) validationFailed(errors);
      throw new ApiError(400, 'missing_file', 'Missing file', `A multipart upload needs the ${options.what} in a part named \`file\`.`);
    }
    const fields = options.parse(values, errors, filename);
    if (errors.length) validationFailed(errors);
    return { stored, fields };
  } catch (err) {
    if (stored) await blobs.delete(stored.key).catch(() => undefined);
    throw translateMultipartError(err, options);
  }
}

/** @fastify/multipart's limit and format errors as our problems. */
function translateMultipartError(err: unknown, options: { what: string; maxBytes: number }): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code;
  const bad = (detail: string) => new ApiError(400, 'bad_request', 'Bad request', detail);
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(options.maxBytes);
  if (code === 'FST_FILES_LIMIT') return bad(`Send one ${options.what} per request, in the part named \`file\`.`);
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT') return bad('The form has too many fields.');
  if (code === 'FST_PROTO_VIOLATION') return bad('A field name is not allowed.');
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE' || code === 'FST_MP_PREMATURE_CLOSE') {
    return bad('The multipart body is malformed or was cut off.');
  }
  if (err instanceof Error && /Unexpected end of (form|multipart)|Malformed part header|boundary/i.test(err.message)) {
    return bad(`The multipart body is malformed: ${err.message}`);
  }
  return err;
}

/** Reading text form fields with the checks a JSON schema would give, reported under `body.<name>`. */
export class FormFields {
  constructor(private readonly values: FormValues, private readonly errors: FieldError[]) {}

  has(name: string): boolean {
    return this.values.has(name);
  }

  /** The field's value; a field given twice is an error. */
  single(name: string): string | undefined {
    const values = this.values.get(name);
    if (!values) return undefined;
    if (values.length > 1) this.errors.push({ path: `body.${name}`, message: 'must be given once' });
    return values[0];
  }

  /** Every value, each split on commas, trimmed, empty ones dropped (`tag_ids=a,b` or the field repeated). */
  list(name: string): string[] | undefined {
    const values = this.values.get(name);
    return values?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  }

  text(name: string, maxLength: number): string | undefined {
    const value = this.single(name);
    if (value !== undefined && value.length > maxLength) this.error(name, `must NOT have more than ${maxLength} characters`);
    return value;
  }

  number(name: string, min: number, max: number): number | undefined {
    const text = this.single(name);
    if (text === undefined) return undefined;
    const v = text.trim() === '' ? NaN : Number(text);
    if (!Number.isFinite(v) || v < min || v > max) {
      this.error(name, `must be a number from ${min} to ${max}`);
      return undefined;
    }
    return v;
  }

  timestamp(name: string): Date | undefined {
    const text = this.single(name);
    if (text === undefined) return undefined;
    const t = Date.parse(text);
    if (!RFC3339.test(text) || Number.isNaN(t)) {
      this.error(name, 'must be an RFC 3339 date-time, e.g. 2026-05-04T09:30:00Z');
      return undefined;
    }
    return new Date(t);
  }

  error(name: string, message: string): void {
    this.errors.push({ path: `body.${name}`, message });
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
