import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { parseCrontab, type JobHelpers } from 'graphile-worker';
import { sql } from 'kysely';
import { EVENT_TYPE_NAMES, EVENT_TYPES, OPERATOR_EVENT_TYPES } from '../src/features/events/event-types.ts';
import { EventLog } from '../src/features/events/events.log.ts';
import { EVENT_RETENTION_DAYS } from '../src/features/events/events.service.ts';
import { newId } from '../src/ids.ts';
import { CLEANUP_CRONTAB, cleanupTasks } from '../src/jobs/cleanup.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const cursorOf = (sort: string, values: unknown[]) => Buffer.from(JSON.stringify({ s: sort, v: values })).toString('base64url');

type Response = Awaited<ReturnType<typeof api>>;

interface Envelope {
  id: string;
  event: string;
  project_id: string | null;
  workspace_id: string;
  created_at: string;
  data: Record<string, unknown>;
}

describe('events', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp(); });
  after(async () => t.close());

  /** The envelopes `change` emitted in the workspace, oldest first (ids are monotonic within this process). */
  async function emittedBy<T>(wsId: string, change: () => Promise<T>): Promise<{ result: T; events: Envelope[] }> {
    const last = await t.db.selectFrom('events').select('id').where('workspace_id', '=', wsId).orderBy('id', 'desc').limit(1).executeTakeFirst();
    const result = await change();
    let q = t.db.selectFrom('events').select('payload').where('workspace_id', '=', wsId);
    if (last) q = q.where('id', '>', last.id);
    const rows = await q.orderBy('id').execute();
    return { result, events: rows.map((r) => JSON.parse(r.payload) as Envelope) };
  }

  /** Asserts that `change` emitted exactly one event, of `kind`, with a well-formed envelope; returns it. */
  async function oneEvent<T>(ws: TestWorkspace, kind: string, change: () => Promise<T>): Promise<{ result: T; event: Envelope }> {
    const { result, events } = await emittedBy(ws.id, change);
    assert.deepEqual(events.map((e) => e.event), [kind]);
    const event = events[0]!;
    assert.deepEqual(Object.keys(event), ['id', 'event', 'project_id', 'workspace_id', 'created_at', 'data']);
    assert.match(event.id, /^evt_[0-9a-z]{26}$/);
    assert.equal(event.workspace_id, ws.id);
    assert.match(event.created_at, RFC3339_MS);
    return { result, event };
  }

  async function noEvent(ws: TestWorkspace, change: () => Promise<unknown>): Promise<void> {
    const { events } = await emittedBy(ws.id, change);
    assert.deepEqual(events.map((e) => e.event), []);
  }

  function ok(res: Response, status = 200) {
    assert.equal(res.statusCode, status, res.body);
    return status === 204 ? null : res.json();
  }

  async function createProject(who: TestUser, body: Record<string, unknown> = {}) {
    return ok(await api(t, who, 'POST', '/v1/projects', { name: `Project ${Math.random().toString(36).slice(2, 8)}`, ...body }), 201);
  }

  function assertProblem(res: Response, status: number, code: string, path?: string) {
    assert.equal(res.statusCode, status, res.body);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const problem = res.json();
    assert.equal(problem.code, code, res.body);
    if (path) assert.ok(problem.errors?.some((e: { path: string }) => e.path === path), res.body);
  }

  describe('project events', () => {
    let ws: TestWorkspace;
    let admin: TestUser;
    before(async () => {
      ws = await newWorkspace(t);
      admin = ws.admin;
    });

    it('project.created carries the project exactly as POST answered it', async () => {
      const { result: body, event } = await oneEvent(ws, 'project.created', () =>
        createProject(admin, { description: 'New', address: { city: 'Oslo' }, coordinates: { lat: 59.9, lon: 10.7 } }));
      assert.equal(event.project_id, body.id);
      assert.deepEqual(event.data, body);
    });

    it('project.updated on a change, none on a PATCH that changes nothing', async () => {
      const project = await createProject(admin, { description: 'Same', address: { city: 'Bergen' } });
      const url = `/v1/projects/${project.id}`;
      const { result: body, event } = await oneEvent(ws, 'project.updated', async () => ok(await api(t, admin, 'PATCH', url, { name: 'Renamed', address: { state: 'Vestland' } })));
      assert.equal(event.project_id, project.id);
      assert.deepEqual(event.data, body);
      assert.equal(body.address.state, 'Vestland');

      await noEvent(ws, async () => ok(await api(t, admin, 'PATCH', url, {})));
      await noEvent(ws, async () => ok(await api(t, admin, 'PATCH', url, { name: 'Renamed', description: 'Same', address: { city: 'Bergen' } })));
    });

    it('project.updated when the crew actually changes (PUT and DELETE of a member), none when it does not', async () => {
      const project = await createProject(admin);
      const member = await newUser(t, ws, 'standard');
      const memberUrl = `/v1/projects/${project.id}/members/${member.id}`;

      const added = await oneEvent(ws, 'project.updated', async () => ok(await api(t, admin, 'PUT', memberUrl)));
      const afterAdd = ok(await api(t, admin, 'GET', `/v1/projects/${project.id}`));
      assert.deepEqual(afterAdd.member_ids, [member.id]);
      assert.equal(added.event.project_id, project.id);
      assert.deepEqual(added.event.data, afterAdd);
      await noEvent(ws, async () => ok(await api(t, admin, 'PUT', memberUrl)));

      const removed = await oneEvent(ws, 'project.updated', async () => ok(await api(t, admin, 'DELETE', memberUrl), 204));
      const afterRemove = ok(await api(t, admin, 'GET', `/v1/projects/${project.id}`));
      assert.deepEqual(afterRemove.member_ids, []);
      assert.deepEqual(removed.event.data, afterRemove);
      await noEvent(ws, async () => ok(await api(t, admin, 'DELETE', memberUrl), 204));
    });

    it('project.archived and project.restored, none when archiving or restoring changes nothing', async () => {
      const project = await createProject(admin);
      const url = `/v1/projects/${project.id}`;
      await noEvent(ws, async () => ok(await api(t, admin, 'POST', `${url}/restore`)));

      const archived = await oneEvent(ws, 'project.archived', async () => ok(await api(t, admin, 'POST', `${url}/archive`)));
      assert.equal(archived.result.status, 'archived');
      assert.equal(archived.event.project_id, project.id);
      assert.deepEqual(archived.event.data, archived.result);
      await noEvent(ws, async () => ok(await api(t, admin, 'POST', `${url}/archive`)));

      const restored = await oneEvent(ws, 'project.restored', async () => ok(await api(t, admin, 'POST', `${url}/restore`)));
      assert.equal(restored.result.status, 'active');
      assert.deepEqual(restored.event.data, restored.result);
      await noEvent(ws, async () => ok(await api(t, admin, 'POST', `${url}/restore`)));
    });

    it('project.deleted carries the project as it was; its event outlives it', async () => {
      const project = await createProject(admin);
      const member = await newUser(t, ws, 'standard');
      ok(await api(t, admin, 'PUT', `/v1/projects/${project.id}/members/${member.id}`));
      const before = ok(await api(t, admin, 'GET', `/v1/projects/${project.id}`));
      const { event } = await oneEvent(ws, 'project.deleted', async () => ok(await api(t, admin, 'DELETE', `/v1/projects/${project.id}`), 204));
      assert.equal(event.project_id, project.id);
      assert.deepEqual(event.data, before);
      assert.equal((await api(t, admin, 'GET', `/v1/projects/${project.id}`)).statusCode, 404);
      assert.deepEqual(ok(await api(t, admin, 'GET', `/v1/events/${event.id}`)), event);
    });

    it('a refused change emits nothing', async () => {
      const project = await createProject(admin);
      const url = `/v1/projects/${project.id}`;
      const stale = String((await api(t, admin, 'GET', url)).headers.etag);
      ok(await api(t, admin, 'PATCH', url, { name: 'Moved on' }));
      const standard = await newUser(t, ws, 'standard');
      const restricted = await newUser(t, ws, 'restricted');
      const gone = await newUser(t, ws, 'standard');
      ok(await api(t, admin, 'DELETE', `/v1/users/${gone.id}`), 204);
      await noEvent(ws, async () => {
        assertProblem(await api(t, admin, 'PATCH', url, { name: 'Lost update' }, { 'if-match': stale }), 412, 'precondition_failed');
        assertProblem(await api(t, admin, 'PATCH', url, { name: '   ' }), 400, 'validation_failed');
        assertProblem(await api(t, admin, 'PATCH', url, { coordinates: { lat: 91, lon: 0 } }), 400, 'validation_failed');
        assertProblem(await api(t, standard, 'DELETE', url), 403, 'forbidden');
        assertProblem(await api(t, restricted, 'POST', `${url}/archive`), 404, 'not_found');
        assertProblem(await api(t, admin, 'DELETE', url, undefined, { 'if-match': stale }), 412, 'precondition_failed');
        assertProblem(await api(t, admin, 'PUT', `${url}/members/${gone.id}`), 422, 'user_inactive');
      });
    });
  });

  describe('atomicity', () => {
    it('a change whose transaction rolls back leaves neither the change nor its event', async () => {
      const ws = await newWorkspace(t);
      // A deferred constraint trigger fails the commit itself: after the project and its event were written.
      await sql`create function refuse_rollback_me() returns trigger language plpgsql as $$
        begin if new.name = 'Rollback me' then raise exception 'refused at commit'; end if; return new; end $$`.execute(t.db);
      await sql`create constraint trigger refuse_rollback_me after insert or update on projects
        deferrable initially deferred for each row execute function refuse_rollback_me()`.execute(t.db);
      try {
        const project = await createProject(ws.admin);
        await noEvent(ws, async () => {
          assert.equal((await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Rollback me' })).statusCode, 500);
          assert.equal((await api(t, ws.admin, 'PATCH', `/v1/projects/${project.id}`, { name: 'Rollback me' })).statusCode, 500);
        });
        const names = await t.db.selectFrom('projects').select('name').where('workspace_id', '=', ws.id).execute();
        assert.deepEqual(names.map((p) => p.name), [project.name]);
      } finally {
        await sql`drop trigger refuse_rollback_me on projects`.execute(t.db);
        await sql`drop function refuse_rollback_me()`.execute(t.db);
      }
    });

    it('emit inside a transaction that rolls back writes no event and no delivery', async () => {
      const ws = await newWorkspace(t);
      const endpointId = newId('webhook');
      await t.db.insertInto('webhook_endpoints').values({ id: endpointId, workspace_id: ws.id, url: 'https://example.invalid/hook', events: ['*'], secret: 'whsec_test' }).execute();
      await noEvent(ws, async () => {
        await assert.rejects(t.db.transaction().execute(async (tx) => {
          await new EventLog().emit(tx, { workspaceId: ws.id, event: 'project.created', projectId: null, data: {} });
          throw new Error('roll back');
        }), /roll back/);
      });
      assert.equal((await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', endpointId).execute()).length, 0);
    });
  });

  describe('user events', () => {
    let ws: TestWorkspace;
    before(async () => { ws = await newWorkspace(t); });

    it('user.added for the first admin when a workspace is provisioned', async () => {
      const rows = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', ws.id).where('event', '=', 'user.added').execute();
      const events = rows.map((r) => JSON.parse(r.payload) as Envelope).filter((e) => e.data.id === ws.admin.id);
      assert.equal(events.length, 1);
      assert.equal(events[0]!.project_id, null);
      assert.deepEqual(events[0]!.data, ws.provisioned.admin);
      assert.deepEqual(events[0]!.data, ok(await api(t, ws.admin, 'GET', '/v1/users/me')));
    });

    it('user.added carries the user as POST answered it, without the invitation link', async () => {
      const { result, event } = await oneEvent(ws, 'user.added', async () =>
        ok(await api(t, ws.admin, 'POST', '/v1/users', { email: `added-${Date.now()}@example.test`, first_name: 'Ada', role: 'manager' }), 201));
      assert.equal(event.project_id, null);
      const { invite_url: url, invite_expires_at: _expires, invite_emailed: _emailed, ...user } = result as Record<string, unknown>;
      assert.ok(url, 'POST answered with the link');
      assert.deepEqual(event.data, user, 'the link, a secret, never goes to webhooks');
    });

    it('user.updated on a change (including reactivation), none on a PATCH that changes nothing', async () => {
      const user = await newUser(t, ws, 'standard', { first_name: 'Old' });
      const url = `/v1/users/${user.id}`;
      const renamed = await oneEvent(ws, 'user.updated', async () => ok(await api(t, ws.admin, 'PATCH', url, { first_name: 'New', role: 'manager' })));
      assert.equal(renamed.event.project_id, null);
      assert.deepEqual(renamed.event.data, renamed.result);

      const before = ok(await api(t, ws.admin, 'GET', url));
      await noEvent(ws, async () => ok(await api(t, ws.admin, 'PATCH', url, {})));
      await noEvent(ws, async () => ok(await api(t, ws.admin, 'PATCH', url, { first_name: 'New', role: 'manager', status: 'active', email: user.email })));
      // …and it leaves the user (and so its ETag) as it was.
      assert.deepEqual(ok(await api(t, ws.admin, 'GET', url)), before);

      ok(await api(t, ws.admin, 'DELETE', url), 204);
      const reactivated = await oneEvent(ws, 'user.updated', async () => ok(await api(t, ws.admin, 'PATCH', url, { status: 'active' })));
      assert.equal(reactivated.result.status, 'active');
      assert.equal(reactivated.result.deactivated_at, null);
      assert.deepEqual(reactivated.event.data, reactivated.result);
    });

    it('user.removed on DELETE, none on a repeated DELETE', async () => {
      const user = await newUser(t, ws, 'standard');
      const url = `/v1/users/${user.id}`;
      const { event } = await oneEvent(ws, 'user.removed', async () => ok(await api(t, ws.admin, 'DELETE', url), 204));
      const after = ok(await api(t, ws.admin, 'GET', url));
      assert.equal(after.status, 'deactivated');
      assert.equal(event.project_id, null);
      assert.deepEqual(event.data, after);
      await noEvent(ws, async () => ok(await api(t, ws.admin, 'DELETE', url), 204));
    });

    it('user.removed when a PATCH deactivates (the same act as DELETE)', async () => {
      const user = await newUser(t, ws, 'standard');
      const { result, event } = await oneEvent(ws, 'user.removed', async () => ok(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { status: 'deactivated', last_name: 'Gone' })));
      assert.equal(result.status, 'deactivated');
      assert.deepEqual(event.data, result);
      await noEvent(ws, async () => ok(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { status: 'deactivated' })));
    });

    it('a refused user change emits nothing', async () => {
      const taken = await newUser(t, ws, 'standard');
      const user = await newUser(t, ws, 'standard');
      const manager = await newUser(t, ws, 'manager');
      await noEvent(ws, async () => {
        assertProblem(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { email: taken.email.toUpperCase() }), 409, 'email_taken');
        assertProblem(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { handle: taken.handle }), 409, 'handle_taken');
        assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: taken.email }), 409, 'email_taken');
        assertProblem(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { role: 'owner' }), 400, 'validation_failed');
        assertProblem(await api(t, manager, 'PATCH', `/v1/users/${user.id}`, { role: 'admin' }), 403, 'forbidden');
        assertProblem(await api(t, manager, 'DELETE', `/v1/users/${ws.admin.id}`), 403, 'forbidden');
        assertProblem(await api(t, ws.admin, 'DELETE', `/v1/users/${ws.admin.id}`), 422, 'last_admin');
      });
    });
  });

  describe('webhook fan-out', () => {
    it('a project change creates one delivery per enabled, subscribed endpoint', async () => {
      const ws = await newWorkspace(t);
      const endpoint = async (events: string[], enabled = true) => {
        const id = newId('webhook');
        await t.db.insertInto('webhook_endpoints').values({ id, workspace_id: ws.id, url: 'https://example.invalid/hook', events, enabled, secret: 'whsec_test' }).execute();
        return id;
      };
      const projects = await endpoint(['project.*']);
      const exact = await endpoint(['project.updated', 'user.*']);
      const users = await endpoint(['user.*']);
      const disabled = await endpoint(['project.*'], false);
      const other = await newWorkspace(t);
      await t.db.insertInto('webhook_endpoints').values({ id: newId('webhook'), workspace_id: other.id, url: 'https://example.invalid/other', events: ['*'], secret: 'whsec_test' }).execute();

      const project = await createProject(ws.admin);
      const { event } = await oneEvent(ws, 'project.updated', async () => ok(await api(t, ws.admin, 'PATCH', `/v1/projects/${project.id}`, { name: 'Fan out' })));
      const deliveries = await t.db.selectFrom('webhook_deliveries').select(['endpoint_id', 'status', 'workspace_id']).where('event_id', '=', event.id).execute();
      assert.deepEqual(deliveries.map((d) => d.endpoint_id).sort(), [projects, exact].sort());
      assert.ok(deliveries.every((d) => d.workspace_id === ws.id));
      const perEndpoint = async (id: string) => (await t.db.selectFrom('webhook_deliveries').select('id').where('endpoint_id', '=', id).execute()).length;
      assert.equal(await perEndpoint(projects), 2); // project.created and project.updated
      assert.equal(await perEndpoint(exact), 1);
      assert.equal(await perEndpoint(users), 0);
      assert.equal(await perEndpoint(disabled), 0);
    });
  });

  describe('GET /v1/event-types', () => {
    it('lists every kind with its description, in one unpaginated list', async () => {
      const ws = await newWorkspace(t);
      const restricted = await newUser(t, ws, 'restricted');
      const res = await api(t, restricted, 'GET', '/v1/event-types');
      const body = ok(res);
      assert.deepEqual(Object.keys(body), ['data']);
      assert.deepEqual(body.data, EVENT_TYPE_NAMES.map((name) => ({ name, description: EVENT_TYPES[name] })));
      for (const kind of ['project.created', 'project.updated', 'project.archived', 'project.restored', 'project.deleted', 'user.added', 'user.updated', 'user.removed',
        'photo.created', 'task.completed', 'comment.created', 'document.uploaded', 'report.finished', 'tag.created', 'notification.created', 'webhook.ping']) {
        assert.ok(body.data.some((e: { name: string; description: string }) => e.name === kind && e.description.length > 10), kind);
      }
      assert.equal(res.headers.link, undefined);
    });
  });

  describe('GET /v1/events', () => {
    let ws: TestWorkspace;
    let p1: { id: string };
    let p2: { id: string };
    /** Every event of the workspace, newest first, as stored. */
    let all: Envelope[];
    before(async () => {
      ws = await newWorkspace(t);
      p1 = await createProject(ws.admin);
      p2 = await createProject(ws.admin);
      ok(await api(t, ws.admin, 'PATCH', `/v1/projects/${p1.id}`, { name: 'P1 renamed' }));
      ok(await api(t, ws.admin, 'POST', `/v1/projects/${p2.id}/archive`));
      await newUser(t, ws, 'standard');
      ok(await api(t, ws.admin, 'PATCH', `/v1/projects/${p2.id}`, { description: 'Archived, then edited' }));
      const rows = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', ws.id).orderBy('id', 'desc').execute();
      all = rows.map((r) => JSON.parse(r.payload) as Envelope);
    });

    /** Follows next_cursor to the end; returns the ids of every page in order. */
    async function walk(who: TestUser, query: string) {
      const ids: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const url = `/v1/events?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const res = await api(t, who, 'GET', url);
        const page = ok(res);
        pages++;
        ids.push(...page.data.map((e: Envelope) => e.id));
        if (page.has_more) assert.match(String(res.headers.link), /^<http:\/\/jobsite\.test\/v1\/events\?.*cursor=.*>; rel="next"$/);
        else assert.equal(res.headers.link, undefined);
        cursor = page.next_cursor;
        assert.equal(page.has_more, cursor !== null);
      } while (cursor);
      return { ids, pages };
    }

    it('lists the workspace\'s envelopes newest first, byte for byte as stored', async () => {
      assert.deepEqual(all.map((e) => e.event), ['project.updated', 'user.added', 'project.archived', 'project.updated', 'project.created', 'project.created', 'user.added']);
      const res = await api(t, ws.admin, 'GET', '/v1/events');
      assert.match(String(res.headers['content-type']), /^application\/json/);
      const rows = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', ws.id).orderBy('id', 'desc').execute();
      assert.equal(res.body, `{"data":[${rows.map((r) => r.payload).join(',')}],"has_more":false,"next_cursor":null}`);
      assert.deepEqual(res.json(), { data: all, has_more: false, next_cursor: null });
    });

    it('pages with limit and cursor, nothing skipped or repeated', async () => {
      const { ids, pages } = await walk(ws.admin, 'limit=2');
      assert.deepEqual(ids, all.map((e) => e.id));
      assert.equal(pages, 4);
    });

    it('filters by exact event name, by resource wildcard and by project', async () => {
      const ofKinds = (...kinds: string[]) => all.filter((e) => kinds.includes(e.event)).map((e) => e.id);
      assert.deepEqual((await walk(ws.admin, 'event=project.updated&limit=1')).ids, ofKinds('project.updated'));
      assert.deepEqual((await walk(ws.admin, 'event=project.*')).ids, all.filter((e) => e.event.startsWith('project.')).map((e) => e.id));
      assert.deepEqual((await walk(ws.admin, 'event=user.*')).ids, ofKinds('user.added'));
      assert.deepEqual((await walk(ws.admin, 'event=*')).ids, all.map((e) => e.id));
      assert.deepEqual((await walk(ws.admin, 'event=photo.created')).ids, []);
      assert.deepEqual((await walk(ws.admin, `project_id=${p2.id}&limit=1`)).ids, all.filter((e) => e.project_id === p2.id).map((e) => e.id));
      assert.deepEqual((await walk(ws.admin, `project_id=${p1.id}&event=project.updated`)).ids,
        all.filter((e) => e.project_id === p1.id && e.event === 'project.updated').map((e) => e.id));
    });

    it('filters by since (inclusive) and until (exclusive) on created_at, across pages keyed on id', async () => {
      const local = await newWorkspace(t);
      const project = await createProject(local.admin);
      for (let i = 0; i < 5; i++) ok(await api(t, local.admin, 'PATCH', `/v1/projects/${project.id}`, { name: `Step ${i}` }));
      const rows = await t.db.selectFrom('events').select('id').where('workspace_id', '=', local.id).orderBy('id').execute();
      assert.equal(rows.length, 7);
      // Times that disagree with id order: a later id may carry an earlier time (another process's clock).
      const base = Date.parse('2030-01-01T00:00:00.000Z');
      const minutes = [0, 10, 5, 30, 20, 40, 15];
      for (const [i, row] of rows.entries()) {
        await t.db.updateTable('events').set({ created_at: new Date(base + minutes[i]! * 60_000) }).where('id', '=', row.id).execute();
      }
      const expected = (from: number, to = Infinity) => rows.filter((_, i) => minutes[i]! >= from && minutes[i]! < to).map((r) => r.id).reverse();
      const at = (m: number) => new Date(base + m * 60_000).toISOString();

      assert.deepEqual((await walk(local.admin, `since=${at(15)}&limit=1`)).ids, expected(15));
      assert.deepEqual((await walk(local.admin, `since=${at(15)}&limit=2`)).ids, expected(15));
      assert.deepEqual((await walk(local.admin, `since=${at(10)}&until=${at(30)}&limit=2`)).ids, expected(10, 30));
      assert.deepEqual((await walk(local.admin, `until=${at(10)}`)).ids, expected(-1, 10));
      // RFC 3339 as the format admits it: lower case and an offset.
      assert.deepEqual((await walk(local.admin, `since=${encodeURIComponent('2030-01-01t01:15:00+01:00')}`)).ids, expected(15));
      assert.deepEqual((await walk(local.admin, `since=${at(41)}`)).ids, []);
    });

    it('refuses bad filters with 400', async () => {
      const bad: [string, string, string][] = [
        ['event=project.exploded', 'validation_failed', 'query.event'],
        ['event=bogus.*', 'validation_failed', 'query.event'],
        ['event=project.', 'validation_failed', 'query.event'],
        ['event=*.created', 'validation_failed', 'query.event'],
        ['event=', 'validation_failed', 'query.event'],
        [`event=${'x'.repeat(101)}`, 'validation_failed', 'query.event'],
        ['project_id=prj_nope', 'validation_failed', 'query.project_id'],
        ['since=yesterday', 'validation_failed', 'query.since'],
        ['since=2030-02-30T00:00:00Z', 'validation_failed', 'query.since'],
        ['until=2030-01-01', 'validation_failed', 'query.until'],
        ['since=2030-01-02T00:00:00Z&until=2030-01-01T00:00:00Z', 'validation_failed', 'query.until'],
        ['since=2030-01-01T00:00:00Z&until=2030-01-01T00:00:00Z', 'validation_failed', 'query.until'],
        ['limit=0', 'validation_failed', 'query.limit'],
        ['limit=101', 'validation_failed', 'query.limit'],
        ['cursor=garbage', 'invalid_cursor', 'query.cursor'],
        [`cursor=${cursorOf('id', [ws.admin.id])}`, 'invalid_cursor', 'query.cursor'],
        [`cursor=${cursorOf('id', [1])}`, 'invalid_cursor', 'query.cursor'],
        [`cursor=${cursorOf('created_at', [all[0]!.id])}`, 'invalid_cursor', 'query.cursor'],
        ['type=project.created', 'validation_failed', 'query.type'],
      ];
      for (const [query, code, path] of bad) {
        const res = await api(t, ws.admin, 'GET', `/v1/events?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.equal(res.json().code, code, query);
        if (code === 'validation_failed') assert.ok(res.json().errors.some((e: { path: string }) => e.path.startsWith(path)), `${query}: ${res.body}`);
      }
      // A forged cursor of the right shape is simply a position: no 500.
      ok(await api(t, ws.admin, 'GET', `/v1/events?cursor=${cursorOf('id', [newId('event')])}`));
    });
  });

  describe('GET /v1/events/{id}', () => {
    it('returns the stored envelope as it is, with an ETag that answers If-None-Match with 304', async () => {
      const ws = await newWorkspace(t);
      const { event } = await oneEvent(ws, 'project.created', () => createProject(ws.admin));
      const res = await api(t, ws.admin, 'GET', `/v1/events/${event.id}`);
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8$/);
      const stored = await t.db.selectFrom('events').select('payload').where('id', '=', event.id).executeTakeFirstOrThrow();
      assert.equal(res.body, stored.payload);
      assert.deepEqual(res.json(), event);
      const etag = String(res.headers.etag);
      assert.match(etag, /^"[\w-]+"$/);
      const again = await api(t, ws.admin, 'GET', `/v1/events/${event.id}`, undefined, { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      assert.equal((await api(t, ws.admin, 'GET', `/v1/events/${event.id}`, undefined, { 'if-none-match': '"other"' })).statusCode, 200);
      const head = await api(t, ws.admin, 'HEAD', `/v1/events/${event.id}`);
      assert.equal(head.statusCode, 200);
      assert.equal(head.headers.etag, etag);
    });

    it('answers 404 for another workspace\'s event, a missing one and a malformed id', async () => {
      const ws = await newWorkspace(t);
      const other = await newWorkspace(t);
      const { event } = await oneEvent(other, 'project.created', () => createProject(other.admin));
      assertProblem(await api(t, ws.admin, 'GET', `/v1/events/${event.id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, 'GET', `/v1/events/${newId('event')}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, 'GET', `/v1/events/${ws.admin.id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, 'GET', '/v1/events/evt_%00'), 404, 'not_found');
      assert.ok(!ok(await api(t, ws.admin, 'GET', '/v1/events')).data.some((e: Envelope) => e.workspace_id !== ws.id));
    });
  });

  describe('visibility', () => {
    it('restricted users see only events of projects they can see; everyone else sees all', async () => {
      const ws = await newWorkspace(t);
      const restricted = await newUser(t, ws, 'restricted');
      const standard = await newUser(t, ws, 'standard');
      const own = await createProject(restricted);
      const crewed = await createProject(ws.admin);
      const hidden = await createProject(ws.admin);
      ok(await api(t, ws.admin, 'PUT', `/v1/projects/${crewed.id}/members/${restricted.id}`));
      ok(await api(t, ws.admin, 'PATCH', `/v1/projects/${hidden.id}`, { name: 'Not for restricted eyes' }));
      const deleted = await createProject(ws.admin);
      ok(await api(t, ws.admin, 'PUT', `/v1/projects/${deleted.id}/members/${restricted.id}`));
      ok(await api(t, ws.admin, 'DELETE', `/v1/projects/${deleted.id}`), 204);

      const rows = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', ws.id).orderBy('id', 'desc').execute();
      const all = rows.map((r) => JSON.parse(r.payload) as Envelope);
      const visible = all.filter((e) => e.project_id === own.id || e.project_id === crewed.id);
      assert.ok(visible.length >= 3);
      assert.ok(all.some((e) => e.event === 'user.added'));

      const seen = ok(await api(t, restricted, 'GET', '/v1/events?limit=100')).data as Envelope[];
      assert.deepEqual(seen.map((e) => e.id), visible.map((e) => e.id));
      assert.deepEqual(ok(await api(t, restricted, 'GET', '/v1/events?event=user.*')).data, []);
      assert.deepEqual(ok(await api(t, restricted, 'GET', `/v1/events?project_id=${hidden.id}`)).data, []);
      for (const e of visible) assert.deepEqual(ok(await api(t, restricted, 'GET', `/v1/events/${e.id}`)), e);
      for (const e of all.filter((x) => !visible.includes(x))) assertProblem(await api(t, restricted, 'GET', `/v1/events/${e.id}`), 404, 'not_found');

      for (const who of [standard, ws.admin]) {
        assert.deepEqual((ok(await api(t, who, 'GET', '/v1/events?limit=100')).data as Envelope[]).map((e) => e.id), all.map((e) => e.id));
        for (const e of all) assert.equal((await api(t, who, 'GET', `/v1/events/${e.id}`)).statusCode, 200);
      }
    });
  });

  describe('retention', () => {
    it('the daily cleanup task deletes events older than 30 days, with their deliveries; fresher ones stay', async () => {
      const ws = await newWorkspace(t);
      const endpointId = newId('webhook');
      await t.db.insertInto('webhook_endpoints').values({ id: endpointId, workspace_id: ws.id, url: 'https://example.invalid/hook', events: ['*'], secret: 'whsec_test' }).execute();
      const log = new EventLog();
      const emit = () => t.db.transaction().execute((tx) => log.emit(tx, { workspaceId: ws.id, event: 'project.created', projectId: null, data: { n: 1 } }));
      const old = await emit();
      const borderline = await emit();
      const fresh = await emit();
      const day = 86_400_000;
      await t.db.updateTable('events').set({ created_at: new Date(Date.now() - (EVENT_RETENTION_DAYS + 1) * day) }).where('id', '=', old.id).execute();
      await t.db.updateTable('events').set({ created_at: new Date(Date.now() - (EVENT_RETENTION_DAYS - 1) * day) }).where('id', '=', borderline.id).execute();
      const oldDelivery = await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', old.id).executeTakeFirstOrThrow();
      await t.db.insertInto('webhook_attempts').values({ delivery_id: oldDelivery.id, attempted_at: new Date(), status_code: 500, duration_ms: 3 }).execute();

      const tasks = cleanupTasks(t.jobDeps());
      await tasks.purge_expired_events!(undefined, {} as JobHelpers);

      const left = await t.db.selectFrom('events').select('id').where('workspace_id', '=', ws.id).where('event', '=', 'project.created').orderBy('id').execute();
      assert.deepEqual(left.map((e) => e.id), [borderline.id, fresh.id]);
      assert.equal((await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', old.id).execute()).length, 0);
      assert.equal((await t.db.selectFrom('webhook_attempts').select('id').where('delivery_id', '=', oldDelivery.id).execute()).length, 0);
      assert.equal((await t.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', fresh.id).execute()).length, 1);
      assertProblem(await api(t, ws.admin, 'GET', `/v1/events/${old.id}`), 404, 'not_found');
    });

    it('deletes a backlog larger than one batch', async () => {
      const ws = await newWorkspace(t);
      await sql`insert into events (id, workspace_id, project_id, event, payload, created_at)
        select 'evt_' || lpad(g::text, 26, '0'), ${ws.id}, null, 'user.added', '{}', now() - interval '40 days'
        from generate_series(1, 12000) g`.execute(t.db);
      await cleanupTasks(t.jobDeps()).purge_expired_events!(undefined, {} as JobHelpers);
      const { n } = await t.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).where('workspace_id', '=', ws.id).executeTakeFirstOrThrow();
      assert.equal(Number(n), 1); // only the admin's user.added from provisioning
    });

    it('is scheduled daily in the worker\'s crontab', () => {
      const items = parseCrontab(CLEANUP_CRONTAB);
      const purge = items.find((i) => i.task === 'purge_expired_events');
      assert.ok(purge, CLEANUP_CRONTAB);
      assert.match(CLEANUP_CRONTAB, /^\d+ \d+ \* \* \* purge_expired_events$/m);
      assert.ok(cleanupTasks(t.jobDeps()).purge_expired_events);
    });
  });

  describe('docs/events.md', () => {
    it('lists every event kind with its description', async () => {
      const doc = await fs.readFile('docs/events.md', 'utf8');
      for (const name of EVENT_TYPE_NAMES) {
        assert.ok(doc.includes(`| \`${name}\` | ${EVENT_TYPES[name]} |`), `docs/events.md lacks the row of ${name}`);
      }
      // The operator's own kinds have a table of their own (## Operator events).
      for (const [name, description] of Object.entries(OPERATOR_EVENT_TYPES)) {
        assert.ok(doc.includes(`| \`${name}\` | ${description} |`), `docs/events.md lacks the row of ${name}`);
        assert.ok(doc.includes(`"event": "${name}"`), `docs/events.md has no example payload of ${name}`);
      }
      const rows = doc.split('\n').filter((line) => /^\| `[a-z_]+\.[a-z_]+` \|/.test(line));
      assert.equal(rows.length, EVENT_TYPE_NAMES.length + Object.keys(OPERATOR_EVENT_TYPES).length,
        'docs/events.md lists an event kind that EVENT_TYPES and OPERATOR_EVENT_TYPES do not have');
    });
  });

  describe('OpenAPI', () => {
    it('documents the event routes with full response schemas', async () => {
      const doc = (await api(t, null, 'GET', '/v1/openapi.json')).json();
      for (const path of ['/v1/event-types', '/v1/events', '/v1/events/{id}']) assert.ok(doc.paths[path]?.get, path);
      const single = doc.paths['/v1/events/{id}'].get;
      const ref = (s: { $ref?: string }) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
      const schema = ref(single.responses['200'].content['application/json'].schema);
      assert.deepEqual(Object.keys(schema.properties), ['id', 'event', 'project_id', 'workspace_id', 'created_at', 'data']);
      assert.deepEqual(schema.properties.event.enum, EVENT_TYPE_NAMES);
      assert.equal(schema.properties.data.additionalProperties, true);
      assert.ok(single.parameters.some((p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'if-none-match'));
      const list = doc.paths['/v1/events'].get;
      const names = list.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name).sort();
      assert.deepEqual(names, ['cursor', 'event', 'limit', 'project_id', 'since', 'until']);
    });
  });
});
