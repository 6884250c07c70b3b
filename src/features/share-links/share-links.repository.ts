import { sql, type Insertable, type Selectable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { ShareLinksTable, StoredVariant } from '../../db/schema.ts';
import type { ProjectAccess } from '../projects/projects.access.ts';

/** A share link with its photos (ids in page order), read in one query. */
export type ShareLinkRow = Selectable<ShareLinksTable> & { photo_ids: string[] };

export type ShareLinkState = 'active' | 'expired' | 'revoked';

const photoIdsOf = sql<string[]>`coalesce((select array_agg(p.photo_id order by p.position) from share_link_photos p where p.share_link_id = s.id), '{}')`;

/** `active` now: not revoked, not past its expiry (the database's clock, as for the page). */
const stateIs = (state: ShareLinkState) => ({
  active: sql<boolean>`s.revoked_at is null and (s.expires_at is null or s.expires_at > now())`,
  expired: sql<boolean>`s.revoked_at is null and s.expires_at <= now()`,
  revoked: sql<boolean>`s.revoked_at is not null`,
}[state]);

export type PageLookup = { link: ShareLinkRow } | { gone: 'expired' | 'revoked' } | undefined;

export interface ShareLinkListCriteria {
  workspaceId: string;
  visibleProjects: ReturnType<ProjectAccess['visibleProjectIds']>;
  projectId?: string;
  state?: ShareLinkState;
  afterId: string | null;
  limit: number;
}

/** What the public page shows of one photo. */
export interface SharedPhotoRow {
  id: string;
  blob_key: string;
  content_type: string;
  variants: Record<string, StoredVariant>;
  caption: string | null;
  captured_at: Date;
  captured_at_time_zone: string | null;
  width: number | null;
  height: number | null;
}

export class ShareLinksRepository {
  get(db: Executor, workspaceId: string, id: string, lock = false): Promise<ShareLinkRow | undefined> {
    let q = db.selectFrom('share_links as s').selectAll('s').select(photoIdsOf.as('photo_ids'))
      .where('s.workspace_id', '=', workspaceId).where('s.id', '=', id);
    if (lock) q = q.forUpdate('s');
    return q.executeTakeFirst();
  }

  async insert(db: Executor, row: Insertable<ShareLinksTable>, photoIds: string[]): Promise<ShareLinkRow> {
    await db.insertInto('share_links').values(row).execute();
    if (photoIds.length > 0) {
      await db.insertInto('share_link_photos').values(photoIds.map((photoId, position) => ({ share_link_id: row.id, photo_id: photoId, position }))).execute();
    }
    return (await this.get(db, row.workspace_id, row.id))!;
  }

  /** Newest first, keyset on the id, bounded by the projects the caller can see. */
  list(db: Executor, c: ShareLinkListCriteria): Promise<ShareLinkRow[]> {
    let q = db.selectFrom('share_links as s').selectAll('s').select(photoIdsOf.as('photo_ids')).where('s.workspace_id', '=', c.workspaceId);
    if (c.visibleProjects !== null) q = q.where('s.project_id', 'in', c.visibleProjects);
    if (c.projectId !== undefined) q = q.where('s.project_id', '=', c.projectId);
    if (c.state !== undefined) q = q.where(stateIs(c.state));
    if (c.afterId !== null) q = q.where('s.id', '<', c.afterId);
    return q.orderBy('s.id', 'desc').limit(c.limit + 1).execute();
  }

  async revoke(db: Executor, id: string, userId: string): Promise<void> {
    await db.updateTable('share_links').set({ revoked_at: sql<Date>`now()`, revoked_by: userId }).where('id', '=', id).where('revoked_at', 'is', null).execute();
  }

  /**
   * Opening the page: counts the view and answers the link, in one statement, only while it is
   * active (`count: false` for HEAD); otherwise why it is gone, or undefined for an unknown token.
   */
  async open(db: Executor, tokenHash: Buffer, count: boolean): Promise<PageLookup> {
    if (count) {
      const counted = await db.updateTable('share_links as s')
        .set({ view_count: sql<number>`s.view_count + 1`, last_viewed_at: sql<Date>`now()` })
        .where('s.token_hash', '=', tokenHash).where(stateIs('active'))
        .returningAll().returning(photoIdsOf.as('photo_ids')).executeTakeFirst();
      if (counted) return { link: counted as ShareLinkRow };
    }
    const row = await db.selectFrom('share_links as s').selectAll('s').select(photoIdsOf.as('photo_ids'))
      .select(sql<ShareLinkState>`case when s.revoked_at is not null then 'revoked' when s.expires_at <= now() then 'expired' else 'active' end`.as('state'))
      .where('s.token_hash', '=', tokenHash).executeTakeFirst();
    if (!row) return undefined;
    const { state, ...link } = row;
    return state === 'active' ? { link } : { gone: state };
  }

  /** The shared photos still there and processed, in page order. */
  sharedPhotos(db: Executor, shareLinkId: string): Promise<SharedPhotoRow[]> {
    return db.selectFrom('share_link_photos as sp').innerJoin('photos as p', 'p.id', 'sp.photo_id')
      .select(['p.id', 'p.blob_key', 'p.content_type', 'p.variants', 'p.caption', 'p.captured_at', 'p.captured_at_time_zone', 'p.width', 'p.height'])
      .where('sp.share_link_id', '=', shareLinkId).where('p.processing_status', '=', 'processed')
      .orderBy('sp.position').execute() as Promise<SharedPhotoRow[]>;
  }

  projectName(db: Executor, projectId: string): Promise<string | undefined> {
    return db.selectFrom('projects').select('name').where('id', '=', projectId).executeTakeFirst().then((r) => r?.name);
  }

  /** The ids among `photoIds` that are not photos of the project. */
  async photosOutside(db: Executor, projectId: string, photoIds: string[]): Promise<string[]> {
    if (photoIds.length === 0) return [];
    // FOR SHARE: a photo cannot be deleted between this check and the insert that references it.
    const inside = await db.selectFrom('photos').select('id').where('project_id', '=', projectId).where('id', 'in', photoIds).forShare().execute();
    const found = new Set(inside.map((r) => r.id));
    return photoIds.filter((id) => !found.has(id));
  }
}
