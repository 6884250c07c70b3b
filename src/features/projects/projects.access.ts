import type { Executor } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound } from '../../http/errors.ts';
import { assertMay, may, type Permission } from '../access/permissions.ts';
import { isId } from '../../ids.ts';
import { ProjectsRepository } from './projects.repository.ts';
import type { ProjectRow } from './projects.views.ts';

/**
 * Who may see and do what on a project (the table in docs/roles.md). Features that hang content
 * off a project (photos, tasks, comments, documents) ask here first, so the rule lives once.
 *
 * - `view`: see the project and its content. Everyone but restricted users sees every project of
 *   the workspace; restricted users see only projects they created or are on the crew of.
 * - `contribute`: add content (photos, tasks, comments) — anyone who can see the project.
 * - `edit`: PATCH, archive, restore — admin, manager, standard; restricted only their own projects.
 * - `manage_crew`: add or remove members — admin, manager, standard.
 * - `delete`: delete the project — admin and manager.
 *
 * A project the caller cannot see answers 404 (exactly like a missing one or another workspace's);
 * a visible project the caller may not act on answers 403.
 */
export type ProjectAction = 'view' | 'contribute' | 'edit' | 'manage_crew' | 'delete';

/** The facts an access decision rests on. */
export interface ProjectAccessFacts {
  id: string;
  status: 'active' | 'archived';
  created_by: string;
  is_member: boolean;
}

export const accessFactsOf = (row: ProjectRow, actor: Actor): ProjectAccessFacts => ({
  id: row.id, status: row.status, created_by: row.created_by, is_member: row.member_ids.includes(actor.userId),
});

export function canSeeProject(actor: Actor, project: ProjectAccessFacts): boolean {
  return actor.role !== 'restricted' || project.created_by === actor.userId || project.is_member;
}

/** The permission (src/features/access/permissions.ts) behind each action; seeing and contributing need only visibility. */
const PERMISSION_OF: Record<ProjectAction, Permission | null> = {
  view: null,
  contribute: null,
  edit: 'project.edit',
  manage_crew: 'project.manage_crew',
  delete: 'project.delete',
};

export function mayOnProject(actor: Actor, project: ProjectAccessFacts, action: ProjectAction): boolean {
  const permission = PERMISSION_OF[action];
  return canSeeProject(actor, project) && (permission === null || may(actor, permission, project.created_by));
}

/** 404 when the actor cannot see the project; 403 when they can but may not do `action`. */
export function assertProjectAccess(actor: Actor, project: ProjectAccessFacts, action: ProjectAction): void {
  if (!canSeeProject(actor, project)) notFound('project', project.id);
  const permission = PERMISSION_OF[action];
  if (permission !== null) assertMay(actor, permission, project.created_by);
}

/** For lists of content across projects: the user whose projects bound the list, or null for the whole workspace. */
export const projectScopeOf = (actor: Actor): string | null => (actor.role === 'restricted' ? actor.userId : null);

export class ProjectAccess {
  private readonly projects = new ProjectsRepository();

  /**
   * The project `projectId` when the actor may do `action` on it (404 / 403 otherwise).
   * `lock: 'share'` keeps the project from being deleted until the caller's transaction ends.
   */
  async requireProject(db: Executor, actor: Actor, projectId: string, action: ProjectAction, lock: 'share' | 'none' = 'none'): Promise<ProjectAccessFacts> {
    const facts = isId('project', projectId)
      ? await this.projects.getAccessFacts(db, actor.workspaceId, projectId, actor.userId, lock)
      : undefined;
    if (!facts) return notFound('project', projectId);
    assertProjectAccess(actor, facts, action);
    return facts;
  }

  /**
   * For content of a project (a photo, task, document…) the caller asked for by its own id: the
   * project's facts when the actor may do `action` on it. A project the caller cannot see answers
   * a 404 naming the content, exactly as for missing content, so the project does not show through.
   */
  async requireProjectOf(
    db: Executor, actor: Actor, projectId: string, content: { kind: string; id: string },
    action: ProjectAction = 'view', lock: 'share' | 'none' = 'none',
  ): Promise<ProjectAccessFacts> {
    const facts = await this.projects.getAccessFacts(db, actor.workspaceId, projectId, actor.userId, lock);
    if (!facts || !canSeeProject(actor, facts)) return notFound(content.kind, content.id);
    assertProjectAccess(actor, facts, action);
    return facts;
  }

  /** Ids of the projects a restricted actor sees, listed; null when the actor sees them all. */
  async listVisibleProjectIds(db: Executor, actor: Actor): Promise<string[] | null> {
    const userId = projectScopeOf(actor);
    return userId === null ? null : this.projects.listVisibleProjectIds(db, actor.workspaceId, userId);
  }

  /** Ids of the projects a list of content may draw from, as a subquery; null when the actor sees them all. */
  visibleProjectIds(db: Executor, actor: Actor) {
    const userId = projectScopeOf(actor);
    return userId === null ? null : this.projects.visibleProjectIds(db, actor.workspaceId, userId);
  }
}
