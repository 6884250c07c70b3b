/**
 * People sign in (issue 14): the session cookie and its attributes, CSRF on writes, one answer
 * for every failed sign-in, a key and a cookie on one request, listing and ending sessions,
 * deactivation and idle expiry, and the failure limits per e-mail and per address.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { api, awayFromWindowEdge, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

const PASSWORD = 'a long enough passphrase';

interface Person { id: string; email: string }
interface SignedIn { cookie: string; csrf: string; id: string; setCookie: string }

/** Adds a user through the API and accepts their invitation with PASSWORD. */
export async function invitedPerson(t: TestContext, ws: TestWorkspace, role = 'standard', email = `p-${Math.random().toString(36).slice(2)}@example.test`): Promise<Person> {
  const created = await api(t, ws.admin, 'POST', '/v1/users', { email, role });
  assert.equal(created.statusCode, 201, created.body);
  const token = new URL(created.json().invite_url).pathname.split('/').at(-1)!;
  const accepted = await api(t, null, 'POST', `/v1/invitations/${token}`, { password: PASSWORD });
  assert.equal(accepted.statusCode, 201, accepted.body);
  return { id: created.json().id, email };
}

function cookieOf(setCookie: unknown): string {
  const header = [setCookie].flat()[0] as string;
  return header.split(';')[0]!;
}

async function signIn(t: TestContext, email: string, password = PASSWORD, remoteAddress = '127.0.0.1') {
  return t.app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password }, remoteAddress });
}

async function signedIn(t: TestContext, email: string): Promise<SignedIn> {
  const res = await signIn(t, email);
  assert.equal(res.statusCode, 201, res.body);
  return { cookie: cookieOf(res.headers['set-cookie']), csrf: res.json().csrf_token, id: res.json().id, setCookie: String(res.headers['set-cookie']) };
}

function withCookie(t: TestContext, s: { cookie: string }, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method: method as 'GET', url, headers: { cookie: s.cookie, ...headers }, ...(body === undefined ? {} : { payload: body as object }) });
}

const withoutRequestId = (body: Record<string, unknown>): Record<string, unknown> => ({ ...body, request_id: undefined });

let t: TestContext;
let ws: TestWorkspace;
before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
});
after(async () => t.close());

describe('signing in', () => {
  it('sets an HttpOnly, SameSite=Lax, Path=/ cookie (not Secure on http) that then works on every /v1 route', async () => {
    const person = await invitedPerson(t, ws);
    const res = await signIn(t, person.email.toUpperCase());
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(body.user.id, person.id);
    assert.match(body.id, /^ses_/);
    assert.equal(res.headers.location, `/v1/sessions/${body.id}`);
    assert.ok(Date.parse(body.expires_at) > Date.now() + 29 * 86_400_000);
    assert.match(body.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    const setCookie = String(res.headers['set-cookie']);
    assert.match(setCookie, /^jobsite_session=[A-Za-z0-9_-]{43}; /);
    for (const attribute of ['HttpOnly', 'SameSite=Lax', 'Path=/']) assert.ok(setCookie.split('; ').includes(attribute), `${attribute} in ${setCookie}`);
    assert.ok(!/Secure/.test(setCookie), 'no Secure on an http public URL');
    assert.equal(res.headers['cache-control'], 'no-store');

    const me = await withCookie(t, { cookie: cookieOf(res.headers['set-cookie']) }, 'GET', '/v1/users/me');
    assert.equal(me.statusCode, 200, me.body);
    assert.equal(me.json().id, person.id);
    assert.ok(me.headers.ratelimit, 'the per-user rate limit applies to sessions');

    // Only a hash of the cookie's secret is stored.
    const secret = cookieOf(res.headers['set-cookie']).split('=')[1]!;
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from sessions where token_hash = sha256(convert_to(${secret}, 'UTF8'))`.execute(t.db);
    assert.equal(rows[0]!.n, 1);
    const { rows: plain } = await sql<{ n: number }>`select count(*)::int as n from sessions where encode(token_hash, 'escape') like ${`%${secret}%`}`.execute(t.db);
    assert.equal(plain[0]!.n, 0);
  });

  it('answers one identical 401 invalid_credentials for a wrong password, an unknown e-mail, no password yet, and a deactivated user', async () => {
    const person = await invitedPerson(t, ws);
    const noPassword = await newUser(t, ws);
    const leaving = await invitedPerson(t, ws);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${leaving.id}`)).statusCode, 204);
    const answers = await Promise.all([
      signIn(t, person.email, 'not the password at all'),
      signIn(t, 'nobody-here@example.test', PASSWORD),
      signIn(t, noPassword.email, PASSWORD),
      signIn(t, leaving.email, PASSWORD),
    ]);
    const first = withoutRequestId(answers[0]!.json());
    assert.equal(first.code, 'invalid_credentials');
    for (const res of answers) {
      assert.equal(res.statusCode, 401);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.deepEqual(withoutRequestId(res.json()), first);
      assert.equal(res.headers['set-cookie'], undefined);
    }
  });

  it('rejects an unknown field and a missing password (400), never a 500', async () => {
    const extra = await t.app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'a@example.test', password: 'x', remember: true } });
    assert.equal(extra.statusCode, 400);
    const missing = await t.app.inject({ method: 'POST', url: '/v1/sessions', payload: { email: 'a@example.test' } });
    assert.equal(missing.json().code, 'validation_failed');
  });
});

