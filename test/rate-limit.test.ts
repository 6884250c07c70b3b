import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiKeysRepository } from '../src/features/api-keys/api-keys.repository.ts';
import { RateLimiter } from '../src/http/rate-limit.ts';
import { api, awayFromWindowEdge, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

const LIMIT = 5;
let t: TestContext;
let ws: TestWorkspace;

before(async () => {
  t = await startTestApp({ JOBSITE_RATE_LIMIT: String(LIMIT) });
  ws = await newWorkspace(t);
});
after(async () => t.close());

/** Another key of the workspace admin, made without spending any requests. */
async function freshKey(): Promise<{ id: string; key: string }> {
  const { row, secret } = await new ApiKeysRepository().issue(t.db, {
    workspaceId: ws.id, userId: ws.admin.id, name: 'rate test', readOnly: false, createdBy: null,
  });
  return { id: row.id, key: secret };
}

/** The per-key windows are wall-clock minutes: a test's requests keep to one, 10 s from its end at the latest. */
const awayFromMinuteEdge = () => awayFromWindowEdge(60_000, 10_000);

const remainingOf = (header: unknown) => Number(/;r=(\d+)/.exec(String(header))?.[1]);

describe('rate limit per API key', () => {
  it('announces the policy and what is left on every authenticated response', async () => {
    await awayFromMinuteEdge();
    const { key } = await freshKey();
    const res = await api(t, key, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['ratelimit-policy'], `"default";q=${LIMIT};w=60`);
    const m = /^"default";r=(\d+);t=(\d+)$/.exec(String(res.headers.ratelimit));
    assert.ok(m, String(res.headers.ratelimit));
    assert.equal(Number(m[1]), LIMIT - 1);
    assert.ok(Number(m[2]) >= 1 && Number(m[2]) <= 60);
  });

  it('answers the request after the limit with 429, Retry-After, and leaves other keys alone', async () => {
    await awayFromMinuteEdge();
    const busy = await freshKey();
    const other = await freshKey();
    const remaining: number[] = [];
    for (let i = 0; i < LIMIT; i++) {
      const res = await api(t, busy.key, 'GET', '/v1/users/me');
      assert.equal(res.statusCode, 200, `request ${i + 1}`);
      remaining.push(remainingOf(res.headers.ratelimit));
    }
    assert.deepEqual(remaining, [4, 3, 2, 1, 0]);

    const limited = await api(t, busy.key, 'GET', '/v1/users/me');
    assert.equal(limited.statusCode, 429);
    assert.match(String(limited.headers['content-type']), /^application\/problem\+json/);
    const problem = limited.json();
    assert.equal(problem.code, 'rate_limited');
    assert.equal(problem.status, 429);
    assert.equal(problem.request_id, limited.headers['x-request-id']);
    const retryAfter = Number(limited.headers['retry-after']);
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, String(limited.headers['retry-after']));
    assert.equal(remainingOf(limited.headers.ratelimit), 0);
    // Writes are limited too, and a refused request never reaches the handler.
    assert.equal((await api(t, busy.key, 'POST', '/v1/api-keys', { name: 'refused' })).statusCode, 429);
    assert.equal((await t.db.selectFrom('api_keys').select('id').where('name', '=', 'refused').execute()).length, 0);

    // The same user's other key has its own budget.
    const res = await api(t, other.key, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 200);
    assert.equal(remainingOf(res.headers.ratelimit), LIMIT - 1);
  });

  it('does not limit or count public routes and failed authentication', async () => {
    await awayFromMinuteEdge();
    for (let i = 0; i < LIMIT + 2; i++) {
      const res = await api(t, null, 'GET', '/healthz');
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers.ratelimit, undefined);
      assert.equal((await api(t, null, 'GET', '/v1/users/me')).statusCode, 401);
    }
  });
});

describe('rate limit shared across processes', () => {
  let second: TestContext;
  before(async () => {
    second = await startTestApp({ JOBSITE_RATE_LIMIT: String(LIMIT) }, { databaseUrl: t.url });
  });
  after(async () => second.close());

  /** Each pushes its counts; the first then learns what the second pushed after it. */
  async function flushBoth() {
    await t.app.rateLimiter.flush();
    await second.app.rateLimiter.flush();
    await t.app.rateLimiter.flush();
  }

  it('limits requests split across two API processes in total', async () => {
    await awayFromMinuteEdge();
    const { id, key } = await freshKey();
    const statuses: number[] = [];
    for (let i = 0; i < 2 * LIMIT; i++) {
      const apiProcess = i % 2 === 0 ? t : second;
      statuses.push((await api(apiProcess, key, 'GET', '/v1/users/me')).statusCode);
      await flushBoth();
    }
    assert.equal(statuses.filter((s) => s === 200).length, LIMIT, statuses.join(','));
    assert.deepEqual(statuses.slice(LIMIT), Array(LIMIT).fill(429));

    const row = await t.db.selectFrom('rate_limit_windows').select('count').where('bucket', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.count, LIMIT);
  });

  it('starts a key new to a process from the shared count, and keeps idle processes informed', async () => {
    await awayFromMinuteEdge();
    const { id, key } = await freshKey();
    for (let i = 0; i < 3; i++) assert.equal((await api(t, key, 'GET', '/v1/users/me')).statusCode, 200);
    await t.app.rateLimiter.flush();

    // The second process has never seen this key: its first request reads the 3 already served.
    const first = await api(second, key, 'GET', '/v1/users/me');
    assert.equal(first.statusCode, 200);
    assert.equal(remainingOf(first.headers.ratelimit), 1);
    assert.equal((await api(second, key, 'GET', '/v1/users/me')).statusCode, 200); // the 5th
    assert.equal((await api(second, key, 'GET', '/v1/users/me')).statusCode, 429);
    await second.app.rateLimiter.flush();

    // The first process served nothing since its last sync; its next sync still learns the total.
    await t.app.rateLimiter.flush();
    assert.equal((await api(t, key, 'GET', '/v1/users/me')).statusCode, 429);
    const row = await t.db.selectFrom('rate_limit_windows').select('count').where('bucket', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.count, LIMIT);
  });
});

describe('the shared count while a sync is under way', () => {
  it('still counts what is being added to the shared row: the request after the limit is refused meanwhile', async () => {
    await awayFromMinuteEdge();
    const limiter = new RateLimiter(t.db, 5, 60_000, 3_600_000, 'flushtest');
    try {
      for (let i = 0; i < 5; i++) assert.equal((await limiter.hit('flushtest:a')).allowed, true);
      // The sync takes the five from the local count before its insert is answered.
      const syncing = limiter.flush();
      const meanwhile = await limiter.peek('flushtest:a');
      assert.equal(meanwhile.allowed, false, 'refused while the five are on their way to the shared row');
      assert.equal((await limiter.hit('flushtest:a')).allowed, false);
      await syncing;
      const { count } = await t.db.selectFrom('rate_limit_windows').select('count').where('bucket', '=', 'flushtest:a').executeTakeFirstOrThrow();
      assert.equal(count, 5, 'the refused request was not counted');
      assert.equal((await limiter.peek('flushtest:a')).allowed, false, 'and after the sync, from the shared total');
    } finally {
      await limiter.stop();
    }
  });
});
