import { sql, type Compilable, type Expression, type Selectable, type SelectQueryBuilder, type SqlBool, type UpdateObject } from 'kysely';
import type { Executor } from '../../db/database.ts';
import { QueryShapes, slot } from '../../db/query-shapes.ts';
import { escapeLike, searchPage, searchStream, substringMatch } from '../../db/substring-match.ts';
import type { Database, Geofence, ProjectStatus } from '../../db/schema.ts';
import type { GeofenceBox, Point } from './projects.geofence.ts';
import { hasProjectTag } from '../tags/tags.repository.ts';
import { bumpUpdatedAt } from '../users/users.repository.ts';
import type { UserRow } from '../users/users.views.ts';
import { ADDRESS_FIELDS } from './projects.schemas.ts';
import type { ProjectRow } from './projects.views.ts';

/** Visible to a restricted user: they created it or are on its crew. Also as ids: `visibleIds` (a set), `visibleStream` (in order); change all three. */
const createdByOrMemberOf = (projectRef: string, creatorRef: string, userId: string): Expression<SqlBool> =>
  sql<SqlBool>`(${sql.ref(creatorRef)} = ${userId} or exists (select 1 from project_members vm where vm.project_id = ${sql.ref(projectRef)} and vm.user_id = ${userId}))`;

/**
 * The same projects as ids, straight from two indexes: those of the user's crews
 * (project_members_by_user) and those they created (projects_by_creator). A project both created
 * and crewed by them comes twice; `in (…)` does not mind.
 */
const visibleIds = (db: Executor, workspaceId: string, userId: string) =>
  db.selectFrom('project_members as vm').select('vm.project_id as id')
    .where('vm.user_id', '=', userId).where('vm.workspace_id', '=', workspaceId)
    .unionAll(db.selectFrom('projects as vc').select('vc.id').where('vc.created_by', '=', userId).where('vc.workspace_id', '=', workspaceId));

/**
 * The projects the user may see after the keyset, newest first, as ids, in a form read as a stream:
 * their crew rows in project_members_by_user's order merged (a Merge Append) with the projects they
 * created and are not on the crew of. A statement that stops at its page's end reads no further: a
 * window of the list's order (by id) counted in their projects, not the workspace's.
 */
function visibleStream(db: Executor, c: ProjectListCriteria, userId: string) {
  let crew = db.selectFrom('project_members as wm').select('wm.project_id as id').where('wm.user_id', '=', userId);
  let own = db.selectFrom('projects as wo').select('wo.id').where('wo.created_by', '=', userId).where('wo.workspace_id', '=', c.workspaceId)
    .where(sql<SqlBool>`not exists (select 1 from project_members om where om.project_id = wo.id and om.user_id = ${userId})`);
  if (c.after) {
    crew = crew.where('wm.project_id', '<', c.after.id);
    own = own.where('wo.id', '<', c.after.id);
  }
  return sql<{ id: string }>`(${crew.orderBy('wm.project_id', 'desc')}) union all (${own.orderBy('wo.id', 'desc')})`;
}

/**
 * A page of `row` (the projects named `p`, filtered) over the user's own projects in id order,
 * newest first (visibleStream): each project fetched by id and tested in a lateral subquery kept
 * whole by `offset 0`, so that the plan is that loop in their order and stops at the row that fills
 * the page. `window`: only the `rows` of their projects after the first `skip`.
 */
function overVisible<DB, TB extends keyof DB>(db: Executor, c: ProjectListCriteria, userId: string, row: ProjectsQuery<DB, TB>, fetch: number,
  window?: { rows: number; skip: number }) {
  const ids = sql`select w.id from (${visibleStream(db, c, userId)}) w order by w.id desc${window ? sql` offset ${window.skip} limit ${window.rows}` : sql``}`;
  return sql<ProjectRow>`select p.* from (${ids}) w cross join lateral (${row.where(sql<SqlBool>`p.id = w.id`).modifyEnd(sql`offset 0`)}) p
    order by w.id desc limit ${fetch}`;
}

