import type { Selectable } from 'kysely';
import type { TagsTable } from '../../db/schema.ts';
import type { TagView } from './tags.schemas.ts';

export type TagRow = Selectable<TagsTable>;
export type { TagView };

/** A tag as projects and photos carry it (their `tags`, sorted by name). */
export interface TagSummary {
  id: string;
  name: string;
  color: string;
}

export const toTagView = (t: TagRow): TagView => ({
  id: t.id,
  name: t.name,
  color: t.color,
  created_by: t.created_by,
  created_at: t.created_at.toISOString(),
  updated_at: t.updated_at.toISOString(),
});

export const toTagSummary = (t: TagSummary): TagSummary => ({ id: t.id, name: t.name, color: t.color });

