/**
 * The API key life cycle (issue 7): expiry set at creation (API and `keys create --expires-in`),
 * last_used_at recorded at most once a minute off the request path, and rotation with a grace
 * period during which the old secret keeps working.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { KeyUsageRecorder } from '../src/http/key-usage.ts';
import { cliEnv, runCli } from './cli-process.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

let t: TestContext;
let ws: TestWorkspace;

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
});
after(async () => {
  await t.close();
});

const sleepUntil = async (at: number) => {
  while (Date.now() <= at) await new Promise((r) => setTimeout(r, Math.max(5, at - Date.now() + 5)));
};

async function createKey(body: Record<string, unknown> = {}, who: { key: string } = ws.admin) {
  const res = await api(t, who, 'POST', '/v1/api-keys', { name: 'lifecycle', ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; key: string; expires_at: string | null; status: string; last_used_at: string | null };
}

const code = async (key: string) => {
  const res = await api(t, key, 'GET', '/v1/users/me');
  return res.statusCode === 200 ? 'ok' : `${res.statusCode} ${res.json().code}`;
};

describe('expiry', () => {
  it('takes expires_at at creation and answers 401 expired_api_key once it has passed', async () => {
    const expiresAt = new Date(Date.now() + 1500);
    const key = await createKey({ expires_at: expiresAt.toISOString() });
    assert.equal(key.expires_at, expiresAt.toISOString());
    assert.equal(key.status, 'active');
    assert.equal(await code(key.key), 'ok'); // cached now: the cache must not outlive the expiry
    await sleepUntil(expiresAt.getTime());
    const res = await api(t, key.key, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'expired_api_key');
    assert.match(res.headers['www-authenticate'] as string, /error="invalid_token"/);
    const view = (await api(t, ws.admin, 'GET', `/v1/api-keys/${key.id}`)).json();
    assert.equal(view.status, 'expired');
  });

  it('lists keys by status: active, expired, revoked', async () => {
    const lw = await newWorkspace(t);
    const live = await createKey({ expires_at: new Date(Date.now() + 3600_000).toISOString() }, lw.admin);
    const old = await createKey({}, lw.admin);
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${old.id}`.execute(t.db);
    const gone = await createKey({}, lw.admin);
    assert.equal((await api(t, lw.admin, 'DELETE', `/v1/api-keys/${gone.id}`)).statusCode, 204);
    const ids = async (status: string) => (await api(t, lw.admin, 'GET', `/v1/api-keys?status=${status}`)).json().data.map((k: { id: string }) => k.id);
    assert.deepEqual(await ids('active'), [live.id, lw.provisioned.api_key.id]);
    assert.deepEqual(await ids('expired'), [old.id]);
    assert.deepEqual(await ids('revoked'), [gone.id]);
    // A key that was already past its expiry on its first use is refused the same way.
    assert.equal(await code(old.key), '401 expired_api_key');
  });

  it('refuses an expiry in the past, a malformed one and one of another type with 400', async () => {
    const cases: [unknown, string][] = [
      [new Date(Date.now() - 1000).toISOString(), 'must be in the future'],
      ['tomorrow', 'must match format "date-time"'],
      ['2030-02-30T00:00:00Z', 'must match format "date-time"'],
      [1893456000, 'must be string'],
      [null, 'must be string'],
    ];
    for (const [value, message] of cases) {
      const res = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'bad', expires_at: value });
      assert.equal(res.statusCode, 400, `${JSON.stringify(value)}: ${res.body}`);
      assert.equal(res.json().code, 'validation_failed');
      assert.deepEqual(res.json().errors, [{ path: 'body.expires_at', message }], JSON.stringify(value));
    }
  });
});

describe('last_used_at', () => {
  it('is null until the key is used, then set by the batched flush, not by the request', async () => {
    const key = await createKey();
    assert.equal(key.last_used_at, null);
    const before = Date.now();
    assert.equal(await code(key.key), 'ok');
    await t.app.keyUsage.flush();
    const view = (await api(t, ws.admin, 'GET', `/v1/api-keys/${key.id}`)).json();
    assert.ok(view.last_used_at, 'set after the flush');
    assert.ok(Date.parse(view.last_used_at) >= before - 1);
    assert.equal(view.updated_at, view.last_used_at, 'a use moves updated_at (and the ETag)');
  });

  it('is written at most once a minute per key, across processes too', async () => {
    const key = await createKey();
    // Recorders of our own, with timers that never fire during the test: only flush() writes.
    const a = new KeyUsageRecorder(t.db, 60_000, 3600_000);
    const b = new KeyUsageRecorder(t.db, 60_000, 3600_000);
    const lastUsed = async () => (await t.db.selectFrom('api_keys').select('last_used_at').where('id', '=', key.id).executeTakeFirstOrThrow()).last_used_at?.getTime();
    const t0 = Date.now();
    for (let i = 0; i < 1000; i++) a.touch(key.id, t0 + i); // a burst of requests
    assert.equal(await lastUsed(), undefined, 'nothing is written by touch()');
    await a.flush();
    assert.equal(await lastUsed(), t0, 'one write, with the first use of the minute');
    a.touch(key.id, t0 + 59_000);
    await a.flush();
    assert.equal(await lastUsed(), t0, 'the same process skips the key for a minute');
    b.touch(key.id, t0 + 30_000); // another process, within the minute
    await b.flush();
    assert.equal(await lastUsed(), t0, 'another process does not write within the minute either');
    a.touch(key.id, t0 + 61_000);
    await a.flush();
    assert.equal(await lastUsed(), t0 + 61_000, 'a minute later it moves');
    await a.stop();
    await b.stop();
  });
});

describe('rotation', () => {
  it('returns a new secret once and keeps the old one working for the grace period (default 24 h)', async () => {
    const key = await createKey();
    const res = await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`);
    assert.equal(res.statusCode, 200, res.body);
    const rotated = res.json();
    assert.equal(rotated.id, key.id);
    assert.match(rotated.key, /^jsk_[0-9A-Za-z]{38}$/);
    assert.notEqual(rotated.key, key.key);
    assert.equal(rotated.prefix, rotated.key.slice(0, 8));
    const grace = Date.parse(rotated.previous_secret_expires_at) - Date.parse(rotated.rotated_at);
    assert.equal(grace, 86_400_000);
    assert.equal(await code(rotated.key), 'ok');
    assert.equal(await code(key.key), 'ok', 'the old secret still works during the grace period');
    const view = (await api(t, ws.admin, 'GET', `/v1/api-keys/${key.id}`)).json();
    assert.equal(view.key, undefined, 'reads never show the secret');
    assert.equal(view.previous_secret_expires_at, rotated.previous_secret_expires_at);

    // Another API process sees the same (it has no cache of either secret yet).
    const other = await startTestApp({}, { databaseUrl: t.url });
    try {
      for (const secret of [key.key, rotated.key]) {
        assert.equal((await api(other, secret, 'GET', '/v1/users/me')).statusCode, 200);
      }
    } finally {
      await other.close();
    }
  });

  it('ends the old secret at once with grace_seconds 0 (401 rotated_api_key), and forgets it at the next rotation', async () => {
    const key = await createKey();
    assert.equal(await code(key.key), 'ok'); // cached
    const first = (await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, { grace_seconds: 0 })).json();
    assert.equal(first.previous_secret_expires_at, null, 'no grace period to show');
    assert.equal(await code(key.key), '401 rotated_api_key');
    assert.equal(await code(first.key), 'ok');
    const second = (await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, { grace_seconds: 600 })).json();
    assert.equal(await code(first.key), 'ok', 'the secret just replaced has its grace period');
    assert.equal(await code(second.key), 'ok');
    assert.equal(await code(key.key), '401 unknown_api_key', 'only the secret being replaced is kept');
  });

  it('ends the old secret when its grace period is over, even while its lookup is cached', async () => {
    const key = await createKey();
    const rotated = (await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, { grace_seconds: 1 })).json();
    assert.equal(await code(key.key), 'ok');
    await sleepUntil(Date.parse(rotated.previous_secret_expires_at));
    assert.equal(await code(key.key), '401 rotated_api_key');
    assert.equal(await code(rotated.key), 'ok');
  });

  it('keeps the expiry, and lets users rotate their own keys, through the key itself', async () => {
    const user = await newUser(t, ws, 'standard');
    const expiresAt = new Date(Date.now() + 3600_000).toISOString();
    const own = await createKey({ expires_at: expiresAt }, user);
    const res = await api(t, own.key, 'POST', `/v1/api-keys/${own.id}/rotate`, { grace_seconds: 60 });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().expires_at, expiresAt, 'rotation does not extend the expiry');
    assert.equal(await code(res.json().key), 'ok');
    // Someone else's key is invisible to a non-admin; admins may rotate anyone's.
    assert.equal((await api(t, user, 'POST', `/v1/api-keys/${ws.provisioned.api_key.id}/rotate`)).statusCode, 404);
    assert.equal((await api(t, ws.admin, 'POST', `/v1/api-keys/${own.id}/rotate`, { grace_seconds: 60 })).statusCode, 200);
  });

  it('refuses revoked, expired, missing and read-only cases, and bad bodies, with clear codes', async () => {
    const revoked = await createKey();
    await api(t, ws.admin, 'DELETE', `/v1/api-keys/${revoked.id}`);
    const expired = await createKey();
    await sql`update api_keys set expires_at = now() - interval '1 second' where id = ${expired.id}`.execute(t.db);
    const readOnly = await createKey({ read_only: true });
    const other = await newWorkspace(t);

    const r1 = await api(t, ws.admin, 'POST', `/v1/api-keys/${revoked.id}/rotate`);
    assert.equal(r1.statusCode, 409);
    assert.equal(r1.json().code, 'api_key_revoked');
    const r2 = await api(t, ws.admin, 'POST', `/v1/api-keys/${expired.id}/rotate`);
    assert.equal(r2.statusCode, 409);
    assert.equal(r2.json().code, 'api_key_expired');
    assert.equal((await api(t, ws.admin, 'POST', `/v1/api-keys/${other.provisioned.api_key.id}/rotate`)).statusCode, 404);
    assert.equal((await api(t, ws.admin, 'POST', '/v1/api-keys/key_nope/rotate')).statusCode, 404);
    const r3 = await api(t, readOnly.key, 'POST', `/v1/api-keys/${readOnly.id}/rotate`);
    assert.equal(r3.statusCode, 403);
    assert.equal(r3.json().code, 'read_only_key');

    const key = await createKey();
    for (const body of [{ grace_seconds: -1 }, { grace_seconds: 604_801 }, { grace_seconds: '60' }, { grace_seconds: 1.5 }, { grace: 60 }]) {
      const res = await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, body);
      assert.equal(res.statusCode, 400, JSON.stringify(body));
      assert.equal(res.json().code, 'validation_failed');
    }
    const bad = await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, '{"grace_seconds":', { 'content-type': 'application/json' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'malformed_json');
    assert.equal(await code(key.key), 'ok', 'refused rotations changed nothing');
  });

  it('does not replay the new secret for a repeated Idempotency-Key', async () => {
    const key = await createKey();
    const headers = { 'idempotency-key': `rotate-${key.id}` };
    const first = await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, { grace_seconds: 60 }, headers);
    assert.equal(first.statusCode, 200);
    const again = await api(t, ws.admin, 'POST', `/v1/api-keys/${key.id}/rotate`, { grace_seconds: 60 }, headers);
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'idempotency_key_secret');
    assert.equal(again.json().resource_id, key.id);
    assert.equal(await code(first.json().key), 'ok', 'the key was rotated once, not twice');
  });
});

describe('jobsite keys create --expires-in', () => {
  it('makes a key that expires after the given time, and refuses bad durations with exit code 2', async () => {
    const env = cliEnv({ DATABASE_URL: t.url, LOG_LEVEL: 'silent' });
    const before = Date.now();
    const made = await runCli(['keys', 'create', '--workspace', ws.id, '--user', ws.admin.id, '--expires-in', '90d', '--json'], env);
    assert.equal(made.code, 0, made.stderr);
    const view = JSON.parse(made.stdout) as { key: string; expires_at: string; status: string };
    const expiresIn = Date.parse(view.expires_at) - before;
    assert.ok(expiresIn >= 90 * 86_400_000 && expiresIn < 90 * 86_400_000 + 60_000, view.expires_at);
    assert.equal(view.status, 'active');
    assert.equal(await code(view.key), 'ok');

    const text = await runCli(['keys', 'create', '--workspace', ws.id, '--user', ws.admin.email, '--expires-in', '12h'], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Expires\s+\d{4}-\d\d-\d\dT/m);

    for (const bad of ['0d', '90', '1.5h', '-1d', '11y', 'soon']) {
      const res = await runCli(['keys', 'create', '--workspace', ws.id, '--user', ws.admin.id, '--expires-in', bad], env);
      assert.equal(res.code, 2, `${bad}: ${res.stderr}`);
      assert.equal(res.stderr.split('\n')[0],
        `error: option '--expires-in <duration>' argument '${bad}' is invalid. Give a whole number and a unit, up to 10 years: 30m, 12h, 90d, 4w, 1y.`);
    }
  });
});
