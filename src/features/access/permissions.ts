import type { Role } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { forbidden } from '../../http/errors.ts';

/**
 * What each role may do to the content of a project it can see: one table, read by every
 * feature's service, and written out in docs/roles.md. Seeing the project comes first and is
 * ProjectAccess's job (a project the caller cannot see is a 404 before any of this); these rules
 * answer "may this role do that to this visible object" (no → 403).
 *
 * - `yes`: always;
 * - `own`: only on objects the actor made (uploaded the photo, created the task, wrote the comment);
 * - `no`: never.
 */
type Grant = 'yes' | 'own' | 'no';

export const PERMISSIONS = {
  // Projects (seeing one is visibility: projects.access.ts; everyone may create one)
  'project.edit': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'own', does: 'edit a project they did not create' },
  'project.manage_crew': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'change a project\'s crew' },
  'project.delete': { admin: 'yes', manager: 'yes', standard: 'no', restricted: 'no', does: 'delete projects' },
  // Photos and videos
  'media.change': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'own', does: 'change or delete photos and videos they did not upload' },
  // Documents
  'document.change': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'own', does: 'rename or delete documents they did not upload' },
  // Tags (the workspace's vocabulary; applying one follows the object it goes on)
  'tag.create': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'create tags' },
  'tag.edit': { admin: 'yes', manager: 'yes', standard: 'no', restricted: 'no', does: 'rename or recolour tags' },
  'tag.delete': { admin: 'yes', manager: 'yes', standard: 'no', restricted: 'no', does: 'delete tags' },
  // Tasks
  'task.create': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'create tasks' },
  'task.edit': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'edit tasks' },
  'task.assign': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'assign or reassign tasks' },
  'task.delete': { admin: 'yes', manager: 'yes', standard: 'own', restricted: 'no', does: 'delete tasks they did not create' },
  'task.complete': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'yes', does: 'complete or reopen tasks' },
  // Comments
  'comment.create': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'yes', does: 'comment' },
  'comment.edit': { admin: 'own', manager: 'own', standard: 'own', restricted: 'own', does: 'edit comments they did not write' },
  'comment.delete': { admin: 'yes', manager: 'yes', standard: 'own', restricted: 'own', does: 'delete comments they did not write' },
  // Reports
  'report.delete': { admin: 'yes', manager: 'yes', standard: 'own', restricted: 'own', does: 'delete reports they did not request' },
  // Share links (public pages of chosen photos or a report; seeing the project is enough to share it)
  'share_link.create': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'yes', does: 'share photos or reports by link' },
  'share_link.revoke': { admin: 'yes', manager: 'yes', standard: 'own', restricted: 'own', does: 'turn off share links they did not create' },
  // Exports (a ZIP of every original of a project: restricted users, often outside the company, may not make one)
  'export.create': { admin: 'yes', manager: 'yes', standard: 'yes', restricted: 'no', does: 'export photos' },
  'export.delete': { admin: 'yes', manager: 'yes', standard: 'own', restricted: 'own', does: 'delete exports they did not request' },
} as const satisfies Record<string, Record<Role, Grant> & { does: string }>;

export type Permission = keyof typeof PERMISSIONS;

export function may(actor: Pick<Actor, 'role' | 'userId'>, permission: Permission, ownerId?: string | null): boolean {
  const grant: Grant = PERMISSIONS[permission][actor.role];
  return grant === 'yes' || (grant === 'own' && ownerId !== undefined && ownerId !== null && ownerId === actor.userId);
}

/** 403 `forbidden` naming the role and the action, when the actor may not. */
export function assertMay(actor: Pick<Actor, 'role' | 'userId'>, permission: Permission, ownerId?: string | null): void {
  if (!may(actor, permission, ownerId)) forbidden(`Your role (${actor.role}) may not ${PERMISSIONS[permission].does}.`);
}
