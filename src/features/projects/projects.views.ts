import type { Selectable } from 'kysely';
import type { ProjectsTable } from '../../db/schema.ts';
import type { TagSummary } from '../tags/tags.views.ts';
import type { ProjectView } from './projects.schemas.ts';

/**
 * A project row as the repository reads it: the table's columns plus the crew, aggregated in the
 * same query, its tags (sorted by name), and the blob key of the cover photo's thumbnail.
 */
export type ProjectRow = Selectable<ProjectsTable> & { member_ids: string[]; tags: TagSummary[]; cover_thumbnail_key: string | null };
export type { ProjectView };

/** `coverThumbnailUrl`: the cover's thumbnail, signed (views are built synchronously; signing may not be). */
export const toProjectView = (p: ProjectRow, coverThumbnailUrl: string | null = null): ProjectView => ({
  id: p.id,
  name: p.name,
  description: p.description,
  status: p.status,
  address: {
    street_address_1: p.street_address_1,
    street_address_2: p.street_address_2,
    city: p.city,
    state: p.state,
    postal_code: p.postal_code,
    country: p.country,
  },
  coordinates: p.lat === null || p.lon === null ? null : { lat: p.lat, lon: p.lon },
  geofence: p.geofence,
  tags: p.tags,
  cover_photo_id: p.cover_photo_id,
  cover_photo: p.cover_photo_id !== null && coverThumbnailUrl !== null ? { id: p.cover_photo_id, thumbnail_url: coverThumbnailUrl } : null,
  member_ids: p.member_ids,
  created_by: p.created_by,
  created_at: p.created_at.toISOString(),
  updated_at: p.updated_at.toISOString(),
  archived_at: p.archived_at?.toISOString() ?? null,
});
