import type { Db } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { ApiError } from '../../http/errors.ts';
import { SYNC_DEFAULT_LIMIT, SYNC_TYPES, type SyncChangeView, type SyncFilters, type SyncPageView, type SyncType } from './sync.schemas.ts';
import { SyncRepository, type StreamItem } from './sync.repository.ts';

/** How long deletes (tombstones) and visibility changes are kept; older cursors get 410. */
export const SYNC_RETENTION_DAYS = 30;

/** Reads one resource exactly as its own GET does (with that GET's access check). */
export type SyncSources = Record<SyncType, (actor: Actor, id: string) => Promise<NonNullable<SyncChangeView['object']>>>;

/**
 * Where a client stands: after (s, k) of the stream; `b`, a full sync's baseline; `d`, the seq up
 * to which tombstones were delivered when the page ended inside a visibility change's expansion.
 * Bound to the workspace and user it was issued to (visibility is theirs).
 */
interface SyncCursor { w: string; u: string; s: number; k: string; b: number; d: number }

/** How many resources a page reads at once (each is its GET's own query). */
const READ_CONCURRENCY = 8;

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

  /** Upserts get their object; one gone (or out of sight) since the log was read is a delete. */
  private async materialize(actor: Actor, items: StreamItem[]): Promise<SyncChangeView[]> {
    const out: SyncChangeView[] = new Array(items.length);
    let nextIndex = 0;
    const worker = async () => {
      for (let i = nextIndex++; i < items.length; i = nextIndex++) {
        const item = items[i]!;
        const change = { seq: item.seq, type: item.type as SyncType, id: item.id };
        out[i] = item.op === 'delete' ? { ...change, op: 'delete' } : await this.read(actor, change);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, items.length) }, worker));
    return out;
  }

  private async read(actor: Actor, change: { seq: number; type: SyncType; id: string }): Promise<SyncChangeView> {
    try {
      return { ...change, op: 'upsert', object: await this.sources[change.type](actor, change.id) };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return { ...change, op: 'delete' };
      throw err;
    }
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
