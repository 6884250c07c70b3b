import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { FieldError } from './errors.ts';
import { NOT_BLANK, NOT_BLANK_LINE } from './schema-types.ts';
import { registerRequestShape } from './request-shape.ts';
import { registerTextChecks } from './text-input.ts';

/**
 * Two validators: bodies are checked strictly as sent (no type coercion, unknown fields are an
 * error rather than silently dropped); query strings, params and headers arrive as text and are
 * coerced to the declared types.
 */
/** Marks a JSON body schema of a route that also accepts multipart/form-data (see registerValidation). */
export const ALSO_MULTIPART = 'x-also-multipart';

/**
 * Also registers the rules every request meets whatever its route's schema says: text without
 * NUL or broken Unicode (text-input.ts), and no query, body or Accept a route does not declare
 * (request-shape.ts).
 */
export function registerValidation(app: FastifyInstance): void {
  registerTextChecks(app);
  registerRequestShape(app);
  // allErrors: a client fixes every field in one round trip; the answer lists at most MAX_FIELD_ERRORS.
  const common = { allErrors: true, useDefaults: true, removeAdditional: false, strict: false } as const;
  const bodyAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  for (const ajv of [bodyAjv, textAjv]) {
    ajv.addKeyword({ keyword: 'x-examples' });
    ajv.addKeyword({ keyword: ALSO_MULTIPART });
  }
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const validate = (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
    // A route that also takes multipart/form-data reads that body itself, as a stream: the
    // parser leaves no body, and the JSON schema applies only to JSON bodies.
    if (httpPart === 'body' && (schema as { [ALSO_MULTIPART]?: boolean })[ALSO_MULTIPART]) {
      // (Fastify hands a missing body to validators as null.)
      const either = (data: unknown) => data === undefined || data === null || validate(data);
      // Fastify reads `errors` from the function after a failed call: pass Ajv's through.
      return Object.defineProperty(either, 'errors', { get: () => validate.errors });
    }
    return validate;
  });
}

/** Readable words for the patterns of schema-types.ts (Ajv would quote the expression). */
const PATTERN_MESSAGES: Record<string, string> = {
  [NOT_BLANK]: 'must not be blank (only white space)',
  [NOT_BLANK_LINE]: 'must not be blank (only white space) or contain control characters such as tabs or line breaks',
};

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/**
 * A failed `anyOf`/`oneOf` (TypeBox unions: `string | null`, literal enums) makes Ajv report
 * every branch's error and then the union's own; fold them into one readable error: the
 * alternatives ("must be string or null", "must be one of: admin, manager") when every branch
 * failed on its type or constant, else the first specific error (e.g. a too-short string).
 */
function foldUnions(errors: ErrorObject[]): ErrorObject[] {
  const out: ErrorObject[] = [];
  for (const err of errors) {
    if (err.keyword !== 'anyOf' && err.keyword !== 'oneOf') {
      out.push(err);
      continue;
    }
    const prefix = `${err.schemaPath}/`;
    const branches: ErrorObject[] = [];
    for (let i = out.length - 1; i >= 0; i--) {
      if (out[i]!.schemaPath.startsWith(prefix)) branches.unshift(...out.splice(i, 1));
    }
    const alternatives = branches.map((b) =>
      b.instancePath !== err.instancePath ? null
        : b.keyword === 'const' ? String(b.params.allowedValue)
          : b.keyword === 'type' ? String(b.params.type).split(',').join(' or ')
            : null);
    const specific = branches.find((_, i) => alternatives[i] === null);
    if (specific) out.push(specific);
    else if (alternatives.length) {
      const hasConstants = branches.some((b) => b.keyword === 'const');
      out.push({ ...err, message: hasConstants ? `must be one of: ${alternatives.join(', ')}` : `must be ${alternatives.join(' or ')}` });
    } else out.push(err);
  }
  return out;
}

/** A body with thousands of bad items gets the first few problems, not a response as large as itself. */
export const MAX_FIELD_ERRORS = 20;

/** Fastify/Ajv validation errors as `errors: [{path, message}]` with paths like `body.address.city`. */
export function toFieldErrors(errors: FastifySchemaValidationError[], context: string | undefined): FieldError[] {
  const part = PART_NAMES[context ?? 'body'] ?? context ?? 'body';
  const folded = foldUnions(errors as unknown as ErrorObject[]);
  // An empty string fails both `minLength` and a not-blank pattern: one message is enough.
  const tooShort = new Set(folded.filter((e) => e.keyword === 'minLength').map((e) => e.instancePath));
  return folded.filter((e) => !(e.keyword === 'pattern' && tooShort.has(e.instancePath))).slice(0, MAX_FIELD_ERRORS).map((err) => {
    const segments = (err.instancePath || '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = err.message ?? 'is invalid';
    if (err.keyword === 'required') {
      segments.push(String(err.params.missingProperty));
      message = 'is required';
    } else if (err.keyword === 'additionalProperties') {
      segments.push(String(err.params.additionalProperty));
      message = 'is not a known field';
    } else if (err.keyword === 'type') {
      message = `must be ${String(err.params.type).split(',').join(' or ')}`; // `type: ['string', 'null']`
    } else if (err.keyword === 'pattern' && PATTERN_MESSAGES[String(err.params.pattern)]) {
      message = PATTERN_MESSAGES[String(err.params.pattern)]!;
    } else if (err.keyword === 'enum') {
      message = `must be one of: ${(err.params.allowedValues as unknown[]).map(String).join(', ')}`;
    } else if (err.keyword === 'type' && Array.isArray(err.params.type)) {
      message = `must be ${(err.params.type as string[]).join(' or ')}`;
    }
    return { path: [part, ...segments].join('.'), message };
  });
}
