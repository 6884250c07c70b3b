import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { requestFingerprint } from '../src/http/idempotency.ts';
import type { App } from '../src/http/types.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

let t: TestContext;
let ws: TestWorkspace;

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
});
after(async () => t.close());

const newKey = () => `idem-${crypto.randomUUID()}`;
const newEmail = () => `idem-${crypto.randomUUID().slice(0, 8)}@example.test`;
const withKey = (key: string) => ({ 'idempotency-key': key });

async function usersWithEmail(email: string): Promise<number> {
  const row = await t.db.selectFrom('users').select((eb) => eb.fn.countAll<string>().as('n')).where('email', '=', email).executeTakeFirstOrThrow();
  return Number(row.n);
}

const scopeOf = (user: TestUser) => `${user.workspaceId}:${user.id}`;

describe('Idempotency-Key on POST', () => {
  it('replays the first response for the same key and body, and creates once', async () => {
    const key = newKey();
    const body = { email: newEmail(), first_name: 'Once' };
    const first = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.headers['idempotent-replayed'], undefined);

    for (let i = 0; i < 2; i++) {
      const again = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
      assert.equal(again.statusCode, 201);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.headers.location, first.headers.location);
      assert.equal(again.headers.etag, first.headers.etag);
      assert.match(String(again.headers['content-type']), /^application\/json/);
      assert.deepEqual(again.json(), first.json());
      assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id']);
    }
    assert.equal(await usersWithEmail(body.email), 1);
  });

  it('treats the same JSON with another key order or spacing as the same request', async () => {
    const key = newKey();
    const email = newEmail();
    const first = await api(t, ws.admin, 'POST', '/v1/users', `{"email":"${email}","role":"manager","first_name":"Ord"}`, { ...withKey(key), 'content-type': 'application/json' });
    assert.equal(first.statusCode, 201, first.body);
    const again = await api(t, ws.admin, 'POST', '/v1/users', `{ "first_name": "Ord",\n  "role": "manager", "email": "${email}" }`, { ...withKey(key), 'content-type': 'application/json' });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.json().id, first.json().id);
    assert.equal(await usersWithEmail(email), 1);
  });

  it('answers 422 when the key comes back with another body or path', async () => {
    const key = newKey();
    const email = newEmail();
    assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email }, withKey(key))).statusCode, 201);
    for (const [url, body] of [['/v1/users', { email: newEmail() }], ['/v1/users', { email, first_name: 'Extra' }], ['/v1/api-keys', { name: 'same key, other path' }]] as const) {
      const res = await api(t, ws.admin, 'POST', url, body, withKey(key));
      assert.equal(res.statusCode, 422, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().code, 'idempotency_key_reused');
    }
  });

  it('answers 409 while the first request is still in flight, and takes over an abandoned one', async () => {
    const key = newKey();
    const body = { email: newEmail() };
    await t.db.insertInto('idempotency_keys').values({
      scope: scopeOf(ws.admin), key, request_hash: requestFingerprint('POST', '/v1/users', body), status: 'in_flight',
    }).execute();
    const busy = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
    assert.equal(busy.statusCode, 409, busy.body);
    assert.equal(busy.json().code, 'idempotency_key_in_use');
    assert.equal(busy.headers['retry-after'], '1');
    assert.equal(await usersWithEmail(body.email), 0);

    // Its process died: after a couple of minutes the record no longer blocks the key.
    await t.db.updateTable('idempotency_keys').set({ created_at: sql`now() - interval '5 minutes'` })
      .where('scope', '=', scopeOf(ws.admin)).where('key', '=', key).execute();
    const taken = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
    assert.equal(taken.statusCode, 201, taken.body);
    assert.equal(await usersWithEmail(body.email), 1);
  });

  it('scopes keys to the calling user', async () => {
    const key = newKey();
    const manager = await newUser(t, ws, 'manager');
    const other = await newWorkspace(t);
    const a = await api(t, ws.admin, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
    const b = await api(t, manager, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
    const c = await api(t, other.admin, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
    for (const res of [a, b, c]) {
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers['idempotent-replayed'], undefined);
    }
    assert.equal(new Set([a, b, c].map((r) => r.json().id)).size, 3);
  });

  it('refuses a key that is too long, empty or not visible ASCII', async () => {
    for (const key of ['k'.repeat(256), '', 'has space', 'tab\tkey']) {
      const res = await api(t, ws.admin, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
      assert.equal(res.statusCode, 400, `${JSON.stringify(key)}: ${res.body}`);
      assert.equal(res.json().code, 'invalid_header');
      assert.equal(res.json().errors[0].path, 'header.idempotency-key');
    }
    const longest = await api(t, ws.admin, 'POST', '/v1/users', { email: newEmail() }, withKey('k'.repeat(255)));
    assert.equal(longest.statusCode, 201, longest.body);
  });

  it('stores and replays a 4xx answer', async () => {
    const taken = await newUser(t, ws, 'standard');
    const key = newKey();
    const first = await api(t, ws.admin, 'POST', '/v1/users', { email: taken.email }, withKey(key));
    assert.equal(first.statusCode, 409, first.body);
    assert.equal(first.json().code, 'email_taken');

    // Free the address: a fresh run would now succeed, but the key replays what it answered.
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/users/${taken.id}`, { email: newEmail() })).statusCode, 200);
    const replay = await api(t, ws.admin, 'POST', '/v1/users', { email: taken.email }, withKey(key));
    assert.equal(replay.statusCode, 409);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.match(String(replay.headers['content-type']), /^application\/problem\+json/);
    assert.deepEqual(replay.json(), first.json());
    assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email: taken.email }, withKey(newKey()))).statusCode, 201);
  });

  it('does not store a request that failed validation', async () => {
    const key = newKey();
    assert.equal((await api(t, ws.admin, 'POST', '/v1/users', { email: 42 }, withKey(key))).statusCode, 400);
    const fixed = await api(t, ws.admin, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
    assert.equal(fixed.statusCode, 201, fixed.body);
  });

  it('forgets a record after 24 hours and runs the request anew', async () => {
    const key = newKey();
    const body = { email: newEmail() };
    assert.equal((await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key))).statusCode, 201);
    const age = async (interval: string) => t.db.updateTable('idempotency_keys').set({ created_at: sql`now() - ${interval}::interval` })
      .where('scope', '=', scopeOf(ws.admin)).where('key', '=', key).execute();

    await age('23 hours 59 minutes');
    assert.equal((await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key))).headers['idempotent-replayed'], 'true');

    await age('24 hours 1 minute');
    const anew = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
    assert.equal(anew.statusCode, 409, anew.body); // it ran: the address is taken by the first run
    assert.equal(anew.json().code, 'email_taken');
    assert.equal(anew.headers['idempotent-replayed'], undefined);

    await age('25 hours');
    const other = await api(t, ws.admin, 'POST', '/v1/users', { email: newEmail() }, withKey(key));
    assert.equal(other.statusCode, 201, other.body); // not 422: the old request is forgotten
  });

  it('creates once when the same request races itself', async () => {
    const key = newKey();
    const body = { email: newEmail() };
    const results = await Promise.all(Array.from({ length: 5 }, () => api(t, ws.admin, 'POST', '/v1/users', body, withKey(key))));
    for (const res of results) assert.ok([201, 409].includes(res.statusCode), `${res.statusCode} ${res.body}`);
    const firsts = results.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    assert.equal(firsts.length, 1);
    for (const res of results.filter((r) => r.statusCode === 409)) assert.equal(res.json().code, 'idempotency_key_in_use');
    assert.equal(await usersWithEmail(body.email), 1);
  });

  it('replays on another API process: the store is the database', async () => {
    const second = await startTestApp({}, { databaseUrl: t.url });
    try {
      const key = newKey();
      const body = { email: newEmail() };
      const first = await api(t, ws.admin, 'POST', '/v1/users', body, withKey(key));
      assert.equal(first.statusCode, 201);
      const elsewhere = await api(second, ws.admin, 'POST', '/v1/users', body, withKey(key));
      assert.equal(elsewhere.statusCode, 201);
      assert.equal(elsewhere.headers['idempotent-replayed'], 'true');
      assert.equal(elsewhere.json().id, first.json().id);
    } finally {
      await second.close();
    }
  });

  it('ignores the header on methods other than POST', async () => {
    const key = newKey();
    const user = await newUser(t, ws, 'standard');
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { first_name: 'A' }, withKey(key))).statusCode, 200);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${user.id}`, undefined, withKey(key))).statusCode, 200);
    const rows = await t.db.selectFrom('idempotency_keys').select('key').where('key', '=', key).execute();
    assert.equal(rows.length, 0);
  });
});