/**
 * Up to how many visible projects a restricted user's list starts from those projects (fetch them
 * all, filter, sort) rather than walk the workspace's list order and test each row's visibility.
 * The walk costs the rows it passes before a page is full: ~workspace size × 50 / visible projects.
 */
export const VISIBLE_DRIVE_LIMIT = 5000;

/**
 * Sorted by updated_at (no index gives a user's projects in that order, so the walk is the
 * workspace's): up to how many visible projects a search whose word is rare in the walk (see
 * `search`) then fetches the user's projects by id and tests each, rather than fetch the word's
 * matches in the whole workspace through the trigram index and test each one's visibility: a word
 * in 12 % of a million projects is 120,000 matches for a user who sees 20,000 projects.
 */
export const VISIBLE_SEARCH_LIMIT = 50_000;

/**
 * Up to how many matches of a word (found through the trigram index) a restricted user's
 * visibility is looked up match by match (project_members' primary key, ~2 µs each), rather than
 * against a hash of all their crew rows (5–7 ms for 20,000).
 */
export const FEW_MATCHES = 1000;

/**
 * The first of a restricted user's own projects a search reads (searchStream's `probe`): their rows
 * are fetched by id (~5 µs each, where the workspace's order reads them in sequence). A word in one
 * of their projects in ten fills a page from it; a word absent from it goes to the trigram index at
 * the cost of 500 rows, and any other tells how far on the page should fill.
 */
const VISIBLE_PROBE = 500;

/**
 * `q` as a case-insensitive substring of the name or an address part. The parts are matched as one
 * text, a line each (project_search_text, indexed by trigrams per workspace in
 * 023_search_workspace.sql): one index probe instead of seven. A match cannot span two parts unless
 * `q` holds a line break; only then is each part checked on its own as well.
 */
export function matchesSearch(q: string, form: 'index' | 'row' = 'index'): Expression<SqlBool> {
  const column = (name: string) => sql.ref(`p.${name}`);
  const whole = substringMatch(sql<string>`project_search_text(${column('name')}, ${sql.join(ADDRESS_FIELDS.map(column))})`, q, form);
  if (!q.includes('\n')) return whole;
  const pattern = `%${escapeLike(q)}%`;
  const parts = [sql<SqlBool>`${column('name')} ilike ${pattern}`, ...ADDRESS_FIELDS.map((f) => sql<SqlBool>`${column(f)} ilike ${pattern}`)];
  return sql<SqlBool>`(${whole} and (${sql.join(parts, sql` or `)}))`;
}

/** The bounds between a list's plans: which plan answers changes the cost, never the rows. */
const PLAN_BOUNDS = { visibleDriveLimit: VISIBLE_DRIVE_LIMIT, visibleSearchLimit: VISIBLE_SEARCH_LIMIT, fewMatches: FEW_MATCHES, visibleProbe: VISIBLE_PROBE };

/** Projects `userId` can see, on rows named `p`: all of them unless the user is restricted (then created or on the crew). */
const seenBy = (userId: string): Expression<SqlBool> =>
  sql<SqlBool>`(not exists (select 1 from users su where su.id = ${userId} and su.role = 'restricted') or ${createdByOrMemberOf('p.id', 'p.created_by', userId)})`;

