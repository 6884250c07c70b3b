import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isWellFormedApiKey } from '../src/http/api-key-secret.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext } from './helpers.ts';

const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('workspace', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp(); });
  after(async () => t.close());

  describe('GET /v1/workspace', () => {
    it('returns the caller\'s workspace, to every role and to read-only keys', async () => {
      const ws = await newWorkspace(t, 'Acme Builders');
      const users = [ws.admin, await newUser(t, ws, 'manager'), await newUser(t, ws, 'standard'), await newUser(t, ws, 'restricted')];
      const ro = await api(t, users[3]!, 'POST', '/v1/api-keys', { name: 'ro', read_only: true });
      for (const who of [...users.map((u) => u.key), ro.json().key as string]) {
        const res = await api(t, who, 'GET', '/v1/workspace');
        assert.equal(res.statusCode, 200);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['created_at', 'id', 'name', 'time_zone', 'updated_at']);
        assert.equal(body.time_zone, 'UTC');
        assert.equal(body.id, ws.id);
        assert.match(body.id, /^wsp_[0-9a-z]{26}$/);
        assert.equal(body.name, 'Acme Builders');
        assert.match(body.created_at, RFC3339_MS);
        assert.match(body.updated_at, RFC3339_MS);
        assert.ok(res.headers.etag);
      }
    });

    it('tells workspaces apart: each key sees only its own', async () => {
      const a = await newWorkspace(t, 'Alpha');
      const b = await newWorkspace(t, 'Beta');
      assert.equal((await api(t, a.admin, 'GET', '/v1/workspace')).json().name, 'Alpha');
      assert.equal((await api(t, b.admin, 'GET', '/v1/workspace')).json().name, 'Beta');
      assert.equal((await api(t, b.admin, 'GET', '/v1/workspace')).json().id, b.id);
    });

    it('answers 304 to a matching If-None-Match', async () => {
      const ws = await newWorkspace(t);
      const first = await api(t, ws.admin, 'GET', '/v1/workspace');
      const again = await api(t, ws.admin, 'GET', '/v1/workspace', undefined, { 'if-none-match': first.headers.etag as string });
      assert.equal(again.statusCode, 304);
    });

    it('needs a key; no POST, PUT or DELETE', async () => {
      const ws = await newWorkspace(t);
      assert.equal((await api(t, null, 'GET', '/v1/workspace')).statusCode, 401);
      for (const method of ['POST', 'PUT', 'DELETE']) {
        const res = await api(t, ws.admin, method, '/v1/workspace', method === 'DELETE' ? undefined : { name: 'x' });
        assert.equal(res.statusCode, 405, method);
      }
      assert.equal((await api(t, ws.admin, 'GET', '/v1/workspace')).json().name, ws.provisioned.workspace.name);
    });
  });

  describe('PATCH /v1/workspace', () => {
    it('lets an admin set the time zone (canonical IANA spelling) and the name', async () => {
      const ws = await newWorkspace(t, 'Before');
      const first = await api(t, ws.admin, 'GET', '/v1/workspace');
      const res = await api(t, ws.admin, 'PATCH', '/v1/workspace', { time_zone: 'america/chicago', name: 'After' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().time_zone, 'America/Chicago');
      assert.equal(res.json().name, 'After');
      assert.notEqual(res.headers.etag, first.headers.etag);
      assert.ok(res.json().updated_at > first.json().updated_at);
      assert.equal((await api(t, ws.admin, 'GET', '/v1/workspace')).json().time_zone, 'America/Chicago');
      // A stale If-Match is refused; nothing changes.
      const stale = await api(t, ws.admin, 'PATCH', '/v1/workspace', { time_zone: 'UTC' }, { 'if-match': first.headers.etag as string });
      assert.equal(stale.statusCode, 412);
      assert.equal((await api(t, ws.admin, 'GET', '/v1/workspace')).json().time_zone, 'America/Chicago');
    });

    it('refuses names that are not IANA time zones, and unknown fields', async () => {
      const ws = await newWorkspace(t);
      for (const zone of ['CEST', '+02:00', 'Mars/Olympus', '', 'Europe/Paris; drop table']) {
        const res = await api(t, ws.admin, 'PATCH', '/v1/workspace', { time_zone: zone });
        assert.equal(res.statusCode, 400, zone);
        assert.equal(res.json().code, 'validation_failed');
        assert.equal(res.json().errors[0].path, 'body.time_zone', zone);
      }
      assert.equal((await api(t, ws.admin, 'PATCH', '/v1/workspace', { id: 'wsp_x' })).statusCode, 400);
      assert.equal((await api(t, ws.admin, 'GET', '/v1/workspace')).json().time_zone, 'UTC');
    });

    it('is for admins only (403 for managers and below)', async () => {
      const ws = await newWorkspace(t);
      for (const role of ['manager', 'standard', 'restricted'] as const) {
        const user = await newUser(t, ws, role);
        const res = await api(t, user, 'PATCH', '/v1/workspace', { time_zone: 'Asia/Tokyo' });
        assert.equal(res.statusCode, 403, role);
      }
      assert.equal((await api(t, ws.admin, 'GET', '/v1/workspace')).json().time_zone, 'UTC');
    });
  });

  describe('GET /v1/users/me', () => {
    it('returns the user behind the key, not the key\'s creator', async () => {
      const ws = await newWorkspace(t);
      const u = await newUser(t, ws, 'restricted', { first_name: 'Rita' });
      const res = await api(t, u, 'GET', '/v1/users/me');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().id, u.id);
      assert.equal(res.json().first_name, 'Rita');
      assert.equal(res.json().role, 'restricted');
      assert.equal((await api(t, ws.admin, 'GET', '/v1/users/me')).json().id, ws.admin.id);
    });

    it('reflects the caller\'s own edits at once', async () => {
      const ws = await newWorkspace(t);
      const u = await newUser(t, ws, 'standard');
      await api(t, u, 'PATCH', `/v1/users/${u.id}`, { last_name: 'Renamed' });
      assert.equal((await api(t, u, 'GET', '/v1/users/me')).json().last_name, 'Renamed');
    });
  });

  describe('provisioning (the CLI\'s `workspace create`)', () => {
    it('makes a workspace, its admin and a working admin key, all at once', async () => {
      const made = await new WorkspacesService(t.db).provision({
        name: 'Provisioned', adminEmail: 'Boss.Person@Example.test', adminFirstName: 'Bo', adminLastName: 'Ss',
      });
      assert.match(made.workspace.id, /^wsp_/);
      assert.equal(made.workspace.name, 'Provisioned');
      assert.equal(made.admin.role, 'admin');
      assert.equal(made.admin.status, 'active');
      assert.equal(made.admin.email, 'Boss.Person@Example.test');
      assert.equal(made.admin.handle, 'bossperson');
      assert.equal(made.admin.first_name, 'Bo');
      assert.equal(made.api_key.user_id, made.admin.id);
      assert.equal(made.api_key.created_by, null);
      assert.equal(made.api_key.read_only, false);
      assert.ok(isWellFormedApiKey(made.api_key.key));
      assert.equal(made.api_key.prefix, made.api_key.key.slice(0, 8));

      const me = await api(t, made.api_key.key, 'GET', '/v1/users/me');
      assert.deepEqual(me.json(), made.admin);
      assert.deepEqual((await api(t, made.api_key.key, 'GET', '/v1/workspace')).json(), made.workspace);
      // last_used_at is written by a background flush (at most once a minute per key): it may or may not have landed yet.
      const { key: _secret, last_used_at: _used, ...view } = made.api_key;
      const { last_used_at: usedAt, ...read } = (await api(t, made.api_key.key, 'GET', `/v1/api-keys/${made.api_key.id}`)).json();
      assert.deepEqual(read, view);
      assert.ok(usedAt === null || !Number.isNaN(Date.parse(usedAt)), String(usedAt));
    });

    it('lets the same admin e-mail start several workspaces', async () => {
      const service = new WorkspacesService(t.db);
      const one = await service.provision({ name: 'One', adminEmail: 'owner@example.test' });
      const two = await service.provision({ name: 'Two', adminEmail: 'owner@example.test' });
      assert.notEqual(one.workspace.id, two.workspace.id);
      assert.equal(two.admin.handle, 'owner');
      assert.equal((await api(t, one.api_key.key, 'GET', '/v1/workspace')).json().id, one.workspace.id);
      assert.equal((await api(t, two.api_key.key, 'GET', '/v1/workspace')).json().id, two.workspace.id);
      // And they stay separate: each admin sees only their own user list.
      const list = (await api(t, one.api_key.key, 'GET', '/v1/users?status=all')).json().data;
      assert.deepEqual(list.map((u: { id: string }) => u.id), [one.admin.id]);
    });
  });
});
