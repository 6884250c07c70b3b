import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { StringEnum } from '../../http/schema-types.ts';

export const BODY_MAX = 10_000;

export const COMMENT_SUBJECT_TYPES = ['project', 'photo', 'task'] as const;

export const Mention = Type.Object({
  user_id: Type.String({ description: 'usr_…' }),
  handle: Type.String({ description: 'The user\'s handle as it was when the comment was written or last edited.' }),
}, { title: 'Mention' });

export const Comment = Type.Object({
  id: Type.String({ description: 'cmt_…' }),
  subject: Type.Object({
    type: StringEnum(COMMENT_SUBJECT_TYPES),
    id: Type.String({ description: 'The project (prj_…), photo (pho_…) or task (tsk_…) commented on.' }),
  }, { title: 'CommentSubject', description: 'What the comment is on.' }),
  project_id: Type.String({ description: 'The project of the subject (the subject itself for a project comment).' }),
  author_id: Type.String({ description: 'usr_… who wrote it.' }),
  body: Type.String({ description: `Plain text, 1..${BODY_MAX} characters; \`@handle\` mentions a user.` }),
  mentions: Type.Array(Mention, {
    description: 'The users the body mentions: active users of the workspace who can see the project, in the order first mentioned (at most 50). ' +
      'Unknown handles, deactivated users and users who cannot see the project stay plain text.',
  }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Comment' });
export type CommentView = Static<typeof Comment>;

const Body = Type.String({
  minLength: 1, maxLength: BODY_MAX,
  description: `1..${BODY_MAX} characters, not only white space. \`@handle\` mentions (and notifies) a user who can see the project.`,
});

export const CommentCreate = Type.Object({ body: Body }, { additionalProperties: false, title: 'CommentCreate' });
export type CommentCreateInput = Static<typeof CommentCreate>;

export const CommentPatch = Type.Object({ body: Type.Optional(Body) }, {
  additionalProperties: false, title: 'CommentPatch',
  description: 'Only the author edits a comment. Users newly mentioned by the edit are notified; those mentioned before are not notified again.',
});
export type CommentPatchInput = Static<typeof CommentPatch>;

export const CommentListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
}, { additionalProperties: false });
export type CommentListFilters = Static<typeof CommentListQuery>;

export const CommentIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'cmt_…' }) });
export const TaskIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'tsk_…' }) });