export interface FenceCandidate {
  id: string;
  geofence: Geofence;
  lat: number | null;
  lon: number | null;
  geofence_area_m2: number;
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

/**
 * The other filters (visibility, crew member, changed since, tag), on rows named `p`. `visibility`:
 * tested row by row (`filter`), or as membership in the user's few visible ids (`ids`), which the
 * planner turns into fetching those projects by primary key; `given`: the rows are visible ones.
 */
function filtered<DB, TB extends keyof DB>(db: Executor, q: ProjectsQuery<DB, TB>, c: ProjectListCriteria, visibility: 'filter' | 'ids' | 'given' = 'filter'): ProjectsQuery<DB, TB> {
  if (c.visibleTo !== null && visibility === 'filter') q = q.where(createdByOrMemberOf('p.id', 'p.created_by', c.visibleTo));
  if (c.visibleTo !== null && visibility === 'ids') q = q.where(sql<SqlBool>`p.id in (${visibleIds(db, c.workspaceId, c.visibleTo)})`);
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
  private readonly pages = new QueryShapes<ProjectRow>();

  private readonly options: typeof PLAN_BOUNDS;

  /** PLAN_BOUNDS, some of them changed (tests compare every path by setting them to 0 or 1). */
  constructor(bounds: Partial<typeof PLAN_BOUNDS> = {}) {
    this.options = { ...PLAN_BOUNDS, ...bounds };
  }

  get(db: Executor, workspaceId: string, id: string): Promise<ProjectRow | undefined> {
    return db.selectFrom('projects as p').selectAll('p')
      .where('p.workspace_id', '=', workspaceId).where('p.id', '=', id).executeTakeFirst();
  }

  /**
   * The projects among `ids`, in no particular order, in one statement (sync reads a page's
   * projects with it); `visibleTo`: only those this restricted user created or is on the crew of,
   * the rule `get` applies through projects.access.ts.
   */
  getMany(db: Executor, workspaceId: string, ids: readonly string[], visibleTo: string | null): Promise<ProjectRow[]> {
    if (ids.length === 0) return Promise.resolve([]);
    let q = db.selectFrom('projects as p').selectAll('p')
      .where('p.workspace_id', '=', workspaceId).where(sql<SqlBool>`p.id = any(${ids}::text[])`);
    if (visibleTo !== null) q = q.where(createdByOrMemberOf('p.id', 'p.created_by', visibleTo));
    return q.execute();
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

  /**
   * One query per page: filters, visibility, keyset and the crew and tag aggregates together. A
   * restricted user who sees few projects (the usual case) gets them fetched by id, filtered, `q`
   * tested on each, and sorted; walking the workspace's order for them read ~170,000 rows per page
   * of a million-project workspace. One who sees many gets their own projects read in id order
   * (overVisible; `searchVisible` with `q`) when that is the list's order; others walk the list's
   * order (`q`: see `search`).
   */
  async list(db: Executor, c: ProjectListCriteria): Promise<ProjectRow[]> {
    const q = c.q !== undefined && c.q !== '' ? c.q : null;
    const { visibleDriveLimit, visibleSearchLimit } = this.options;
    // In id order the user's own projects can be read in that order (overVisible); in another, a search may fetch them by id.
    const theirOrder = c.sort === 'created_at';
    const visible = c.visibleTo === null ? null
      : await this.countVisible(db, c.visibleTo, theirOrder || q === null ? visibleDriveLimit : Math.max(visibleDriveLimit, visibleSearchLimit));
    if (visible !== null && visible <= visibleDriveLimit) {
      if (q === null) return this.page(db, c, 'ids');
      return pageOf(filtered(db, listed(db, c), c, 'ids').where(matchesSearch(q, 'row')), c).execute();
    }
    if (c.visibleTo !== null && theirOrder) return q === null ? this.page(db, c, 'stream') : this.searchVisible(db, c, q, c.visibleTo);
    if (q !== null) return this.search(db, c, q, visible !== null && visible <= visibleSearchLimit ? 'ids' : 'index');
    return this.page(db, c, 'filter');
  }

  /**
   * A page without a search (the common list), its statement built once per combination of
   * filters (db/query-shapes.ts): the criteria with a slot for each value, the rest as given.
   */
  private page(db: Executor, c: ProjectListCriteria, visibility: 'filter' | 'ids' | 'stream'): Promise<ProjectRow[]> {
    const slots: ProjectListCriteria = {
      workspaceId: slot('workspaceId'),
      visibleTo: c.visibleTo === null ? null : slot('visibleTo'),
      status: c.status === 'all' ? 'all' : slot('status'),
      memberId: c.memberId === undefined ? undefined : slot('memberId'),
      updatedSince: c.updatedSince === undefined ? undefined : slot('updatedSince'),
      tagId: c.tagId === undefined ? undefined : slot('tagId'),
      sort: c.sort,
      after: c.after === null ? null : { id: slot('afterId'), updatedAt: c.after.updatedAt === null ? null : slot('afterUpdatedAt') },
      limit: slot('limit'),
    };
    return this.pages.execute(db, `${visibility} ${JSON.stringify(slots)}`,
      () => (visibility === 'stream'
        ? { compile: () => overVisible(db, slots, slots.visibleTo!, filtered(db, listed(db, slots), slots, 'given'), slot('fetch')).compile(db) }
        : inOrder(filtered(db, listed(db, slots), slots, visibility), slots).limit(slot('fetch'))) as unknown as Compilable<ProjectRow>, {
        workspaceId: c.workspaceId, visibleTo: c.visibleTo, status: c.status, memberId: c.memberId, updatedSince: c.updatedSince,
        tagId: c.tagId, afterId: c.after?.id, afterUpdatedAt: c.after?.updatedAt, fetch: c.limit + 1,
      });
  }

  /**
   * A restricted user's search by id order when they see many projects: the tries of searchStream
   * over *their* projects in order (overVisible), so that how common the word is in the probe is how
   * common it is among their projects; rare there, through the trigram index.
   */
  private async searchVisible(db: Executor, c: ProjectListCriteria, q: string, userId: string): Promise<ProjectRow[]> {
    const walk = async (rows: number, skip: number) => {
      const row = filtered(db, listed(db, c), c, 'given').where(matchesSearch(q, 'row'));
      return (await overVisible(db, c, userId, row, c.limit + 1, { rows, skip }).execute(db)).rows;
    };
    return searchStream(c.limit, walk, () => this.indexed(db, c, q), this.options.visibleProbe);
  }

  /**
   * All the matches of `q` through the trigram index, sorted; for a restricted user, those they may
   * see. Their visibility is tested once the matches are known, by how many there are: up to
   * FEW_MATCHES each is looked up in project_members by primary key; more are tested against a hash
   * of the user's crew rows, built once. The planner, which expects thousands of matches for any
   * word, would always build the hash: 20,000 crew rows (7 ms) to test a rare word's 12 matches.
   */
  private indexed(db: Executor, c: ProjectListCriteria, q: string): Promise<ProjectRow[]> {
    const matches = filtered(db, listed(db, c), { ...c, visibleTo: null }).where(matchesSearch(q));
    if (c.visibleTo === null) return pageOf(db.selectFrom(matches.offset(0).as('p')).selectAll('p'), c).execute();
    const userId = c.visibleTo;
    // A CASE evaluates only its chosen branch, and a hashed subplan is built on its first use: never, with few matches.
    const visible = sql<SqlBool>`(p.created_by = ${userId} or case when (select count(*) from m) <= ${this.options.fewMatches}
      then (select true from project_members vm where vm.project_id = p.id and vm.user_id = ${userId}) is not null
      else p.id in (select vm.project_id from project_members vm where vm.user_id = ${userId}) end)`;
    return pageOf(db.with((cte) => cte('m').materialized(), () => matches).selectFrom('m as p').selectAll('p').where(visible), c).execute();
  }

  /**
   * How many projects the user may see, counted up to `cap` + 1 (two index-only counts that stop
   * there). Only a choice of plan: a user belongs to one workspace, so their rows are all in it.
   */
  private async countVisible(db: Executor, userId: string, cap: number): Promise<number> {
    const { rows: [row] } = await sql<{ n: number }>`select
      (select count(*) from (select 1 from project_members where user_id = ${userId} limit ${cap + 1}) m)::int
      + (select count(*) from (select 1 from projects where created_by = ${userId} limit ${cap + 1}) c)::int as n`.execute(db);
    return row!.n;
  }

  /**
   * The projects matching `q`: the tries of searchPage, the next rows in order, else all the
   * matches, found through the trigram index (`index`) or, for a restricted user who sees at most
   * VISIBLE_SEARCH_LIMIT projects, among those projects fetched by id (`ids`).
   */
  private search(db: Executor, c: ProjectListCriteria, q: string, rare: 'index' | 'ids'): Promise<ProjectRow[]> {
    const window = (rows: number) => inOrder(listed(db, c), c).limit(rows);
    // offset 0 keeps the subquery whole: all of its matches, then the sort (never a walk in order).
    const byId = () => pageOf(db.selectFrom(filtered(db, listed(db, c), c, 'ids').where(matchesSearch(q, 'row')).offset(0).as('p')).selectAll('p'), c).execute();
    return searchPage(c.limit,
      (rows) => pageOf(filtered(db, db.selectFrom(window(rows).as('p')).selectAll('p'), c).where(matchesSearch(q, 'row')), c).execute(),
      () => (rare === 'ids' ? byId() : this.indexed(db, c, q)));
  }

  /** The insert of a new project, for the caller to run (e.g. in one statement with its event). */
  insertQuery(db: Executor, row: ProjectRow) {
    const { member_ids: _crew, tags: _tags, cover_thumbnail_key: _cover, geofence, ...columns } = row;
    return db.insertInto('projects').values({ ...columns, geofence: geofence === null ? null : JSON.stringify(geofence) });
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

  /** The same projects as visibleProjectIds, listed once each (one they created and are on the crew of comes twice from the subquery). */
  async listVisibleProjectIds(db: Executor, workspaceId: string, userId: string): Promise<string[]> {
    return [...new Set((await visibleIds(db, workspaceId, userId).execute()).map((r) => r.id))];
  }

  /**
   * Project ids a restricted user may see, as a subquery for other features' lists (`project_id in
   * (…)`): read from the crew and creator indexes, not by testing every project of the workspace.
   */
  visibleProjectIds(db: Executor, workspaceId: string, userId: string) {
    return visibleIds(db, workspaceId, userId);
  }

  /**
   * Active projects whose geofence's box holds the point and that the user can see (a restricted
   * user: created it or is on the crew), smallest fence first. The box is a GiST index probe
   * (022_photo_filing.sql); the exact test is the caller's (projects.geofence.ts).
   */
  fencesAround(db: Executor, workspaceId: string, userId: string, point: Point): Promise<FenceCandidate[]> {
    return db.selectFrom('projects as p').select(['p.id', 'p.geofence', 'p.lat', 'p.lon', 'p.geofence_area_m2'])
      .where('p.workspace_id', '=', workspaceId).where('p.status', '=', 'active').where('p.geofence', 'is not', null)
      .where(sql<SqlBool>`box(point(p.geofence_min_lon, p.geofence_min_lat), point(p.geofence_max_lon, p.geofence_max_lat)) @> box(point(${point.lon}, ${point.lat}), point(${point.lon}, ${point.lat}))`)
      .where(seenBy(userId))
      .orderBy('p.geofence_area_m2').orderBy('p.id')
      .execute() as Promise<FenceCandidate[]>;
  }

  /** Active projects without a geofence whose coordinates lie in the box and that the user can see (GiST on the position). */
  unfencedWithin(db: Executor, workspaceId: string, userId: string, box: GeofenceBox): Promise<{ id: string; lat: number; lon: number }[]> {
    return db.selectFrom('projects as p').select(['p.id', 'p.lat', 'p.lon'])
      .where('p.workspace_id', '=', workspaceId).where('p.status', '=', 'active')
      .where('p.lat', 'is not', null).where('p.geofence', 'is', null)
      .where(sql<SqlBool>`point(p.lon, p.lat) <@ box(point(${box.minLon}, ${box.minLat}), point(${box.maxLon}, ${box.maxLat}))`)
      .where(seenBy(userId))
      .execute() as Promise<{ id: string; lat: number; lon: number }[]>;
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
