import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './database.ts';

/**
 * Kysely builds a query's tree and compiles it to SQL on every call: for a list read that is a
 * tenth of the API process's own work per request (bench/RESULTS.md, 2026-11-27). A hot query
 * whose clauses depend on a few choices (which filters are given) is better built once per
 * *shape* — the set of choices — with a named slot where each value goes, and then run with each
 * call's values in those slots.
 *
 * `build` receives slots (`slot('workspaceId')`) instead of values and may branch only on what
 * `shape` names. Every parameter of the compiled statement must be a slot: a value that reached
 * the builder some other way would be frozen into the statement for every later call, so the
 * first compile refuses it (an error, found by any test of that shape). A slot spliced into the
 * SQL text instead of bound holds a NUL, which PostgreSQL refuses: that fails loudly too.
 */
const SLOT_MARK = '\u0000slot:';

/** A placeholder for the value named `name`, typed as whatever the builder expects there. */
export const slot = <T = never>(name: string): T => `${SLOT_MARK}${name}` as T;

interface Shape {
  sql: string;
  /** The value names, in the statement's parameter order ($1, $2, …). */
  names: string[];
}

export class QueryShapes<Row> {
  private readonly shapes = new Map<string, Shape>();

  /** `maxShapes`: a bound on distinct shapes, past which new ones are built per call as before. */
  constructor(private readonly maxShapes = 256) {}

  /** Runs the statement of `shape` (built by `build` the first time) with `values` in its slots. */
  async execute(db: Executor, shape: string, build: () => Compilable<Row>, values: Readonly<Record<string, unknown>>): Promise<Row[]> {
    let compiled = this.shapes.get(shape);
    if (compiled === undefined) {
      compiled = compile(build());
      if (this.shapes.size < this.maxShapes) this.shapes.set(shape, compiled);
    }
    const parameters = new Array<unknown>(compiled.names.length);
    for (let i = 0; i < parameters.length; i++) {
      const name = compiled.names[i]!;
      if (!(name in values)) throw new Error(`QueryShapes: no value for the slot "${name}" of shape ${shape}`);
      parameters[i] = values[name];
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(compiled.sql, parameters));
    return result.rows;
  }
}

function compile(query: Compilable): Shape {
  const { sql, parameters } = query.compile();
  const names = parameters.map((p, i) => {
    if (typeof p !== 'string' || !p.startsWith(SLOT_MARK)) {
      throw new Error(`QueryShapes: parameter $${i + 1} of "${sql}" is a value, not a slot; it would be reused by every call`);
    }
    return p.slice(SLOT_MARK.length);
  });
  return { sql, names };
}
