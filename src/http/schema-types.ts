import { Type, type Static, type StringOptions, type TSchema, type TString, type TUnsafe } from '@sinclair/typebox';

/**
 * Schema builders for the shapes TypeBox would otherwise express with `anyOf`. A `type` array
 * (`['string', 'null']`) and an `enum` are what OpenAPI 3.1 readers expect, give validation
 * errors that name the allowed values, and — unlike `anyOf`, which fast-json-stringify resolves
 * by running a validator on every value — serialize at full speed.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const type = (schema as { type?: unknown }).type;
  if (typeof type !== 'string') throw new Error('Nullable() needs a schema with a single `type`.');
  // An `enum` restricts values whatever `type` says: it must list null too, or null is refused.
  const values = (schema as { enum?: unknown[] }).enum;
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [type, 'null'], ...(values ? { enum: [...values, null] } : {}) });
}

/** One of a fixed set of strings: `{type: 'string', enum: [...]}`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** Patterns of text that must say something; validation.ts words their errors ("must not be blank"). */
export const NOT_BLANK = '\\S';
export const NOT_BLANK_LINE = '^[^\\u0000-\\u001F\\u007F]*[^\\u0000-\\u001F\\u007F\\s][^\\u0000-\\u001F\\u007F]*$';

/**
 * A name or title that must say something: at least one character that is not white space
 * (`"   "` is a 400, as `""` is). `line: true` also refuses control characters (tabs, line
 * breaks) in what shows as one line: names in pickers and lists. (NUL is refused everywhere: text-input.ts.)
 */
export function NonBlankString(options: StringOptions & { line?: boolean } = {}): TString {
  const { line, ...rest } = options;
  return Type.String({ minLength: 1, ...rest, pattern: line ? NOT_BLANK_LINE : NOT_BLANK });
}
