import { sql } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { PhotoTimeSource, ReportSelection } from '../../db/schema.ts';
import { inSelection, userName } from '../reports/report-content.repository.ts';

/** A photo as an export lists it: where its original is, and what the manifests say about it. */
export interface ExportPhotoRow {
  id: string;
  blobKey: string;
  contentType: string;
  byteSize: number;
  sha256: string;
  width: number | null;
  height: number | null;
  caption: string | null;
  capturedAt: Date;
  capturedAtSource: PhotoTimeSource;
  /** Where it was taken (null on photos processed before migration 014). */
  capturedAtTimeZone: string | null;
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  uploader: { id: string; name: string; handle: string };
  tags: { id: string; name: string }[];
}

export interface ExportProjectRow {
  name: string;
  coordinates: { lat: number; lon: number } | null;
  workspaceTimeZone: string;
}

/** What an export reads, with SQL only (photos, tags and users belong to other features). */
export class ExportContentRepository {
  async project(db: Executor, projectId: string): Promise<ExportProjectRow | undefined> {
    const row = await db.selectFrom('projects as p').innerJoin('workspaces as w', 'w.id', 'p.workspace_id')
      .select(['p.name', 'p.lat', 'p.lon', 'w.time_zone']).where('p.id', '=', projectId).executeTakeFirst();
    if (!row) return undefined;
    return { name: row.name, coordinates: row.lat === null || row.lon === null ? null : { lat: row.lat, lon: row.lon }, workspaceTimeZone: row.time_zone };
  }

  /** The processed photos the selection names, in capture order (metadata only: the bytes are streamed one photo at a time). */
  async photos(db: Executor, projectId: string, s: ReportSelection): Promise<ExportPhotoRow[]> {
    const q = db.selectFrom('photos as ph').innerJoin('users as u', 'u.id', 'ph.creator_id')
      .select(['ph.id', 'ph.blob_key', 'ph.content_type', 'ph.byte_size', 'ph.sha256', 'ph.width', 'ph.height', 'ph.caption', 'ph.captured_at',
        'ph.captured_at_source', 'ph.captured_at_time_zone', 'ph.lat', 'ph.lon', 'ph.altitude', 'u.id as uploader_id', 'u.handle as uploader_handle'])
      .select(userName('u').as('uploader_name'))
      .select(sql<{ id: string; name: string }[]>`coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by lower(t.name), t.id)
        from photo_tags pt join tags t on t.id = pt.tag_id where pt.photo_id = ph.id), '[]'::json)`.as('tags'))
      .where(inSelection(projectId, s));
    const rows = await q.orderBy('ph.captured_at').orderBy('ph.id').execute();
    return rows.map((r) => ({
      id: r.id, blobKey: r.blob_key, contentType: r.content_type, byteSize: r.byte_size, sha256: r.sha256, width: r.width, height: r.height,
      caption: r.caption, capturedAt: r.captured_at, capturedAtSource: r.captured_at_source, capturedAtTimeZone: r.captured_at_time_zone,
      lat: r.lat, lon: r.lon, altitude: r.altitude,
      uploader: { id: r.uploader_id, name: r.uploader_name, handle: r.uploader_handle }, tags: r.tags,
    }));
  }
}