describe('Idempotency-Key and one-time secrets (POST /v1/api-keys)', () => {
  it('never stores the secret, and a replay names the created key instead of showing it', async () => {
    const key = newKey();
    const first = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ci deploy' }, withKey(key));
    assert.equal(first.statusCode, 201, first.body);
    const created = first.json();
    assert.match(created.key, /^jsk_/);

    const stored = await t.db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirstOrThrow();
    assert.equal(stored.status, 'completed');
    assert.ok(!stored.response_body?.includes(created.key), 'the secret is not in the store');
    assert.equal(JSON.parse(stored.response_body!).key, null);
    const anywhere = await sql<{ n: string }>`select count(*) as n from idempotency_keys where response_body like ${`%${created.key}%`}`.execute(t.db);
    assert.equal(Number(anywhere.rows[0]!.n), 0);

    const replay = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ci deploy' }, withKey(key));
    assert.equal(replay.statusCode, 409, replay.body);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.match(String(replay.headers['content-type']), /^application\/problem\+json/);
    const problem = replay.json();
    assert.equal(problem.code, 'idempotency_key_secret');
    assert.equal(problem.resource_id, created.id);
    assert.equal(problem.location, `/v1/api-keys/${created.id}`);
    assert.ok(!replay.body.includes('jsk_'), 'no secret, real or fake, in the replay');

    // Only one key was made, and it works.
    const keys = await t.db.selectFrom('api_keys').select('id').where('name', '=', 'ci deploy').execute();
    assert.equal(keys.length, 1);
    assert.equal((await api(t, created.key, 'GET', '/v1/users/me')).statusCode, 200);
  });

  it('replays a stored error of the secret route as usual', async () => {
    const key = newKey();
    const first = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'nobody', user_id: 'usr_missing' }, withKey(key));
    assert.equal(first.statusCode, 404, first.body);
    const replay = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'nobody', user_id: 'usr_missing' }, withKey(key));
    assert.equal(replay.statusCode, 404);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), first.json());
  });
});

describe('Idempotency-Key and server errors', () => {
  let app: App;
  let calls = 0;

  before(async () => {
    app = await buildApp({ config: t.config, db: t.db, logger: false });
    app.post('/v1/test/flaky', async (_req, reply) => {
      calls++;
      if (calls === 1) throw new Error('transient failure');
      return reply.code(201).send({ call: calls });
    });
    await app.ready();
  });
  after(async () => app.close());

  it('does not store a 5xx, so the retry runs again', async () => {
    const key = newKey();
    const send = () => app.inject({ method: 'POST', url: '/v1/test/flaky', headers: { authorization: `Bearer ${ws.admin.key}`, ...withKey(key) } });
    assert.equal((await send()).statusCode, 500);
    const retry = await send();
    assert.equal(retry.statusCode, 201, retry.body);
    assert.deepEqual(retry.json(), { call: 2 });
    const replay = await send();
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.deepEqual(replay.json(), { call: 2 });
    assert.equal(calls, 2);
  });
});
