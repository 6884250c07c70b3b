import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

describe('project crews', () => {
  let t: TestContext;
  let ws: TestWorkspace;
  before(async () => {
    t = await startTestApp();
    ws = await newWorkspace(t);
  });
  after(async () => t.close());

  async function createProject(who: TestUser, name = 'Crew project') {
    const res = await api(t, who, 'POST', '/v1/projects', { name });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { id: string; updated_at: string; member_ids: string[] };
  }
  const getProject = async (id: string) => (await api(t, ws.admin, 'GET', `/v1/projects/${id}`)).json();

  it('PUT adds a member (200 with the User) and is idempotent; only a real addition moves updated_at', async () => {
    const worker = await newUser(t, ws, 'standard', { first_name: 'Wes' });
    const p = await createProject(ws.admin);
    const res = await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`);
    assert.equal(res.statusCode, 200, res.body);
    const user = res.json();
    assert.equal(user.id, worker.id);
    assert.equal(user.first_name, 'Wes');
    assert.equal(user.role, 'standard');
    assert.equal(user.status, 'active');
    assert.deepEqual(Object.keys(user).sort(), ['created_at', 'deactivated_at', 'email', 'first_name', 'handle', 'id', 'last_name', 'role', 'status', 'updated_at']);

    const afterAdd = await getProject(p.id);
    assert.deepEqual(afterAdd.member_ids, [worker.id]);
    assert.ok(afterAdd.updated_at > p.updated_at);

    const again = await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), user);
    const afterAgain = await getProject(p.id);
    assert.deepEqual(afterAgain.member_ids, [worker.id]);
    assert.equal(afterAgain.updated_at, afterAdd.updated_at);
  });

  it('DELETE removes a member (204) and is idempotent; only a real removal moves updated_at', async () => {
    const worker = await newUser(t, ws, 'standard');
    const p = await createProject(ws.admin);
    await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`);
    const added = await getProject(p.id);

    const res = await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}/members/${worker.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const removed = await getProject(p.id);
    assert.deepEqual(removed.member_ids, []);
    assert.ok(removed.updated_at > added.updated_at);

    const again = await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}/members/${worker.id}`);
    assert.equal(again.statusCode, 204);
    assert.equal((await getProject(p.id)).updated_at, removed.updated_at);

    const never = await newUser(t, ws, 'standard');
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}/members/${never.id}`)).statusCode, 204);
    assert.equal((await getProject(p.id)).updated_at, removed.updated_at);
  });

  it('a member change makes an old ETag stale', async () => {
    const worker = await newUser(t, ws, 'standard');
    const p = await createProject(ws.admin);
    const etag = (await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`)).headers.etag as string;
    await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`, undefined, { 'if-none-match': etag })).statusCode, 200);
    const stale = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { name: 'x' }, { 'if-match': etag });
    assert.equal(stale.statusCode, 412);
  });

  it('refuses a deactivated user with 422 user_inactive, but keeps one already on the crew', async () => {
    const leaver = await newUser(t, ws, 'standard');
    const stayer = await newUser(t, ws, 'standard');
    const p = await createProject(ws.admin);
    await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${stayer.id}`);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${leaver.id}`)).statusCode, 204);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${stayer.id}`)).statusCode, 204);
    const before = await getProject(p.id);

    const res = await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${leaver.id}`);
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().code, 'user_inactive');
    const again = await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${stayer.id}`);
    assert.equal(again.statusCode, 422);

    const after = await getProject(p.id);
    assert.deepEqual(after.member_ids, [stayer.id]);
    assert.equal(after.updated_at, before.updated_at);
    const members = (await api(t, ws.admin, 'GET', `/v1/projects/${p.id}/members`)).json();
    assert.equal(members.data[0].status, 'deactivated');
    // Removing a deactivated member still works.
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}/members/${stayer.id}`)).statusCode, 204);
    assert.deepEqual((await getProject(p.id)).member_ids, []);
  });

  it('an unknown, malformed or other-workspace user is 404', async () => {
    const p = await createProject(ws.admin);
    const other = await newWorkspace(t);
    for (const userId of ['usr_01jzzzzzzzzzzzzzzzzzzzzzzz', 'bob', 'usr_%00', other.admin.id, p.id]) {
      for (const method of ['PUT', 'DELETE']) {
        const res = await api(t, ws.admin, method, `/v1/projects/${p.id}/members/${userId}`);
        assert.equal(res.statusCode, 404, `${method} ${userId}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
    }
    assert.deepEqual((await getProject(p.id)).member_ids, []);
  });

  it('a missing project is 404 before anything else', async () => {
    const worker = await newUser(t, ws, 'standard');
    for (const [method, url] of [
      ['GET', '/v1/projects/prj_01jzzzzzzzzzzzzzzzzzzzzzzz/members'],
      ['PUT', `/v1/projects/prj_01jzzzzzzzzzzzzzzzzzzzzzzz/members/${worker.id}`],
      ['DELETE', `/v1/projects/nope/members/${worker.id}`],
    ] as const) {
      assert.equal((await api(t, ws.admin, method, url)).statusCode, 404);
    }
  });

  it('lists the crew as User objects, paginated newest user first, with Link headers', async () => {
    const p = await createProject(ws.admin);
    const crew: string[] = [];
    for (let i = 0; i < 5; i++) {
      const u = await newUser(t, ws, 'standard');
      crew.push(u.id);
      await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${u.id}`);
    }
    assert.deepEqual((await getProject(p.id)).member_ids, [...crew].sort());

    const seen: string[] = [];
    let url: string | null = `/v1/projects/${p.id}/members?limit=2`;
    let pages = 0;
    while (url) {
      const res = await api(t, ws.admin, 'GET', url);
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json();
      pages++;
      seen.push(...page.data.map((u: { id: string; email: string }) => { assert.ok(u.email); return u.id; }));
      if (page.has_more) {
        assert.match(String(res.headers.link), new RegExp(`^<http://jobsite\\.test/v1/projects/${p.id}/members\\?limit=2&cursor=[\\w-]+>; rel="next"$`));
        url = `/v1/projects/${p.id}/members?limit=2&cursor=${page.next_cursor}`;
        // A member added during the scan is newer than the cursor: it never shows up twice or pushes another out.
        if (pages === 1) await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${(await newUser(t, ws, 'standard')).id}`);
      } else {
        assert.equal(res.headers.link, undefined);
        url = null;
      }
    }
    assert.equal(pages, 3);
    assert.deepEqual(seen, [...crew].reverse());
  });

  it('validates the member list query', async () => {
    const p = await createProject(ws.admin);
    for (const [query, code] of [['limit=0', 'validation_failed'], ['limit=101', 'validation_failed'], ['role=admin', 'validation_failed'],
      ['cursor=garbage', 'invalid_cursor'], [`cursor=${Buffer.from(JSON.stringify({ s: 'id', v: [3] })).toString('base64url')}`, 'invalid_cursor']]) {
      const res = await api(t, ws.admin, 'GET', `/v1/projects/${p.id}/members?${query}`);
      assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
      assert.equal(res.json().code, code);
    }
    const empty = (await api(t, ws.admin, 'GET', `/v1/projects/${p.id}/members`)).json();
    assert.deepEqual(empty, { data: [], has_more: false, next_cursor: null });
  });

  it('a PUT body or unknown fields do not matter: the path says it all', async () => {
    const worker = await newUser(t, ws, 'standard');
    const p = await createProject(ws.admin);
    const res = await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`, '', { 'content-type': 'application/json' });
    assert.equal(res.statusCode, 200, res.body);
  });

  describe('roles', () => {
    let restricted: TestUser;
    let standard: TestUser;
    let manager: TestUser;
    before(async () => {
      restricted = await newUser(t, ws, 'restricted');
      standard = await newUser(t, ws, 'standard');
      manager = await newUser(t, ws, 'manager');
    });

    it('admin, manager and standard manage crews', async () => {
      const p = await createProject(ws.admin);
      for (const who of [ws.admin, manager, standard]) {
        const target = await newUser(t, ws, 'standard');
        assert.equal((await api(t, who, 'PUT', `/v1/projects/${p.id}/members/${target.id}`)).statusCode, 200);
        assert.equal((await api(t, who, 'DELETE', `/v1/projects/${p.id}/members/${target.id}`)).statusCode, 204);
      }
    });

    it('restricted users may not manage crews (403), not even on their own project', async () => {
      const own = await createProject(restricted, 'Restricted own');
      const target = await newUser(t, ws, 'standard');
      for (const method of ['PUT', 'DELETE']) {
        const res = await api(t, restricted, method, `/v1/projects/${own.id}/members/${target.id}`);
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().code, 'forbidden');
      }
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${own.id}/members`)).statusCode, 200);
    });

    it('joining a crew makes a project visible to a restricted user; leaving hides it again', async () => {
      const p = await createProject(standard, 'Visible by crew');
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${p.id}`)).statusCode, 404);
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${p.id}/members`)).statusCode, 404);
      assert.equal((await api(t, restricted, 'PUT', `/v1/projects/${p.id}/members/${restricted.id}`)).statusCode, 404);

      assert.equal((await api(t, standard, 'PUT', `/v1/projects/${p.id}/members/${restricted.id}`)).statusCode, 200);
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${p.id}`)).statusCode, 200);
      const members = (await api(t, restricted, 'GET', `/v1/projects/${p.id}/members`)).json();
      assert.deepEqual(members.data.map((u: { id: string }) => u.id), [restricted.id]);
      const listed = (await api(t, restricted, 'GET', `/v1/projects?member_id=${restricted.id}`)).json();
      assert.ok(listed.data.some((x: { id: string }) => x.id === p.id));
      // Visible, but not theirs: crew changes are 403 now, not 404.
      assert.equal((await api(t, restricted, 'DELETE', `/v1/projects/${p.id}/members/${restricted.id}`)).statusCode, 403);

      assert.equal((await api(t, standard, 'DELETE', `/v1/projects/${p.id}/members/${restricted.id}`)).statusCode, 204);
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${p.id}`)).statusCode, 404);
    });

    it('a read-only key cannot change a crew', async () => {
      const ro = (await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ro', read_only: true })).json().key as string;
      const p = await createProject(ws.admin);
      const res = await api(t, ro, 'PUT', `/v1/projects/${p.id}/members/${standard.id}`);
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'read_only_key');
    });
  });

  it('another workspace\'s project is 404 for every crew route', async () => {
    const away = await newWorkspace(t);
    const awayWorker = await newUser(t, away, 'standard');
    const p = await createProject(away.admin);
    await api(t, away.admin, 'PUT', `/v1/projects/${p.id}/members/${awayWorker.id}`);
    const homeWorker = await newUser(t, ws, 'standard');
    for (const [method, url] of [
      ['GET', `/v1/projects/${p.id}/members`],
      ['PUT', `/v1/projects/${p.id}/members/${homeWorker.id}`],
      ['PUT', `/v1/projects/${p.id}/members/${awayWorker.id}`],
      ['DELETE', `/v1/projects/${p.id}/members/${awayWorker.id}`],
    ] as const) {
      const res = await api(t, ws.admin, method, url);
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    const project = (await api(t, away.admin, 'GET', `/v1/projects/${p.id}`)).json();
    assert.deepEqual(project.member_ids, [awayWorker.id]);
  });

  it('concurrent PUTs of the same member all succeed and add it once', async () => {
    const worker = await newUser(t, ws, 'standard');
    const p = await createProject(ws.admin);
    const results = await Promise.all(Array.from({ length: 5 }, () => api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${worker.id}`)));
    assert.deepEqual(results.map((r) => r.statusCode), [200, 200, 200, 200, 200]);
    assert.deepEqual((await getProject(p.id)).member_ids, [worker.id]);
  });
});
