import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, Nullable, StringEnum } from '../../http/schema-types.ts';

export const TAG_NAME_MAX = 50;
export const DEFAULT_TAG_COLOR = '#808080';

// No control characters (names show in pickers and lists; PostgreSQL text cannot hold NUL), and
// not only whitespace: the name is stored trimmed and must keep at least one character.
const TagName = NonBlankString({
  line: true, maxLength: TAG_NAME_MAX,
  description: `1..${TAG_NAME_MAX} characters, not only whitespace, no control characters; stored trimmed. Unique per workspace regardless of case ("Roof" and "roof" are the same name).`,
});
const TagColor = Type.String({
  pattern: '^#[0-9A-Fa-f]{6}$',
  description: '`#rrggbb` (hex); stored and returned in lowercase.',
});

export const Tag = Type.Object({
  id: Type.String({ description: 'tag_…' }),
  name: Type.String(),
  color: Type.String({ description: '`#rrggbb`, lowercase.' }),
  created_by: Nullable(Type.String({ description: 'The user who created the tag (null once that user is gone).' })),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Tag' });
export type TagView = Static<typeof Tag>;

export const TagCreate = Type.Object({
  name: TagName,
  color: Type.Optional(TagColor),
}, { additionalProperties: false, title: 'TagCreate', description: `A new tag of the workspace. \`color\` defaults to \`${DEFAULT_TAG_COLOR}\`.` });
export type TagCreateInput = Static<typeof TagCreate>;

export const TagPatch = Type.Object({
  name: Type.Optional(TagName),
  color: Type.Optional(TagColor),
}, { additionalProperties: false, title: 'TagPatch', description: 'Merge patch: a missing field is unchanged.' });
export type TagPatchInput = Static<typeof TagPatch>;

export const TagSort = StringEnum(['name', 'created_at'], {
  default: 'name',
  description: '`name` (A→Z, case-insensitively; the default, as pickers show them) or `created_at` (newest first). A cursor works only with the sort it came from.',
});

export const TagListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
  q: Type.Optional(Type.String({ maxLength: TAG_NAME_MAX, pattern: '^[^\\u0000]*$', description: 'Case-insensitive substring of the name.' })),
  sort: Type.Optional(TagSort),
}, { additionalProperties: false });
export type TagListFilters = Static<typeof TagListQuery>;

/** Any text: an id of the wrong shape is simply not found (404), like another workspace's. */
export const TagIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'tag_…' }) });

/** `PUT, DELETE /v1/{projects|photos}/{id}/tags/{tag_id}`. */
export const TaggingParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'prj_… or pho_…' }),
  tag_id: Type.String({ maxLength: 100, description: 'tag_…' }),
});
