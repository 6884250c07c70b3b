import { sql } from 'kysely';
import type { Db, Executor } from '../../db/database.ts';

/** A change as the stream serves it: `sub` orders the resources a visibility change expands into. */
export interface StreamItem {
  seq: number;
  sub: string;
  type: string;
  id: string;
  op: 'upsert' | 'delete';
}

export interface StreamCriteria {
  workspaceId: string;
  userId: string;
  /** Restricted users see only content of projects they created or are on the crew of. */
  restricted: boolean;
  /** The position after which to read: seq, and the sub-key within that seq's expansion ('' when all of it was read). */
  after: { seq: number; sub: string };
  /** A full sync's baseline: up to it, only live resources (no tombstones, no visibility changes). */
  baseline: number;
  /** Tombstones at or below it were already sent to this client; a revoke does not repeat them. */
  delivered: number;
  types: readonly string[];
  projectId: string | null;
  limit: number;
}

/**
 * The sync log (020_sync.sql): written by triggers, stamped with a per-workspace seq after
 * commit, read as one stream of resource changes plus the expansions of visibility changes.
 */
export class SyncRepository {
  /**
   * Gives every committed, unstamped change of the workspace the next seqs, in one short
   * transaction serialized on the workspace's head row. Rows of transactions still open are
   * invisible here (and rows they hold locked are skipped): they are stamped by a later call, so
   * they come after everything served so far, never behind a cursor. Returns the head.
   */
  async stamp(db: Db, workspaceId: string): Promise<{ lastSeq: number; horizon: number }> {
    const pending = await db.selectFrom('sync_changes').select(sql<number>`1`.as('one'))
      .where('workspace_id', '=', workspaceId).where('seq', 'is', null).limit(1).executeTakeFirst();
    if (!pending) return this.head(db, workspaceId);
    return db.transaction().execute(async (tx) => {
      await sql`insert into sync_heads (workspace_id) values (${workspaceId}) on conflict do nothing`.execute(tx);
      const head = await tx.selectFrom('sync_heads').select(['last_seq', 'horizon']).where('workspace_id', '=', workspaceId).forUpdate().executeTakeFirstOrThrow();
      // A new statement, so a new snapshot: it sees what the previous holder of the lock stamped.
      const { rows } = await sql<{ stamped: number }>`
        with locked as (
          select type, id, user_id, changed_at from sync_changes
           where workspace_id = ${workspaceId} and seq is null
           for update skip locked
        ), numbered as (
          -- a visibility change after the resource changes of its transaction
          select type, id, user_id, row_number() over (order by changed_at, type = 'access', type, id, user_id) as n from locked
        ), stamped as (
          update sync_changes c set seq = ${head.last_seq} + n.n
            from numbered n
           where c.workspace_id = ${workspaceId} and c.type = n.type and c.id = n.id and c.user_id = n.user_id
          returning 1
        )
        select count(*)::int as stamped from stamped`.execute(tx);
      const lastSeq = head.last_seq + rows[0]!.stamped;
      await tx.updateTable('sync_heads').set({ last_seq: lastSeq }).where('workspace_id', '=', workspaceId).execute();
      return { lastSeq, horizon: head.horizon };
    });
  }

  async head(db: Executor, workspaceId: string): Promise<{ lastSeq: number; horizon: number }> {
    const row = await db.selectFrom('sync_heads').select(['last_seq', 'horizon']).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return { lastSeq: row?.last_seq ?? 0, horizon: row?.horizon ?? 0 };
  }

