import type { Executor } from '../../db/database.ts';
import type { Actor } from '../../http/actor.ts';
import { forbidden, notFound } from '../../http/errors.ts';
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

const RULES: Record<ProjectAction, { allows: (actor: Actor, project: ProjectAccessFacts) => boolean; denied: string }> = {
  view: { allows: () => true, denied: 'see this project' },
  contribute: { allows: () => true, denied: 'add content to this project' },
  edit: { allows: (a, p) => a.role !== 'restricted' || p.created_by === a.userId, denied: 'edit a project they did not create' },
  manage_crew: { allows: (a) => a.role !== 'restricted', denied: 'change a project\'s crew' },
  delete: { allows: (a) => a.role === 'admin' || a.role === 'manager', denied: 'delete projects' },
};

export function mayOnProject(actor: Actor, project: ProjectAccessFacts, action: ProjectAction): boolean {
  return canSeeProject(actor, project) && RULES[action].allows(actor, project);
}

/** 404 when the actor cannot see the project; 403 when they can but may not do `action`. */
export function assertProjectAccess(actor: Actor, project: ProjectAccessFacts, action: ProjectAction): void {
  if (!canSeeProject(actor, project)) notFound('project', project.id);
  if (!RULES[action].allows(actor, project)) forbidden(`Your role (${actor.role}) may not ${RULES[action].denied}.`);
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

  /** Ids of the projects a list of content may draw from, as a subquery; null when the actor sees them all. */
  visibleProjectIds(db: Executor, actor: Actor) {
    const userId = projectScopeOf(actor);
    return userId === null ? null : this.projects.visibleProjectIds(db, actor.workspaceId, userId);
  }
}
