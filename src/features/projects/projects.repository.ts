import { sql, type Expression, type Selectable, type SelectQueryBuilder, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { escapeLike, SEARCH_WINDOW, searchPage, substringMatch } from '../../db/substring-match.ts';
import type { Database, ProjectStatus } from '../../db/schema.ts';
import { hasProjectTag } from '../tags/tags.repository.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { UserRow } from '../users/users.views.ts';
import { ADDRESS_FIELDS } from './projects.schemas.ts';
import type { ProjectRow } from './projects.views.ts';

/** Visible to a restricted user: they created it or are on its crew. Kept beside `visibleProjectIds`, its twin. */
const createdByOrMemberOf = (projectRef: string, creatorRef: string, userId: string): Expression<SqlBool> =>
  sql<SqlBool>`(${sql.ref(creatorRef)} = ${userId} or exists (select 1 from project_members vm where vm.project_id = ${sql.ref(projectRef)} and vm.user_id = ${userId}))`;

/**
 * `q` as a case-insensitive substring of the name or an address part. The parts are matched as one
 * text, a line each (project_search_text, indexed by trigrams in 017_search.sql): one index probe
 * instead of seven. A match cannot span two parts unless `q` holds a line break; only then is each
 * part checked on its own as well.
 */
export function matchesSearch(q: string, form: 'index' | 'row' = 'index'): Expression<SqlBool> {
  const column = (name: string) => sql.ref(`p.${name}`);
  const whole = substringMatch(sql<string>`project_search_text(${column('name')}, ${sql.join(ADDRESS_FIELDS.map(column))})`, q, form);
  if (!q.includes('\n')) return whole;
  const pattern = `%${escapeLike(q)}%`;
  const parts = [sql<SqlBool>`${column('name')} ilike ${pattern}`, ...ADDRESS_FIELDS.map((f) => sql<SqlBool>`${column(f)} ilike ${pattern}`)];
  return sql<SqlBool>`(${whole} and (${sql.join(parts, sql` or `)}))`;
}

export type ProjectSortKey = 'created_at' | 'updated_at';

export interface ProjectListCriteria {
  workspaceId: string;
  /** Only projects this user created or is a member of (restricted users); null for all. */
  visibleTo: string | null;
  status: 'active' | 'archived' | 'all';
  q?: string;
  memberId?: string;
  updatedSince?: Date;
  /** Only projects carrying this tag. */
  tagId?: string;
  sort: ProjectSortKey;
  /** The last row of the previous page: its id, and its updated_at when sorting by it. */
  after: { id: string; updatedAt: Date | null } | null;
  limit: number;
}

type ProjectsQuery<DB, TB extends keyof DB> = SelectQueryBuilder<DB, TB, Selectable<Database['projects']>>;

/** The rows the list's order index holds: the workspace, the status, and those after the keyset. */
function listed(db: Executor, c: ProjectListCriteria) {
  let q = db.selectFrom('projects as p').selectAll('p').where('p.workspace_id', '=', c.workspaceId);
  if (c.status !== 'all') q = q.where('p.status', '=', c.status);
  if (c.after && c.sort === 'updated_at') q = q.where(sql<SqlBool>`(p.updated_at, p.id) < (${c.after.updatedAt}, ${c.after.id})`);
  if (c.after && c.sort !== 'updated_at') q = q.where(sql<SqlBool>`p.id < ${c.after.id}`);
  return q;
}

/** The other filters (visibility, crew member, changed since, tag), on rows named `p`. */
function filtered<DB, TB extends keyof DB>(q: ProjectsQuery<DB, TB>, c: ProjectListCriteria): ProjectsQuery<DB, TB> {
  if (c.visibleTo !== null) q = q.where(createdByOrMemberOf('p.id', 'p.created_by', c.visibleTo));
  if (c.memberId !== undefined) q = q.where(sql<SqlBool>`exists (select 1 from project_members fm where fm.project_id = p.id and fm.user_id = ${c.memberId})`);
  if (c.updatedSince !== undefined) q = q.where(sql<SqlBool>`p.updated_at >= ${c.updatedSince}`);
  if (c.tagId !== undefined) q = q.where(hasProjectTag('p.id', c.tagId));
  return q;
}

function inOrder<DB, TB extends keyof DB>(q: ProjectsQuery<DB, TB>, c: ProjectListCriteria): ProjectsQuery<DB, TB> {
  return c.sort === 'updated_at' ? q.orderBy(sql`p.updated_at desc`).orderBy(sql`p.id desc`) : q.orderBy(sql`p.id desc`);
}

/** One page (and one row more, to tell whether another follows) of rows named `p`, as ProjectRows. */
function pageOf<DB, TB extends keyof DB>(q: ProjectsQuery<DB, TB>, c: ProjectListCriteria) {
  return inOrder(q, c).limit(c.limit + 1) as unknown as { execute(): Promise<ProjectRow[]> };
}

export class ProjectsRepository {
  get(db: Executor, workspaceId: string, id: string): Promise<ProjectRow | undefined> {
    return db.selectFrom('projects as p').selectAll('p')
      .where('p.workspace_id', '=', workspaceId).where('p.id', '=', id).executeTakeFirst();
  }

  /** The project, locked until the transaction ends, so concurrent writes apply one after the other. */
  getForUpdate(db: Executor, workspaceId: string, id: string): Promise<ProjectRow | undefined> {
    return db.selectFrom('projects as p').selectAll('p')
      .where('p.workspace_id', '=', workspaceId).where('p.id', '=', id).forUpdate('p').executeTakeFirst();
  }

  /** Just what an access decision needs, for features that hang content off a project. */
  getAccessFacts(db: Executor, workspaceId: string, id: string, userId: string, lock: 'share' | 'none' = 'none') {
    let q = db.selectFrom('projects as p')
      .select(['p.id', 'p.status', 'p.created_by'])
      .select(sql<boolean>`exists (select 1 from project_members m where m.project_id = p.id and m.user_id = ${userId})`.as('is_member'))
      .where('p.workspace_id', '=', workspaceId).where('p.id', '=', id);
    if (lock === 'share') q = q.forShare('p');
    return q.executeTakeFirst();
  }

  /** One query per page: filters, visibility, keyset and the crew and tag aggregates together. */
  list(db: Executor, c: ProjectListCriteria): Promise<ProjectRow[]> {
    if (c.q !== undefined && c.q !== '') return this.search(db, c, c.q);
    return pageOf(filtered(listed(db, c), c), c).execute();
  }

  /** The projects matching `q`: the two tries of searchPage (the next rows in order, else the trigram index). */
  private search(db: Executor, c: ProjectListCriteria, q: string): Promise<ProjectRow[]> {
    const window = inOrder(listed(db, c), c).limit(SEARCH_WINDOW);
    // offset 0 keeps the subquery whole: all of its matches, then the sort (never a walk in order).
    const matches = () => filtered(listed(db, c), c).where(matchesSearch(q)).offset(0);
    return searchPage(c.limit,
      () => pageOf(filtered(db.selectFrom(window.as('p')).selectAll('p'), c).where(matchesSearch(q, 'row')), c).execute(),
      () => pageOf(db.selectFrom(matches().as('p')).selectAll('p'), c).execute());
  }

  /** The insert of a new project, for the caller to run (e.g. in one statement with its event). */
  insertQuery(db: Executor, row: ProjectRow) {
    const { member_ids: _crew, tags: _tags, cover_thumbnail_key: _cover, ...columns } = row;
    return db.insertInto('projects').values(columns);
  }

  /** Applies the changes and moves updated_at forward (at least 1 ms). */
  update(db: Executor, id: string, changes: UpdateObject<Database, 'projects'>): Promise<ProjectRow> {
    return db.updateTable('projects').set({ ...changes, updated_at: bumpUpdatedAt }).where('id', '=', id)
      .returningAll().executeTakeFirstOrThrow();
  }

  /** Archives (stamping archived_at with the database clock, like updated_at) or restores. */
  setStatus(db: Executor, id: string, status: ProjectStatus): Promise<ProjectRow> {
    return this.update(db, id, { status, archived_at: status === 'archived' ? sql<Date>`now()` : null });
  }

  async delete(db: Executor, id: string): Promise<void> {
    await db.deleteFrom('projects').where('id', '=', id).execute();
  }

  /** Project ids a restricted user may see, as a subquery for other features' lists (`project_id in (…)`). */
  visibleProjectIds(db: Executor, workspaceId: string, userId: string) {
    return db.selectFrom('projects as vp').select('vp.id')
      .where('vp.workspace_id', '=', workspaceId)
      .where(createdByOrMemberOf('vp.id', 'vp.created_by', userId));
  }

  /** A page of the crew as users, newest user first, keyset on the user id. */
  listMembers(db: Executor, projectId: string, limit: number, after: string | null): Promise<UserRow[]> {
    let q = db.selectFrom('project_members as m').innerJoin('users as u', 'u.id', 'm.user_id').selectAll('u')
      .where('m.project_id', '=', projectId);
    if (after !== null) q = q.where('u.id', '<', after);
    return q.orderBy('u.id', 'desc').limit(limit + 1).execute();
  }

  /** True when the user was added, false when already a member. */
  async addMember(db: Executor, member: { projectId: string; userId: string; workspaceId: string; addedBy: string }): Promise<boolean> {
    const added = await db.insertInto('project_members')
      .values({ project_id: member.projectId, user_id: member.userId, workspace_id: member.workspaceId, added_by: member.addedBy })
      .onConflict((oc) => oc.columns(['project_id', 'user_id']).doNothing())
      .returning('user_id').executeTakeFirst();
    return added !== undefined;
  }

  /** True when the user was removed, false when not a member. */
  async removeMember(db: Executor, projectId: string, userId: string): Promise<boolean> {
    const removed = await db.deleteFrom('project_members').where('project_id', '=', projectId).where('user_id', '=', userId).executeTakeFirst();
    return removed.numDeletedRows > 0n;
  }
}