  /**
   * The next `limit + 1` items after `c.after`, in (seq, sub) order:
   * - resource changes the caller can see now; during a full sync's baseline only live ones;
   *   a change followed by a visibility change of its project comes with that expansion instead;
   * - the caller's own visibility changes (after the baseline), each expanded into its project's
   *   resources: all of them as deletes for a revoke (none is served otherwise once the project is
   *   out of sight), those changed before it as they are for a grant (later ones come by themselves).
   */
  stream(db: Executor, c: StreamCriteria): Promise<StreamItem[]> {
    // A scope is a project id, or `unfiled:<uploader>` for an unfiled photo (022_photo_filing.sql).
    const visible = (column: ReturnType<typeof sql.ref>) => c.restricted
      ? sql`(${column} in (select id from projects where workspace_id = ${c.workspaceId} and created_by = ${c.userId})
             or ${column} in (select project_id from project_members where user_id = ${c.userId})
             or ${column} = ${`unfiled:${c.userId}`})`
      : sql`true`;
    const scoped = (alias: string) => sql`${sql.ref(`${alias}.type`)} = any(${c.types}::text[])
      and (${c.projectId}::text is null or ${sql.ref(`${alias}.project_id`)} = ${c.projectId})`;
    return sql<StreamItem>`
      select * from (
        select s.seq, '' as sub, s.type, s.id, s.op
          from sync_changes s
         where s.workspace_id = ${c.workspaceId} and s.type <> 'access' and s.seq > ${c.after.seq}
           -- a resource's own row (user '') or a delete of one's own: it left the caller's sight by moving
           and (s.user_id = '' or s.user_id = ${c.userId})
           and ${scoped('s')}
           and (s.project_id is null or ${visible(sql.ref('s.project_id'))})
           and (s.seq > ${c.baseline} or s.op = 'upsert')
           and (s.seq <= ${c.baseline} or s.project_id is null or not exists (
                 select 1 from sync_changes a
                  where a.workspace_id = ${c.workspaceId} and a.type = 'access' and a.user_id = ${c.userId}
                    and a.id = s.project_id and a.seq > s.seq))
        union all
        select a.seq, r.type || ':' || r.id as sub, r.type, r.id,
               case when a.op = 'revoke' then 'delete' else r.op end as op
          from sync_changes a
          join sync_changes r on r.workspace_id = a.workspace_id and r.project_id = a.id and r.type <> 'access' and r.user_id = ''
         where a.workspace_id = ${c.workspaceId} and a.type = 'access' and a.user_id = ${c.userId}
           and a.seq > ${c.baseline} and a.seq >= ${c.after.seq}
           -- an empty sub means all of that seq was served; otherwise resume inside its expansion
           and (a.seq > ${c.after.seq} or (${c.after.sub}::text <> '' and r.type || ':' || r.id > ${c.after.sub}::text))
           and r.seq is not null and (a.op = 'revoke' or r.seq < a.seq)
           and not (r.op = 'delete' and r.seq <= ${c.delivered})
           and ${scoped('r')}
      ) items
      order by seq, sub
      limit ${c.limit + 1}`.execute(db).then((r) => r.rows);
  }

  /**
   * Retention: deletes tombstones and visibility changes older than `cutoff`, a batch at a time,
   * and moves each workspace's horizon up to the highest seq deleted (cursors below it get 410).
   */
  async purgeBefore(db: Db, cutoff: Date, batchSize = 5000): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await sql<{ workspace_id: string; seq: number | null }>`
        with doomed as (
          select workspace_id, type, id, user_id from sync_changes
           where op in ('delete', 'revoke', 'grant') and changed_at < ${cutoff} and seq is not null
           limit ${batchSize}
        ), deleted as (
          delete from sync_changes c using doomed d
           where c.workspace_id = d.workspace_id and c.type = d.type and c.id = d.id and c.user_id = d.user_id
          returning c.workspace_id, c.seq
        ), horizons as (
          select workspace_id, max(seq) as seq from deleted group by workspace_id
        ), moved as (
          update sync_heads h set horizon = greatest(h.horizon, m.seq) from horizons m where h.workspace_id = m.workspace_id
        )
        select workspace_id, seq from deleted`.execute(db);
      total += rows.length;
      if (rows.length < batchSize) return total;
    }
  }
}
