import Ajv, { type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import type { FieldError } from './errors.ts';

/**
 * Two validators: bodies are checked strictly as sent (no type coercion, unknown fields are an
 * error rather than silently dropped); query strings, params and headers arrive as text and are
 * coerced to the declared types.
 */
export function registerValidation(app: FastifyInstance): void {
  const common = { allErrors: false, useDefaults: true, removeAdditional: false, strict: false } as const;
  const bodyAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: false }));
  const textAjv = addFormats.default(new Ajv.default({ ...common, coerceTypes: 'array' }));
  for (const ajv of [bodyAjv, textAjv]) {
    ajv.addKeyword({ keyword: 'x-examples' });
  }
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Fastify/Ajv validation errors as `errors: [{path, message}]` with paths like `body.address.city`. */
export function toFieldErrors(errors: FastifySchemaValidationError[], context: string | undefined): FieldError[] {
  const part = PART_NAMES[context ?? 'body'] ?? context ?? 'body';
  return errors.map((e) => {
    const err = e as unknown as ErrorObject;
    const segments = (err.instancePath || '').split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = err.message ?? 'is invalid';
    if (err.keyword === 'required') {
      segments.push(String(err.params.missingProperty));
      message = 'is required';
    } else if (err.keyword === 'additionalProperties') {
      segments.push(String(err.params.additionalProperty));
      message = 'is not a known field';
    } else if (err.keyword === 'enum') {
      message = `must be one of: ${(err.params.allowedValues as unknown[]).join(', ')}`;
    }
    return { path: [part, ...segments].join('.'), message };
  });
}
