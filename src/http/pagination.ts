import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiError } from './errors.ts';
import { addRouteHook } from './route-hooks.ts';
import { Nullable } from './schema-types.ts';

/**
 * Keyset pagination. A cursor names the last row a page returned by its sort key values and
 * id, so rows inserted or deleted during a scan never make another row be skipped or repeated.
 * Cursors are opaque (base64url JSON) and bound to the sort they were issued for.
 */
export const PageQuery = {
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 50, description: 'Page size, 1..100.' }),
  cursor: Type.String({ minLength: 1, maxLength: 1000, description: 'The `next_cursor` of the previous page.' }),
};

export const Page = <T extends TSchema>(item: T, name: string) => Type.Object({
  data: Type.Array(item),
  has_more: Type.Boolean(),
  next_cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null on the last page.' })),
}, { title: name });

export interface PageOf<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export type CursorValue = string | number | null;

export function encodeCursor(sort: string, values: CursorValue[]): string {
  return Buffer.from(JSON.stringify({ s: sort, v: values })).toString('base64url');
}

/**
 * The key values a cursor carries, or null without one. `valid` lets a list check the values'
 * types (e.g. a timestamp) so a forged cursor is a 400, never a database error.
 */
export function decodeCursor(cursor: string | undefined, sort: string, arity: number, valid?: (values: CursorValue[]) => boolean): CursorValue[] | null {
  if (cursor === undefined) return null;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { s?: unknown; v?: unknown };
    if (parsed.s === sort && Array.isArray(parsed.v) && parsed.v.length === arity &&
      // PostgreSQL text cannot hold NUL, so a forged value with one would fail in the query.
      parsed.v.every((x) => x === null || (typeof x === 'string' && !x.includes('\0')) || (typeof x === 'number' && Number.isFinite(x))) &&
      (valid === undefined || valid(parsed.v as CursorValue[]))) {
      return parsed.v as CursorValue[];
    }
  } catch { /* fall through */ }
  throw new ApiError(400, 'invalid_cursor', 'Bad request', 'The cursor is not one this list issued (with this sort).',
    { errors: [{ path: 'query.cursor', message: 'is not a valid cursor for this list and sort' }] });
}

/**
 * Turns `limit + 1` fetched rows into a page. `keyOf` gives the sort key values of a row,
 * in the order the query sorts by (the last one being the unique id).
 */
export function toPage<Row, Item>(rows: Row[], limit: number, sort: string, keyOf: (row: Row) => CursorValue[], view: (row: Row) => Item): PageOf<Item> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(view),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? encodeCursor(sort, keyOf(last)) : null,
  };
}

/** Adds `Link: <…>; rel="next"` to every list response that has a next page. */
export function registerPageLinks(app: FastifyInstance, publicUrl: string): void {
  const answersWithPages = (route: RouteOptions) =>
    Boolean((route.schema?.response as Record<string, { properties?: Record<string, unknown> }> | undefined)?.[200]?.properties?.next_cursor);
  addRouteHook(app, 'preSerialization', answersWithPages, async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const page = payload as Partial<PageOf<unknown>> | null;
    if (page && typeof page === 'object' && page.has_more === true && typeof page.next_cursor === 'string') {
      reply.header('link', `<${publicUrl}${nextPageTarget(req.url, page.next_cursor)}>; rel="next"`);
    }
    return payload;
  });
}

/**
 * A path and query that URL parsing and URLSearchParams serialization give back unchanged: word
 * characters in the path, and `name=value` pairs of characters the form encoding leaves alone.
 */
const PLAIN_TARGET = /^\/[\w-]+(?:\/[\w-]+)*\/?(?:\?[\w.*-]+=[\w.*-]*(?:&[\w.*-]+=[\w.*-]*)*)?$/;
const HAS_CURSOR = /[?&]cursor=/;

/**
 * The request's path and query with `cursor` set to the next page's (base64url: nothing to
 * escape). The common request needs no URL parsing; any other goes through URL and
 * URLSearchParams, which normalize it.
 */
export function nextPageTarget(target: string, cursor: string): string {
  if (PLAIN_TARGET.test(target) && !HAS_CURSOR.test(target)) return `${target}${target.includes('?') ? '&' : '?'}cursor=${cursor}`;
  const url = new URL(target, 'http://localhost');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
}

