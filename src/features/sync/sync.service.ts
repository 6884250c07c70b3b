import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { ApiError } from '../../http/errors.ts';
import { SYNC_DEFAULT_LIMIT, SYNC_TYPES, type SyncChangeView, type SyncFilters, type SyncPageView, type SyncType } from './sync.schemas.ts';
import { SyncRepository, type StreamItem } from './sync.repository.ts';

/** How long deletes (tombstones) and visibility changes are kept; older cursors get 410. */
export const SYNC_RETENTION_DAYS = 30;

type SyncObject = NonNullable<SyncChangeView['object']>;

/**
 * Reads a page's resources of one type at once, each exactly as its own GET returns it (with that
 * GET's access check), in any order; an id left out is one the caller cannot see (or gone).
 * Wired where the app composes its features (src/app.ts), so sync imports none of them.
 */
export type SyncSources = Record<SyncType, (actor: Actor, ids: string[]) => Promise<SyncObject[]>>;

/**
 * Where a client stands: after (s, k) of the stream; `b`, a full sync's baseline; `d`, the seq up
 * to which tombstones were delivered when the page ended inside a visibility change's expansion.
 * Bound to the workspace and user it was issued to (visibility is theirs).
 */
interface SyncCursor { w: string; u: string; s: number; k: string; b: number; d: number }

/**
 * GET /v1/sync: every change to every resource the caller can see, in the order the changes
 * committed, as upserts (with the object as its GET returns it now) and deletes. See
 * docs/sync.md for the guarantees and docs/decisions.md "### Sync" for why it is built this way.
 */
export class SyncService {
  private readonly log = new SyncRepository();

  constructor(private readonly db: Db, private readonly sources: SyncSources) {}

  async changes(actor: Actor, filters: SyncFilters): Promise<SyncPageView> {
    const given = filters.cursor === undefined ? null : decodeSyncCursor(filters.cursor, actor);
    const head = await this.log.stamp(this.db, actor.workspaceId);
    if (given && Math.max(given.s, given.b) < head.horizon) {
      throw new ApiError(410, 'sync_cursor_expired', 'Gone',
        `This cursor is older than the deletes kept (${SYNC_RETENTION_DAYS} days). Sync again without a cursor and replace what you stored.`);
    }
    const at: SyncCursor = given ?? { w: actor.workspaceId, u: actor.userId, s: 0, k: '', b: head.lastSeq, d: 0 };
    const delivered = at.k === '' ? at.s : at.d;
    const limit = filters.limit ?? SYNC_DEFAULT_LIMIT;
    const rows = await this.log.stream(this.db, {
      workspaceId: actor.workspaceId,
      userId: actor.userId,
      restricted: actor.role === 'restricted',
      after: { seq: at.s, sub: at.k },
      baseline: at.b,
      delivered,
      types: filters.types === undefined ? SYNC_TYPES : [...new Set(filters.types.split(','))],
      projectId: filters.project_id ?? null,
      limit,
    });
    const hasMore = rows.length > limit;
    const items = hasMore ? rows.slice(0, limit) : rows;
    const last = items.at(-1);
    // On the last page the cursor moves to the head, so changes the caller cannot see do not hold it back.
    const next: SyncCursor = hasMore && last
      ? { ...at, s: last.seq, k: last.sub, d: last.sub === '' ? 0 : delivered }
      : { ...at, s: Math.max(at.s, last?.seq ?? 0, head.lastSeq), k: '', d: 0 };
    if (next.s >= next.b) next.b = 0;
    return { changes: await this.materialize(actor, items), next_cursor: encodeSyncCursor(next), has_more: hasMore };
  }

  /**
   * Upserts get their object, read a type at a time (one statement per type on the page, not a
   * GET per object); one gone (or out of sight) since the log was read is a delete.
   */
  private async materialize(actor: Actor, items: StreamItem[]): Promise<SyncChangeView[]> {
    const wanted = new Map<SyncType, string[]>();
    for (const item of items) {
      if (item.op !== 'upsert') continue;
      const ids = wanted.get(item.type as SyncType);
      if (ids) ids.push(item.id);
      else wanted.set(item.type as SyncType, [item.id]);
    }
    const objects = new Map<string, SyncObject>();
    await Promise.all([...wanted].map(async ([type, ids]) => {
      for (const object of await this.sources[type](actor, ids)) objects.set(`${type}:${object.id}`, object);
    }));
    return items.map((item) => {
      const change = { seq: item.seq, type: item.type as SyncType, id: item.id };
      const object = item.op === 'upsert' ? objects.get(`${item.type}:${item.id}`) : undefined;
      return object === undefined ? { ...change, op: 'delete' } : { ...change, op: 'upsert', object };
    });
  }
}

function encodeSyncCursor(c: SyncCursor): string {
  return Buffer.from(JSON.stringify({ v: 1, ...c })).toString('base64url');
}

function decodeSyncCursor(cursor: string, actor: Actor): SyncCursor {
  try {
    const c = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Record<string, unknown>;
    const seqs = [c.s, c.b, c.d].every((n) => Number.isSafeInteger(n) && (n as number) >= 0);
    if (c.v === 1 && seqs && c.w === actor.workspaceId && c.u === actor.userId && typeof c.k === 'string' && c.k.length <= 200 && !c.k.includes('\0')) {
      return { w: c.w, u: c.u, s: c.s as number, k: c.k, b: c.b as number, d: c.d as number };
    }
  } catch { /* fall through */ }
  throw new ApiError(400, 'invalid_cursor', 'Bad request', 'The cursor is not one GET /v1/sync issued to you.',
    { errors: [{ path: 'query.cursor', message: 'is not a sync cursor issued to this user' }] });
}

/** The daily retention task: deletes tombstones and visibility changes older than SYNC_RETENTION_DAYS. */
export function purgeExpiredSyncChanges(db: Db, now = new Date()): Promise<number> {
  return new SyncRepository().purgeBefore(db, new Date(now.getTime() - SYNC_RETENTION_DAYS * 86_400_000));
}