describe('CSRF', () => {
  it('refuses a write with the cookie but no X-CSRF-Token (403 csrf_token_missing), or a wrong one (csrf_token_invalid)', async () => {
    const person = await invitedPerson(t, ws, 'manager');
    const s = await signedIn(t, person.email);
    const missing = await withCookie(t, s, 'POST', '/v1/projects', { name: 'No token' });
    assert.equal(missing.statusCode, 403);
    assert.equal(missing.json().code, 'csrf_token_missing');
    const wrong = await withCookie(t, s, 'POST', '/v1/projects', { name: 'Wrong token' }, { 'x-csrf-token': s.csrf.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) });
    assert.equal(wrong.statusCode, 403);
    assert.equal(wrong.json().code, 'csrf_token_invalid');
    const other = await signedIn(t, person.email);
    const crossed = await withCookie(t, s, 'POST', '/v1/projects', { name: 'Another session\'s token' }, { 'x-csrf-token': other.csrf });
    assert.equal(crossed.json().code, 'csrf_token_invalid');
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from projects where workspace_id = ${ws.id}`.execute(t.db);
    assert.equal(rows[0]!.n, 0, 'nothing was written');

    const right = await withCookie(t, s, 'POST', '/v1/projects', { name: 'With token' }, { 'x-csrf-token': s.csrf });
    assert.equal(right.statusCode, 201, right.body);
    assert.equal(right.json().created_by, person.id);
  });

  it('gives the same CSRF token back from GET /v1/sessions/current; with an API key there is no current session (400)', async () => {
    const person = await invitedPerson(t, ws);
    const s = await signedIn(t, person.email);
    const current = await withCookie(t, s, 'GET', '/v1/sessions/current');
    assert.equal(current.statusCode, 200, current.body);
    assert.equal(current.json().csrf_token, s.csrf);
    assert.equal(current.json().id, s.id);
    assert.equal(current.json().current, true);
    assert.equal(current.json().user.id, person.id);
    const byKey = await api(t, ws.admin, 'GET', '/v1/sessions/current');
    assert.equal(byKey.statusCode, 400);
    assert.equal(byKey.json().code, 'session_required');
  });

  it('with a bearer key and a cookie on one request, the key wins and the cookie is ignored (no CSRF needed)', async () => {
    const person = await invitedPerson(t, ws);
    const s = await signedIn(t, person.email);
    const me = await api(t, ws.admin, 'GET', '/v1/users/me', undefined, { cookie: s.cookie });
    assert.equal(me.json().id, ws.admin.id);
    const write = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Key and cookie' }, { cookie: s.cookie });
    assert.equal(write.statusCode, 201, write.body);
    assert.equal(write.json().created_by, ws.admin.id);
    const badKey = await api(t, 'jsk_not-a-key', 'GET', '/v1/users/me', undefined, { cookie: s.cookie });
    assert.equal(badKey.statusCode, 401, 'a bad key is not rescued by the cookie');
    assert.equal(badKey.json().code, 'malformed_api_key');
  });
});

describe('sessions', () => {
  it('lists the caller\'s own sessions, ends another one at once, and signs out', async () => {
    const person = await invitedPerson(t, ws);
    const phone = await signedIn(t, person.email);
    const laptop = await signedIn(t, person.email);
    const stranger = await signedIn(t, (await invitedPerson(t, ws)).email);

    const list = await withCookie(t, laptop, 'GET', '/v1/sessions');
    assert.equal(list.statusCode, 200, list.body);
    const ids = list.json().data.map((s: { id: string }) => s.id);
    // Accepting the invitation signed them in too: that session is the oldest.
    assert.equal(ids.length, 3, 'only this user\'s');
    assert.deepEqual(ids.slice(0, 2), [laptop.id, phone.id], 'newest first');
    assert.deepEqual(list.json().data.map((s: { current: boolean }) => s.current), [true, false, false]);
    assert.equal((await withCookie(t, laptop, 'GET', `/v1/sessions/${phone.id}`)).json().id, phone.id);

    // Another user's session is not found, and stays alive.
    const foreign = await withCookie(t, laptop, 'DELETE', `/v1/sessions/${stranger.id}`, undefined, { 'x-csrf-token': laptop.csrf });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await withCookie(t, stranger, 'GET', '/v1/users/me')).statusCode, 200);

    // Warm the cache of the phone's session, then end it from the laptop: it stops at once.
    assert.equal((await withCookie(t, phone, 'GET', '/v1/users/me')).statusCode, 200);
    const ended = await withCookie(t, laptop, 'DELETE', `/v1/sessions/${phone.id}`, undefined, { 'x-csrf-token': laptop.csrf });
    assert.equal(ended.statusCode, 204);
    const after = await withCookie(t, phone, 'GET', '/v1/users/me');
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().code, 'invalid_session');

    const signOutWithoutToken = await withCookie(t, laptop, 'DELETE', '/v1/sessions/current');
    assert.equal(signOutWithoutToken.json().code, 'csrf_token_missing');
    const signOut = await withCookie(t, laptop, 'DELETE', '/v1/sessions/current', undefined, { 'x-csrf-token': laptop.csrf });
    assert.equal(signOut.statusCode, 204);
    assert.match(String(signOut.headers['set-cookie']), /^jobsite_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/);
    assert.equal((await withCookie(t, laptop, 'GET', '/v1/users/me')).json().code, 'invalid_session');
  });

  it('ends a deactivated user\'s live sessions at once (and they stay ended after reactivation)', async () => {
    const person = await invitedPerson(t, ws);
    const s = await signedIn(t, person.email);
    assert.equal((await withCookie(t, s, 'GET', '/v1/users/me')).statusCode, 200);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${person.id}`)).statusCode, 204);
    const res = await withCookie(t, s, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'invalid_session');
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/users/${person.id}`, { status: 'active' })).statusCode, 200);
    assert.equal((await withCookie(t, s, 'GET', '/v1/users/me')).statusCode, 401);
  });

  it('acts with the user\'s current role after a role change', async () => {
    const person = await invitedPerson(t, ws, 'manager');
    const s = await signedIn(t, person.email);
    assert.equal((await withCookie(t, s, 'GET', '/v1/users/me')).json().role, 'manager');
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/users/${person.id}`, { role: 'restricted' })).statusCode, 200);
    const denied = await withCookie(t, s, 'POST', '/v1/users', { email: 'x@example.test' }, { 'x-csrf-token': s.csrf });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().code, 'forbidden');
  });

  it('expires after 30 days idle (401 session_expired), and keeps going while used', async () => {
    const person = await invitedPerson(t, ws);
    const idle = await signedIn(t, person.email);
    const busy = await signedIn(t, person.email);
    await sql`update sessions set last_used_at = now() - interval '30 days 1 minute' where id = ${idle.id}`.execute(t.db);
    await sql`update sessions set last_used_at = now() - interval '29 days' where id = ${busy.id}`.execute(t.db);
    const res = await withCookie(t, idle, 'GET', '/v1/users/me');
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, 'session_expired');
    assert.equal((await withCookie(t, busy, 'GET', '/v1/users/me')).statusCode, 200);
    await t.app.sessionUsage.flush();
    const { rows } = await sql<{ fresh: boolean }>`select last_used_at > now() - interval '1 minute' as fresh from sessions where id = ${busy.id}`.execute(t.db);
    assert.equal(rows[0]!.fresh, true, 'a used session moves its last use forward');
    const listed = await withCookie(t, busy, 'GET', '/v1/sessions');
    assert.ok(!listed.json().data.some((s: { id: string }) => s.id === idle.id), 'an expired session is not listed');
  });

  it('answers 401 invalid_session for a forged or malformed cookie, and 401 missing_api_key for nothing', async () => {
    for (const cookie of ['jobsite_session=not-ours', `jobsite_session=${'A'.repeat(43)}`, 'jobsite_session=']) {
      const res = await withCookie(t, { cookie }, 'GET', '/v1/projects');
      assert.equal(res.statusCode, 401, cookie);
      assert.equal(res.json().code, 'invalid_session');
      assert.ok(res.headers['www-authenticate']);
    }
    assert.equal((await api(t, null, 'GET', '/v1/projects', undefined, { cookie: 'theme=dark' })).json().code, 'missing_api_key');
  });
});

