import type { Selectable } from 'kysely';
import type { ProjectsTable } from '../../db/schema.ts';
import type { ProjectView } from './projects.schemas.ts';

/** A project row as the repository reads it: the table's columns plus the crew, aggregated in the same query. */
export type ProjectRow = Selectable<ProjectsTable> & { member_ids: string[] };
export type { ProjectView };

export const toProjectView = (p: ProjectRow): ProjectView => ({
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
  // Tags and cover photos arrive with their features; the fields are in the contract already.
  tags: [],
  cover_photo_id: null,
  cover_photo: null,
  member_ids: p.member_ids,
  created_by: p.created_by,
  created_at: p.created_at.toISOString(),
  updated_at: p.updated_at.toISOString(),
  archived_at: p.archived_at?.toISOString() ?? null,
});
