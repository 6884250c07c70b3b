import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const USER_FIELDS = ['created_at', 'deactivated_at', 'email', 'first_name', 'handle', 'id', 'last_name', 'role', 'status', 'updated_at'];

let seq = 0;
const email = (local = 'person') => `${local}-${Date.now().toString(36)}${(seq++).toString(36)}@example.test`;

/** Every id shape that is not a user id of this workspace: all must answer 404, never 400 or 500. */
const WRONG_IDS = ['nope', 'usr_', 'usr_123', 'prj_01jd0000000000000000000000', 'usr_01JD0000000000000000000000',
  'usr_01jd000000000000000000000u', `usr_${'0'.repeat(150)}`, 'usr_%00', '%E2%9C%93', 'usr_01jd00000000000000000000%20'];

describe('users', () => {
  let t: TestContext;
  let ws: TestWorkspace;
  let manager: TestUser;
  let standard: TestUser;
  let restricted: TestUser;
  before(async () => {
    t = await startTestApp();
    ws = await newWorkspace(t);
    manager = await newUser(t, ws, 'manager');
    standard = await newUser(t, ws, 'standard');
    restricted = await newUser(t, ws, 'restricted');
  });
  after(async () => t.close());

  describe('GET /v1/users/me', () => {
    it('returns the caller, for every role', async () => {
      for (const who of [ws.admin, manager, standard, restricted]) {
        const res = await api(t, who, 'GET', '/v1/users/me');
        assert.equal(res.statusCode, 200);
        const me = res.json();
        assert.equal(me.id, who.id);
        assert.equal(me.role, who.role);
        assert.equal(me.email, who.email);
        assert.deepEqual(Object.keys(me).sort(), USER_FIELDS);
      }
    });
  });

  describe('POST /v1/users', () => {
    it('lets an admin add a user of any role, with defaults, a Location and an ETag', async () => {
      for (const role of ['admin', 'manager', 'standard', 'restricted']) {
        const address = email(role);
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: address, role, first_name: 'Ada', last_name: 'Lovelace' });
        assert.equal(res.statusCode, 201, res.body);
        const user = res.json();
        assert.match(user.id, /^usr_[0-9a-z]{26}$/);
        assert.equal(res.headers.location, `/v1/users/${user.id}`);
        assert.ok(res.headers.etag);
        assert.deepEqual(Object.keys(user).sort(), [...USER_FIELDS, 'invite_emailed', 'invite_expires_at', 'invite_url'].sort());
        assert.match(user.invite_url, /^http:\/\/jobsite\.test\/invite\/[A-Za-z0-9_-]{43}$/);
        assert.equal(user.invite_emailed, false, 'no SMTP configured: the admin passes the link on');
        assert.equal(user.role, role);
        assert.equal(user.email, address);
        assert.equal(user.first_name, 'Ada');
        assert.equal(user.last_name, 'Lovelace');
        assert.equal(user.status, 'active');
        assert.equal(user.deactivated_at, null);
        assert.match(user.created_at, RFC3339_MS);
        assert.match(user.updated_at, RFC3339_MS);
        const got = await api(t, ws.admin, 'GET', res.headers.location as string);
        const { invite_url: _url, invite_expires_at: _expires, invite_emailed: _emailed, ...stored } = user;
        assert.deepEqual(got.json(), stored);
      }
    });

    it('defaults role to standard and names to null', async () => {
      const res = await api(t, ws.admin, 'POST', '/v1/users', { email: email() });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().role, 'standard');
      assert.equal(res.json().first_name, null);
      assert.equal(res.json().last_name, null);
    });

    it('lets a manager add managers, standard and restricted users, but not admins', async () => {
      for (const role of ['manager', 'standard', 'restricted']) {
        const res = await api(t, manager, 'POST', '/v1/users', { email: email(), role });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.json().role, role);
      }
      const res = await api(t, manager, 'POST', '/v1/users', { email: email(), role: 'admin' });
      assert.equal(res.statusCode, 403);
      assert.equal(res.json().code, 'forbidden');
    });

    it('forbids standard and restricted users from adding anyone', async () => {
      for (const who of [standard, restricted]) {
        for (const role of [undefined, 'restricted', 'admin']) {
          const res = await api(t, who, 'POST', '/v1/users', { email: email(), ...(role ? { role } : {}) });
          assert.equal(res.statusCode, 403);
          assert.equal(res.json().code, 'forbidden');
        }
      }
    });

    it('rejects an e-mail already used in the workspace, case-insensitively (409 email_taken)', async () => {
      const address = email('Dupe');
      assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email: address })).statusCode, 201);
      for (const variant of [address, address.toUpperCase(), address.toLowerCase()]) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: variant, handle: `h${seq++}` });
        assert.equal(res.statusCode, 409, variant);
        assert.equal(res.json().code, 'email_taken');
      }
      // Also when the holder is deactivated: the row (and its address) stays.
      const gone = await newUser(t, ws, 'standard');
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${gone.id}`)).statusCode, 204);
      const res = await api(t, ws.admin, 'POST', '/v1/users', { email: gone.email });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().code, 'email_taken');
    });

    it('accepts the same e-mail and handle in another workspace', async () => {
      const other = await newWorkspace(t);
      const address = email('shared');
      const a = await api(t, ws.admin, 'POST', '/v1/users', { email: address, handle: 'shared-handle' });
      const b = await api(t, other.admin, 'POST', '/v1/users', { email: address, handle: 'shared-handle' });
      assert.equal(a.statusCode, 201);
      assert.equal(b.statusCode, 201);
      assert.notEqual(a.json().id, b.json().id);
      assert.equal(b.json().handle, 'shared-handle');
    });

    it('rejects a handle already used in the workspace, case-insensitively (409 handle_taken)', async () => {
      assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email: email(), handle: 'Bob_Builder' })).statusCode, 201);
      for (const handle of ['Bob_Builder', 'bob_builder', 'BOB_BUILDER']) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: email(), handle });
        assert.equal(res.statusCode, 409, handle);
        assert.equal(res.json().code, 'handle_taken');
      }
    });

    it('derives a handle from the e-mail, with -2, -3 … when taken', async () => {
      const local = `jane.doe${seq++}`;
      const plain = local.replace('.', '');
      const first = await api(t, ws.admin, 'POST', '/v1/users', { email: `${local}@one.test` });
      const second = await api(t, ws.admin, 'POST', '/v1/users', { email: `${local.toUpperCase()}@two.test` });
      const third = await api(t, ws.admin, 'POST', '/v1/users', { email: `${local}@three.test` });
      assert.equal(first.json().handle, plain);
      assert.equal(second.json().handle, `${plain}-2`);
      assert.equal(third.json().handle, `${plain}-3`);
      // A suffix already taken explicitly is skipped.
      assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email: email(), handle: `${plain}-4` })).statusCode, 201);
      const fifth = await api(t, ws.admin, 'POST', '/v1/users', { email: `${local}@five.test` });
      assert.equal(fifth.json().handle, `${plain}-5`);
    });

    it('derives a valid handle from any e-mail address', async () => {
      const handlePattern = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,37}[A-Za-z0-9_])?$/;
      const cases: Array<[string, string | RegExp]> = [
        [`-dash${seq}-@x.test`, `dash${seq++}`],
        [`${'a'.repeat(31)}-bcd${seq++}@x.test`, 'a'.repeat(31)], // cut at 32 would end with '-'
        [`${'b'.repeat(40)}@x.test`, 'b'.repeat(32)],
        [`${'c'.repeat(40)}@y.test`, `${'c'.repeat(32)}`],
        [`${'c'.repeat(40)}@z.test`, `${'c'.repeat(32)}-2`],
        [`o'brien+tag${seq}@x.test`, `obrientag${seq++}`],
        ['+++@x.test', /^user(-\d+)?$/],
        ['+++@y.test', /^user(-\d+)?$/],
      ];
      for (const [address, expected] of cases) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: address });
        assert.equal(res.statusCode, 201, `${address}: ${res.body}`);
        const { handle } = res.json();
        assert.match(handle, handlePattern, address);
        if (typeof expected === 'string') assert.equal(handle, expected, address);
        else assert.match(handle, expected, address);
      }
    });

    it('derives distinct handles for concurrent creations', async () => {
      const local = `rush${seq++}`;
      const results = await Promise.all([1, 2, 3, 4].map((n) => api(t, ws.admin, 'POST', '/v1/users', { email: `${local}@d${n}.test` })));
      for (const res of results) assert.equal(res.statusCode, 201, res.body);
      const handles = results.map((r) => r.json().handle).sort();
      assert.deepEqual(handles, [local, `${local}-2`, `${local}-3`, `${local}-4`]);
    });

    it('validates the handle pattern (400)', async () => {
      const bad = ['', '-abc', 'abc-', 'a b', 'a.b', 'ünï', 'a@b', 'x'.repeat(40), 42, null];
      for (const handle of bad) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: email(), handle });
        assert.equal(res.statusCode, 400, JSON.stringify(handle));
        assert.equal(res.json().code, 'validation_failed');
        assert.equal(res.json().errors[0].path, 'body.handle');
      }
      for (const handle of ['a', '_', 'a-b_c', `h${seq++}${'x'.repeat(30)}`.slice(0, 39)]) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', { email: email(), handle });
        assert.equal(res.statusCode, 201, `${handle}: ${res.body}`);
        assert.equal(res.json().handle, handle);
      }
    });

    it('rejects bad e-mails, roles, names and unknown fields (400), never 500', async () => {
      const bodies: Array<[unknown, string]> = [
        [{}, 'body.email'],
        [{ email: '' }, 'body.email'],
        [{ email: 'not-an-email' }, 'body.email'],
        [{ email: 42 }, 'body.email'],
        [{ email: `${'a'.repeat(250)}@x.test` }, 'body.email'],
        [{ email: email(), role: 'owner' }, 'body.role'],
        [{ email: email(), role: 'ADMIN' }, 'body.role'],
        [{ email: email(), first_name: '' }, 'body.first_name'],
        [{ email: email(), first_name: 'x'.repeat(101) }, 'body.first_name'],
        [{ email: email(), last_name: 'nul\u0000byte' }, 'body.last_name'],
        [{ email: email(), first_name: 'line\nbreak' }, 'body.first_name'],
        [{ email: email(), first_name: 7 }, 'body.first_name'],
        [{ email: email(), status: 'active' }, 'body.status'],
        [{ email: email(), id: 'usr_01jd0000000000000000000000' }, 'body.id'],
      ];
      for (const [body, path] of bodies) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().code, 'validation_failed');
        assert.equal(res.json().errors[0].path, path, JSON.stringify(body));
      }
      for (const raw of ['', '[]', '"x"', 'null', '{']) {
        const res = await api(t, ws.admin, 'POST', '/v1/users', raw, { 'content-type': 'application/json' });
        assert.equal(res.statusCode, 400, raw);
      }
    });

    it('accepts explicit null names', async () => {
      const res = await api(t, ws.admin, 'POST', '/v1/users', { email: email(), first_name: null, last_name: null });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().first_name, null);
    });
  });

  describe('GET /v1/users/{id}', () => {
    it('lets every role read any user of the workspace', async () => {
      for (const who of [ws.admin, manager, standard, restricted]) {
        const res = await api(t, who, 'GET', `/v1/users/${manager.id}`);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().id, manager.id);
        assert.ok(res.headers.etag);
      }
    });

    it('answers 404 for another workspace\'s user on every route', async () => {
      const other = await newWorkspace(t);
      const stranger = await newUser(t, other, 'standard');
      for (const [method, body] of [['GET', undefined], ['PATCH', { first_name: 'X' }], ['DELETE', undefined]] as const) {
        const res = await api(t, ws.admin, method, `/v1/users/${stranger.id}`, body);
        assert.equal(res.statusCode, 404, method);
        assert.equal(res.json().code, 'not_found');
      }
      // The admin of the other workspace is just as invisible.
      assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${other.admin.id}`)).statusCode, 404);
      // Nothing changed over there.
      const still = await api(t, other.admin, 'GET', `/v1/users/${stranger.id}`);
      assert.equal(still.json().status, 'active');
      assert.equal(still.json().first_name, null);
    });

    it('answers 404 (not 400 or 500) for ids of the wrong shape, on every route', async () => {
      for (const id of WRONG_IDS) {
        for (const [method, body] of [['GET', undefined], ['PATCH', { first_name: 'X' }], ['DELETE', undefined]] as const) {
          const res = await api(t, ws.admin, method, `/v1/users/${id}`, body);
          assert.equal(res.statusCode, 404, `${method} ${id}: ${res.body}`);
          assert.equal(res.json().code, 'not_found');
        }
      }
      // Beyond the router's parameter length limit (200) the answer is 414, still a problem.
      const huge = await api(t, ws.admin, 'GET', `/v1/users/usr_${'0'.repeat(300)}`);
      assert.equal(huge.statusCode, 414);
    });
  });

  describe('GET /v1/users', () => {
    let lw: TestWorkspace;
    let made: Record<string, string[]>;
    before(async () => {
      lw = await newWorkspace(t);
      made = { manager: [], standard: [], restricted: [], deactivated: [] };
      for (const role of ['manager', 'standard', 'restricted', 'standard', 'manager', 'restricted', 'standard']) {
        const res = await api(t, lw.admin, 'POST', '/v1/users', { email: email(), role });
        made[role]!.push(res.json().id);
      }
      for (const role of ['standard', 'manager']) {
        const res = await api(t, lw.admin, 'POST', '/v1/users', { email: email(), role });
        await api(t, lw.admin, 'DELETE', `/v1/users/${res.json().id}`);
        made.deactivated!.push(res.json().id);
      }
    });
    const ids = (res: { json(): { data: Array<{ id: string }> } }) => res.json().data.map((u) => u.id);

    it('lists active users, newest first, by default', async () => {
      const res = await api(t, lw.admin, 'GET', '/v1/users');
      assert.equal(res.statusCode, 200);
      const page = res.json();
      assert.equal(page.has_more, false);
      assert.equal(page.next_cursor, null);
      const got: string[] = ids(res);
      const active = [lw.admin.id, ...made.manager!, ...made.standard!, ...made.restricted!];
      assert.deepEqual([...got].sort(), [...active].sort());
      assert.deepEqual(got, [...got].sort().reverse(), 'newest first');
      for (const u of page.data) assert.equal(u.status, 'active');
      assert.deepEqual(ids(await api(t, lw.admin, 'GET', '/v1/users?status=active')), got);
    });

    it('filters by status deactivated and all', async () => {
      const deact = await api(t, lw.admin, 'GET', '/v1/users?status=deactivated');
      assert.deepEqual([...ids(deact)].sort(), [...made.deactivated!].sort());
      for (const u of deact.json().data) {
        assert.equal(u.status, 'deactivated');
        assert.match(u.deactivated_at, RFC3339_MS);
      }
      const all = await api(t, lw.admin, 'GET', '/v1/users?status=all');
      assert.equal(all.json().data.length, 1 + 7 + 2);
    });

    it('filters by role, alone and with status', async () => {
      const managers = await api(t, lw.admin, 'GET', '/v1/users?role=manager');
      assert.deepEqual([...ids(managers)].sort(), [...made.manager!].sort());
      const allManagers = await api(t, lw.admin, 'GET', '/v1/users?role=manager&status=all');
      assert.equal(allManagers.json().data.length, 3);
      const admins = await api(t, lw.admin, 'GET', '/v1/users?role=admin');
      assert.deepEqual(ids(admins), [lw.admin.id]);
      const deactStandard = await api(t, lw.admin, 'GET', '/v1/users?role=standard&status=deactivated');
      assert.deepEqual(ids(deactStandard), [made.deactivated![0]]);
    });

    it('is readable by every role', async () => {
      const r = await api(t, lw.admin, 'POST', '/v1/users', { email: email(), role: 'restricted' });
      const key = await api(t, lw.admin, 'POST', '/v1/api-keys', { name: 'r', user_id: r.json().id });
      const res = await api(t, key.json().key, 'GET', '/v1/users?status=all');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().data.length, 1 + 7 + 2 + 1);
    });

    it('pages through with limit and cursor, newest first, nothing skipped or repeated', async () => {
      const everyone: string[] = ids(await api(t, lw.admin, 'GET', '/v1/users?status=all'));
      const seen: string[] = [];
      let url = '/v1/users?status=all&limit=3';
      for (let pages = 0; pages < 10; pages++) {
        const res = await api(t, lw.admin, 'GET', url);
        assert.equal(res.statusCode, 200);
        const page = res.json();
        assert.ok(page.data.length <= 3);
        seen.push(...ids(res));
        if (!page.has_more) {
          assert.equal(page.next_cursor, null);
          assert.equal(res.headers.link, undefined);
          break;
        }
        assert.match(res.headers.link as string, /rel="next"/);
        url = `/v1/users?status=all&limit=3&cursor=${encodeURIComponent(page.next_cursor)}`;
        // A user added mid-scan is newer than the cursor: it never shows up in later pages.
        if (pages === 0) await api(t, lw.admin, 'POST', '/v1/users', { email: email() });
      }
      assert.deepEqual(seen, everyone);
    });

    it('never lists another workspace\'s users', async () => {
      const res = await api(t, ws.admin, 'GET', '/v1/users?status=all&limit=100');
      const got: string[] = ids(res);
      assert.ok(!got.includes(lw.admin.id));
      for (const id of made.standard!) assert.ok(!got.includes(id));
    });

    it('rejects bad filters (400)', async () => {
      for (const query of ['status=gone', 'status=ACTIVE', 'role=owner', 'limit=0', 'limit=101', 'limit=x', 'cursor=', 'cursor=garbage', 'colour=red']) {
        const res = await api(t, lw.admin, 'GET', `/v1/users?${query}`);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        assert.ok(['validation_failed', 'invalid_cursor'].includes(res.json().code), query);
      }
    });
  });

  describe('PATCH /v1/users/{id}', () => {
    it('lets every role edit their own name, handle and e-mail', async () => {
      for (const role of ['admin', 'manager', 'standard', 'restricted'] as const) {
        const me = await newUser(t, ws, role);
        const before = (await api(t, me, 'GET', '/v1/users/me')).json();
        const changes = { first_name: 'New', last_name: null, handle: `self-${role}-${seq++}`, email: email(`self-${role}`) };
        const res = await api(t, me, 'PATCH', `/v1/users/${me.id}`, changes);
        assert.equal(res.statusCode, 200, `${role}: ${res.body}`);
        const after = res.json();
        assert.equal(after.first_name, 'New');
        assert.equal(after.last_name, null);
        assert.equal(after.handle, changes.handle);
        assert.equal(after.email, changes.email);
        assert.equal(after.role, role);
        assert.ok(after.updated_at > before.updated_at);
        assert.equal(after.created_at, before.created_at);
        assert.notEqual(res.headers.etag, undefined);
      }
    });

    it('keeps unsent fields (merge semantics) and accepts an empty patch', async () => {
      const u = await newUser(t, ws, 'standard');
      await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { first_name: 'Keep', last_name: 'Me' });
      const res = await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { last_name: 'Changed' });
      assert.equal(res.json().first_name, 'Keep');
      assert.equal(res.json().last_name, 'Changed');
      const empty = await api(t, u, 'PATCH', `/v1/users/${u.id}`, {});
      assert.equal(empty.statusCode, 200);
      assert.equal(empty.json().first_name, 'Keep');
    });

    it('lets a non-admin re-send their own role and status unchanged', async () => {
      const res = await api(t, standard, 'PATCH', `/v1/users/${standard.id}`, { role: 'standard', status: 'active' });
      assert.equal(res.statusCode, 200);
    });

    it('forbids non-admins from changing their own role or status (403)', async () => {
      for (const role of ['manager', 'standard', 'restricted'] as const) {
        const me = await newUser(t, ws, role);
        const changes = [{ role: 'admin' }, { role: role === 'restricted' ? 'standard' : 'restricted' }, { status: 'deactivated' }];
        for (const change of changes) {
          const res = await api(t, me, 'PATCH', `/v1/users/${me.id}`, change);
          assert.equal(res.statusCode, 403, `${role} ${JSON.stringify(change)}: ${res.body}`);
          assert.equal(res.json().code, 'forbidden');
        }
        // DELETE on oneself is a status change too.
        const del = await api(t, me, 'DELETE', `/v1/users/${me.id}`);
        assert.equal(del.statusCode, 403, role);
        const still = (await api(t, me, 'GET', '/v1/users/me')).json();
        assert.equal(still.role, role);
        assert.equal(still.status, 'active');
      }
    });

    it('forbids standard and restricted users from editing anyone else (403)', async () => {
      const target = await newUser(t, ws, 'restricted');
      for (const who of [standard, restricted]) {
        for (const change of [{ first_name: 'X' }, { role: 'standard' }, { status: 'deactivated' }, {}]) {
          const res = await api(t, who, 'PATCH', `/v1/users/${target.id}`, change);
          assert.equal(res.statusCode, 403, `${who.role} ${JSON.stringify(change)}`);
        }
        assert.equal((await api(t, who, 'DELETE', `/v1/users/${target.id}`)).statusCode, 403);
      }
      assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${target.id}`)).json().first_name, null);
    });

    it('lets a manager edit, promote to manager and demote users below admin', async () => {
      const target = await newUser(t, ws, 'restricted');
      const other = await newUser(t, ws, 'manager');
      const steps: Array<[unknown, string]> = [
        [{ first_name: 'Edited' }, 'restricted'],
        [{ role: 'standard' }, 'standard'],
        [{ role: 'manager' }, 'manager'],
        [{ role: 'restricted' }, 'restricted'],
      ];
      for (const [change, role] of steps) {
        const res = await api(t, manager, 'PATCH', `/v1/users/${target.id}`, change);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.json().role, role);
      }
      const res = await api(t, manager, 'PATCH', `/v1/users/${other.id}`, { role: 'standard', handle: `demoted-${seq++}` });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().role, 'standard');
    });

    it('forbids a manager from granting admin or editing an admin (403)', async () => {
      const target = await newUser(t, ws, 'standard');
      const grant = await api(t, manager, 'PATCH', `/v1/users/${target.id}`, { role: 'admin' });
      assert.equal(grant.statusCode, 403);
      assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${target.id}`)).json().role, 'standard');
      const admin2 = await newUser(t, ws, 'admin');
      for (const change of [{ first_name: 'X' }, { role: 'manager' }, { status: 'deactivated' }, {}]) {
        const res = await api(t, manager, 'PATCH', `/v1/users/${admin2.id}`, change);
        assert.equal(res.statusCode, 403, JSON.stringify(change));
        assert.equal(res.json().code, 'forbidden');
      }
      assert.equal((await api(t, manager, 'DELETE', `/v1/users/${admin2.id}`)).statusCode, 403);
      const still = (await api(t, ws.admin, 'GET', `/v1/users/${admin2.id}`)).json();
      assert.equal(still.role, 'admin');
      assert.equal(still.status, 'active');
    });

    it('lets an admin change anyone\'s role, including granting admin', async () => {
      const target = await newUser(t, ws, 'restricted');
      const res = await api(t, ws.admin, 'PATCH', `/v1/users/${target.id}`, { role: 'admin' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().role, 'admin');
      // They act as an admin at once (the role change forgets their cached key).
      const made = await api(t, target, 'POST', '/v1/users', { email: email(), role: 'admin' });
      assert.equal(made.statusCode, 201);
      const back = await api(t, ws.admin, 'PATCH', `/v1/users/${target.id}`, { role: 'restricted' });
      assert.equal(back.json().role, 'restricted');
      assert.equal((await api(t, target, 'POST', '/v1/users', { email: email() })).statusCode, 403);
      assert.equal((await api(t, target, 'GET', '/v1/users/me')).json().role, 'restricted');
    });

    it('rejects an e-mail or handle another user has, case-insensitively (409), but allows re-casing one\'s own', async () => {
      const a = await newUser(t, ws, 'standard');
      const b = await newUser(t, ws, 'standard');
      const byEmail = await api(t, a, 'PATCH', `/v1/users/${a.id}`, { email: b.email.toUpperCase() });
      assert.equal(byEmail.statusCode, 409);
      assert.equal(byEmail.json().code, 'email_taken');
      const byHandle = await api(t, ws.admin, 'PATCH', `/v1/users/${a.id}`, { handle: b.handle.toUpperCase() });
      assert.equal(byHandle.statusCode, 409);
      assert.equal(byHandle.json().code, 'handle_taken');
      const unchanged = (await api(t, a, 'GET', '/v1/users/me')).json();
      assert.equal(unchanged.email, a.email);
      assert.equal(unchanged.handle, a.handle);
      const recased = await api(t, a, 'PATCH', `/v1/users/${a.id}`, { email: a.email.toUpperCase(), handle: a.handle.toUpperCase() });
      assert.equal(recased.statusCode, 200);
      assert.equal(recased.json().handle, a.handle.toUpperCase());
    });

    it('rejects bad patches (400), never 500', async () => {
      const u = await newUser(t, ws, 'standard');
      const bodies: Array<[unknown, string]> = [
        [{ role: 'owner' }, 'body.role'],
        [{ status: 'gone' }, 'body.status'],
        [{ status: null }, 'body.status'],
        [{ handle: '-x' }, 'body.handle'],
        [{ email: 'nope' }, 'body.email'],
        [{ email: null }, 'body.email'],
        [{ first_name: '' }, 'body.first_name'],
        [{ first_name: 'a\u0000b' }, 'body.first_name'],
        [{ deactivated_at: null }, 'body.deactivated_at'],
        [{ id: 'usr_x' }, 'body.id'],
      ];
      for (const [body, path] of bodies) {
        const res = await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().errors[0].path, path);
      }
      for (const raw of ['', 'null', '[]', '{"role":']) {
        const res = await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, raw, { 'content-type': 'application/json' });
        assert.equal(res.statusCode, 400, raw);
      }
    });

    it('honours If-Match, after the access check', async () => {
      const u = await newUser(t, ws, 'standard');
      const got = await api(t, ws.admin, 'GET', `/v1/users/${u.id}`);
      const etag = got.headers.etag as string;
      const ok = await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { first_name: 'One' }, { 'if-match': etag });
      assert.equal(ok.statusCode, 200);
      assert.notEqual(ok.headers.etag, etag);
      const stale = await api(t, ws.admin, 'PATCH', `/v1/users/${u.id}`, { first_name: 'Two' }, { 'if-match': etag });
      assert.equal(stale.statusCode, 412);
      // Someone who may not edit at all learns nothing from the precondition.
      const forbidden = await api(t, restricted, 'PATCH', `/v1/users/${u.id}`, { first_name: 'Two' }, { 'if-match': etag });
      assert.equal(forbidden.statusCode, 403);
      const staleDelete = await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`, undefined, { 'if-match': etag });
      assert.equal(staleDelete.statusCode, 412);
      assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${u.id}`)).json().first_name, 'One');
    });
  });

  describe('the last active admin', () => {
    it('cannot be demoted or deactivated (422 last_admin); with a second admin it can', async () => {
      const w = await newWorkspace(t);
      const m = await newUser(t, w, 'manager');
      for (const change of [{ role: 'manager' }, { role: 'restricted' }, { status: 'deactivated' }]) {
        const res = await api(t, w.admin, 'PATCH', `/v1/users/${w.admin.id}`, change);
        assert.equal(res.statusCode, 422, JSON.stringify(change));
        assert.equal(res.json().code, 'last_admin');
      }
      const del = await api(t, w.admin, 'DELETE', `/v1/users/${w.admin.id}`);
      assert.equal(del.statusCode, 422);
      assert.equal(del.json().code, 'last_admin');
      // A manager trying the same is simply forbidden.
      assert.equal((await api(t, m, 'DELETE', `/v1/users/${w.admin.id}`)).statusCode, 403);

      // A deactivated admin does not count as another admin.
      const dormant = await api(t, w.admin, 'POST', '/v1/users', { email: email(), role: 'admin' });
      assert.equal((await api(t, w.admin, 'DELETE', `/v1/users/${dormant.json().id}`)).statusCode, 204);
      assert.equal((await api(t, w.admin, 'PATCH', `/v1/users/${w.admin.id}`, { role: 'standard' })).statusCode, 422);
      // Neither does a reactivation of a non-admin; an admin re-sending their role is fine.
      assert.equal((await api(t, w.admin, 'PATCH', `/v1/users/${w.admin.id}`, { role: 'admin', status: 'active' })).statusCode, 200);

      const second = await newUser(t, w, 'admin');
      const demote = await api(t, w.admin, 'PATCH', `/v1/users/${w.admin.id}`, { role: 'manager' });
      assert.equal(demote.statusCode, 200);
      assert.equal(demote.json().role, 'manager');
      // Now `second` is the last one.
      const res = await api(t, second, 'DELETE', `/v1/users/${second.id}`);
      assert.equal(res.statusCode, 422);
      assert.equal(res.json().code, 'last_admin');
    });

    it('survives two admins demoting each other at the same time', async () => {
      for (let round = 0; round < 5; round++) {
        const w = await newWorkspace(t);
        const b = await newUser(t, w, 'admin');
        const [ab, ba] = await Promise.all([
          api(t, w.admin, 'PATCH', `/v1/users/${b.id}`, { role: 'standard' }),
          api(t, b, 'DELETE', `/v1/users/${w.admin.id}`),
        ]);
        const codes = [ab.statusCode, ba.statusCode].sort();
        // Exactly one wins; the other is refused (422, or 401/403 if it ran after losing admin).
        assert.equal(codes.filter((c) => c < 300).length, 1, `round ${round}: ${ab.body} ${ba.body}`);
        const admins = await t.db.selectFrom('users').select('id')
          .where('workspace_id', '=', w.id).where('role', '=', 'admin').where('status', '=', 'active').execute();
        assert.equal(admins.length, 1, `round ${round}`);
      }
    });
  });

  describe('DELETE /v1/users/{id} (deactivate)', () => {
    it('deactivates: 204, status and deactivated_at set, every key revoked at once, still readable', async () => {
      const u = await newUser(t, ws, 'standard');
      const second = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'second', user_id: u.id });
      // Warm the authenticator's cache for both keys.
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).statusCode, 200);
      assert.equal((await api(t, second.json().key, 'GET', '/v1/users/me')).statusCode, 200);

      const del = await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`);
      assert.equal(del.statusCode, 204);
      assert.equal(del.body, '');

      for (const key of [u.key, second.json().key]) {
        const res = await api(t, key, 'GET', '/v1/users/me');
        assert.equal(res.statusCode, 401);
        assert.equal(res.json().code, 'revoked_api_key');
      }
      const got = await api(t, ws.admin, 'GET', `/v1/users/${u.id}`);
      assert.equal(got.statusCode, 200);
      assert.equal(got.json().status, 'deactivated');
      assert.match(got.json().deactivated_at, RFC3339_MS);
      const keys = await api(t, ws.admin, 'GET', `/v1/api-keys?user_id=${u.id}`);
      assert.equal(keys.json().data.length, 2);
      for (const k of keys.json().data) assert.match(k.revoked_at, RFC3339_MS);
      assert.equal((await api(t, ws.admin, 'GET', `/v1/api-keys?user_id=${u.id}&status=active`)).json().data.length, 0);
    });

    it('is idempotent: deactivating again is 204 and changes nothing', async () => {
      const u = await newUser(t, ws, 'restricted');
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`)).statusCode, 204);
      const first = (await api(t, ws.admin, 'GET', `/v1/users/${u.id}`)).json();
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`)).statusCode, 204);
      assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/users/${u.id}`)).json(), first);
    });

    it('lets a manager deactivate users below admin, an admin deactivate another admin', async () => {
      for (const role of ['manager', 'standard', 'restricted'] as const) {
        const u = await newUser(t, ws, role);
        assert.equal((await api(t, manager, 'DELETE', `/v1/users/${u.id}`)).statusCode, 204, role);
      }
      const admin2 = await newUser(t, ws, 'admin');
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${admin2.id}`)).statusCode, 204);
      assert.equal((await api(t, admin2, 'GET', '/v1/workspace')).json().code, 'revoked_api_key');
    });

    it('works through PATCH status too, revoking the keys', async () => {
      const u = await newUser(t, ws, 'standard');
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).statusCode, 200);
      const res = await api(t, manager, 'PATCH', `/v1/users/${u.id}`, { status: 'deactivated' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'deactivated');
      assert.match(res.json().deactivated_at, RFC3339_MS);
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).json().code, 'revoked_api_key');
    });

    it('an admin may deactivate themselves when another admin remains; their key stops at once', async () => {
      const w = await newWorkspace(t);
      const other = await newUser(t, w, 'admin');
      assert.equal((await api(t, other, 'DELETE', `/v1/users/${other.id}`)).statusCode, 204);
      assert.equal((await api(t, other, 'GET', '/v1/users/me')).json().code, 'revoked_api_key');
    });
  });

  describe('reactivation', () => {
    it('PATCH status active reactivates; old keys stay revoked; a new key works', async () => {
      const u = await newUser(t, ws, 'standard');
      await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`);
      const denied = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'while away', user_id: u.id });
      assert.equal(denied.statusCode, 422);
      assert.equal(denied.json().code, 'user_inactive');

      const res = await api(t, manager, 'PATCH', `/v1/users/${u.id}`, { status: 'active' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().status, 'active');
      assert.equal(res.json().deactivated_at, null);

      const old = await api(t, u, 'GET', '/v1/users/me');
      assert.equal(old.statusCode, 401);
      assert.equal(old.json().code, 'revoked_api_key');
      const fresh = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'back', user_id: u.id });
      assert.equal(fresh.statusCode, 201);
      const me = await api(t, fresh.json().key, 'GET', '/v1/users/me');
      assert.equal(me.statusCode, 200);
      assert.equal(me.json().id, u.id);
      assert.ok((await api(t, ws.admin, 'GET', '/v1/users')).json().data.some((x: { id: string }) => x.id === u.id));
    });

    it('is forbidden to standard users and, for an admin, to managers', async () => {
      const u = await newUser(t, ws, 'standard');
      await api(t, ws.admin, 'DELETE', `/v1/users/${u.id}`);
      assert.equal((await api(t, standard, 'PATCH', `/v1/users/${u.id}`, { status: 'active' })).statusCode, 403);
      const a = await newUser(t, ws, 'admin');
      await api(t, ws.admin, 'DELETE', `/v1/users/${a.id}`);
      assert.equal((await api(t, manager, 'PATCH', `/v1/users/${a.id}`, { status: 'active' })).statusCode, 403);
      assert.equal((await api(t, ws.admin, 'PATCH', `/v1/users/${a.id}`, { status: 'active' })).statusCode, 200);
    });
  });
});