describe('sign-in limits', () => {
  let limited: TestContext;
  let lws: TestWorkspace;
  before(async () => {
    limited = await startTestApp({ JOBSITE_SIGN_IN_FAILURES_PER_EMAIL: '3', JOBSITE_SIGN_IN_FAILURES_PER_ADDRESS: '5' });
    lws = await newWorkspace(limited);
    // Failures count in fixed 15-minute windows: these tests (a few seconds) need theirs in one.
    await awayFromWindowEdge(900_000, 15_000);
  });
  after(async () => limited.close());

  it('refuses an e-mail after its failures (429 + Retry-After), even with the right password, while others still sign in', async () => {
    const person = await invitedPerson(limited, lws);
    for (let i = 0; i < 3; i++) assert.equal((await signIn(limited, person.email, 'wrong password here', '10.0.0.1')).statusCode, 401);
    const blocked = await signIn(limited, person.email, PASSWORD, '10.0.0.2');
    assert.equal(blocked.statusCode, 429, blocked.body);
    assert.equal(blocked.json().code, 'sign_in_rate_limited');
    const wait = Number(blocked.headers['retry-after']);
    assert.ok(wait >= 1 && wait <= 900, `Retry-After ${wait}`);
    const other = await invitedPerson(limited, lws);
    assert.equal((await signIn(limited, other.email, PASSWORD, '10.0.0.2')).statusCode, 201);
  });

  it('refuses an address after its failures across e-mails, known or not (429 + Retry-After)', async () => {
    const person = await invitedPerson(limited, lws);
    for (let i = 0; i < 5; i++) assert.equal((await signIn(limited, `ghost-${i}@example.test`, 'whatever password', '10.0.0.9')).statusCode, 401);
    const blocked = await signIn(limited, person.email, PASSWORD, '10.0.0.9');
    assert.equal(blocked.statusCode, 429);
    assert.ok(Number(blocked.headers['retry-after']) >= 1);
    assert.equal((await signIn(limited, person.email, PASSWORD, '10.0.0.10')).statusCode, 201, 'another address is not held up');
  });

  it('gives a burst of parallel guesses no more tries than a sequence', async () => {
    const person = await invitedPerson(limited, lws);
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => signIn(limited, person.email, `guess number ${i}`, `10.2.0.${i}`)));
    const statuses = answers.map((a) => a.statusCode);
    assert.equal(statuses.filter((s) => s === 401).length, 3, statuses.join());
    assert.equal(statuses.filter((s) => s === 429).length, 9, statuses.join());
  });

  it('shares the counts across API processes through PostgreSQL', async () => {
    const second = await startTestApp({ JOBSITE_SIGN_IN_FAILURES_PER_EMAIL: '3', JOBSITE_SIGN_IN_FAILURES_PER_ADDRESS: '5' }, { databaseUrl: limited.url });
    try {
      const person = await invitedPerson(limited, lws);
      for (let i = 0; i < 3; i++) assert.equal((await signIn(limited, person.email, 'wrong password here', '10.1.0.1')).statusCode, 401);
      await Promise.all([limited.app.rateLimiter.flush(), flushSignIn(limited)]);
      const elsewhere = await signIn(second, person.email, PASSWORD, '10.1.0.2');
      assert.equal(elsewhere.statusCode, 429, elsewhere.body);
    } finally {
      await second.close();
    }
  });
});

/** The sign-in limiters sync every second; closing is not needed, a direct flush of the table suffices. */
async function flushSignIn(ctx: TestContext): Promise<void> {
  await ctx.app.signInLimiters.perEmail.flush();
  await ctx.app.signInLimiters.perAddress.flush();
}

describe('Secure cookie', () => {
  it('is Secure when JOBSITE_PUBLIC_URL is https', async () => {
    const secure = await startTestApp({ JOBSITE_PUBLIC_URL: 'https://jobsite.example.com' });
    try {
      const sws = await newWorkspace(secure);
      const person = await invitedPerson(secure, sws);
      const res = await signIn(secure, person.email);
      assert.equal(res.statusCode, 201);
      assert.ok(String(res.headers['set-cookie']).split('; ').includes('Secure'));
    } finally {
      await secure.close();
    }
  });
});
