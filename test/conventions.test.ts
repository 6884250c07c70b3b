import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../src/app.ts';
import { generateApiKeySecret } from '../src/http/api-key-secret.ts';
import type { App } from '../src/http/types.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

type Res = Awaited<ReturnType<typeof api>>;

/** Every error answer has the RFC 9457 shape, a stable code, and the request id it was logged under. */
function assertProblem(res: Res, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.type, `urn:jobsite:problem:${code}`);
  assert.equal(typeof body.title, 'string');
  assert.equal(body.status, status);
  assert.equal(body.code, code);
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body as { detail?: string; errors?: { path: string; message: string }[]; [k: string]: unknown };
}

let t: TestContext;
let ws: TestWorkspace;

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
});
after(async () => t.close());

describe('errors are problem+json', () => {
  it('rejects an unknown body field with validation_failed and its path', async () => {
    const body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'x@example.test', nickname: 'x' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.nickname', message: 'is not a known field' }]);
  });

  it('does not coerce body types: a number for a string is a 400', async () => {
    const body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 123 }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.email', message: 'must be string' }]);
    assertProblem(await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'k', read_only: 'true' }), 400, 'validation_failed');
  });

  it('names a missing required field', async () => {
    const body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { first_name: 'Ann' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.email', message: 'is required' }]);
  });

  it('lists every invalid field at once, up to 20', async () => {
    let body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 7, role: 'boss', nickname: 'x' }), 400, 'validation_failed');
    assert.deepEqual(new Set(body.errors?.map((e) => e.path)), new Set(['body.email', 'body.role', 'body.nickname']));
    const junk = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`field_${i}`, i]));
    body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'u2@example.test', ...junk }), 400, 'validation_failed');
    assert.equal(body.errors?.length, 20);
    assert.ok(body.errors?.every((e) => /^body\.field_\d+$/.test(e.path) && e.message === 'is not a known field'));
  });

  it('folds union errors into one readable message', async () => {
    let body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'u1@example.test', first_name: 5 }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.first_name', message: 'must be string or null' }]);
    body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'u1@example.test', role: 'boss' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.role', message: 'must be one of: admin, manager, standard, restricted' }]);
    body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'u1@example.test', last_name: '' }), 400, 'validation_failed');
    assert.equal(body.errors?.length, 1);
    assert.equal(body.errors?.[0]?.path, 'body.last_name');
    assert.match(body.errors![0]!.message, /fewer than 1/);
  });

  it('rejects a body that is not an object, and an empty body where one is required', async () => {
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '[]', { 'content-type': 'application/json' }), 400, 'validation_failed');
    const body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '', { 'content-type': 'application/json' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body', message: 'must be object' }]);
  });

  it('rejects bad query parameters (coerced, but checked)', async () => {
    for (const [query, path] of [['limit=abc', 'query.limit'], ['limit=0', 'query.limit'], ['limit=101', 'query.limit'], ['status=gone', 'query.status'], ['colour=red', 'query.colour']]) {
      const body = assertProblem(await api(t, ws.admin, 'GET', `/v1/users?${query}`), 400, 'validation_failed');
      assert.equal(body.errors?.[0]?.path, path, query);
    }
    assert.equal((await api(t, ws.admin, 'GET', '/v1/users?limit=2')).statusCode, 200);
  });

  it('answers malformed JSON with malformed_json', async () => {
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '{"email": "x@', { 'content-type': 'application/json' }), 400, 'malformed_json');
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '{"email":"a@b.co","__proto__":{}}', { 'content-type': 'application/json' }), 400, 'malformed_json');
  });

  it('answers a body of another content type with 415', async () => {
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', 'email=x@example.test', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type');
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '<user/>', { 'content-type': 'application/xml' }), 415, 'unsupported_media_type');
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', '{"email":"x@example.test"}'), 415, 'unsupported_media_type');
    const ok = await api(t, ws.admin, 'POST', '/v1/users', '{"email":"charset@example.test"}', { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(ok.statusCode, 201, ok.body);
  });

  it('answers a body over 1 MiB with 413', async () => {
    const huge = JSON.stringify({ email: 'x@example.test', first_name: 'a'.repeat(1024 * 1024) });
    const body = assertProblem(await api(t, ws.admin, 'POST', '/v1/users', huge, { 'content-type': 'application/json' }), 413, 'payload_too_large');
    assert.match(body.detail!, /1048576 bytes/);
  });

  it('answers an unknown route with 404 route_not_found, with or without a key', async () => {
    assertProblem(await api(t, ws.admin, 'GET', '/v1/nothing-here'), 404, 'route_not_found');
    assertProblem(await api(t, null, 'GET', '/v1/nothing-here'), 404, 'route_not_found');
    assertProblem(await api(t, null, 'DELETE', '/nothing-here'), 404, 'route_not_found');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/users/usr_1/nothing'), 404, 'route_not_found');
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    let res = await api(t, ws.admin, 'PUT', '/v1/users', { email: 'x@example.test' });
    assertProblem(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST']);
    res = await api(t, ws.admin, 'POST', '/v1/users/usr_123');
    assertProblem(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['DELETE', 'GET', 'HEAD', 'PATCH']);
    res = await api(t, ws.admin, 'DELETE', '/v1/workspace');
    assertProblem(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'PATCH']);
  });

  it('matches 405 to the same paths the router knows (trailing slash, long ids, OPTIONS)', async () => {
    const longId = 'x'.repeat(150);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${longId}`)).json().code, 'not_found');
    let res = await api(t, ws.admin, 'POST', `/v1/users/${longId}`);
    assertProblem(res, 405, 'method_not_allowed');
    res = await api(t, ws.admin, 'PUT', '/v1/users/');
    assertProblem(res, 405, 'method_not_allowed');
    res = await api(t, ws.admin, 'OPTIONS', '/v1/api-keys');
    assertProblem(res, 405, 'method_not_allowed');
    assert.deepEqual(String(res.headers.allow).split(', ').sort(), ['GET', 'HEAD', 'POST']);
  });

  it('answers broken URLs with a 4xx problem', async () => {
    assertProblem(await api(t, ws.admin, 'GET', '/v1/users/%E0%A4%A'), 400, 'invalid_url');
    const body = assertProblem(await api(t, ws.admin, 'GET', `/v1/users/${'x'.repeat(250)}`), 414, 'uri_too_long');
    assert.equal(body.title, 'URI too long');
  });

  it('takes an empty JSON body on a request that has no body', async () => {
    const created = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'to revoke' });
    assert.equal(created.statusCode, 201);
    const res = await api(t, ws.admin, 'DELETE', `/v1/api-keys/${created.json().id}`, '', { 'content-type': 'application/json' });
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
  });
});

describe('a fresh app with test-only routes', () => {
  let app: App;
  const SECRET = 'password=hunter2 at /srv/jobsite/src/secret.ts:42';

  before(async () => {
    app = await buildApp({ config: t.config, db: t.db, logger: false });
    app.get('/v1/test/boom', { config: { auth: false } }, async () => { throw new Error(SECRET); });
    app.get('/v1/test/boom-status', { config: { auth: false } }, async () => {
      throw Object.assign(new Error(SECRET), { statusCode: 503, code: 'ECONNREFUSED' });
    });
    app.get('/v1/test/bad-shape', { config: { auth: false }, schema: { response: { 200: { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } } } },
      async () => ({ nope: SECRET }) as unknown as { id: string });
    app.post('/v1/test/action', { config: { auth: false } }, async (req) => ({ ok: true, body: req.body ?? null }));
    await app.ready();
  });
  after(async () => app.close());

  it('never shows internals in a 5xx', async () => {
    for (const url of ['/v1/test/boom', '/v1/test/boom-status', '/v1/test/bad-shape']) {
      const res = await app.inject({ url });
      assertProblem(res, 500, 'internal_error');
      assert.ok(!res.body.includes('hunter2'), res.body);
      assert.ok(!res.body.includes('/srv/'), res.body);
      assert.ok(!/\bat \w+ \(/.test(res.body), 'no stack trace');
    }
  });

  it('takes a POST without a body, or with an empty JSON one', async () => {
    for (const headers of [{}, { 'content-type': 'application/json' }, { 'content-type': 'application/json', 'content-length': '0' }]) {
      const res = await app.inject({ method: 'POST', url: '/v1/test/action', headers, payload: '' });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { ok: true, body: null });
    }
    const ws2 = await app.inject({ method: 'POST', url: '/v1/test/action', headers: { 'content-type': 'application/json' }, payload: '  \n' });
    assert.equal(ws2.statusCode, 200, ws2.body);
  });
});

describe('X-Request-Id', () => {
  it('is generated as req_… when absent, and differs per request', async () => {
    const a = await api(t, ws.admin, 'GET', '/v1/users/me');
    const b = await api(t, null, 'GET', '/healthz');
    assert.match(String(a.headers['x-request-id']), /^req_[0-9a-z]{26}$/);
    assert.match(String(b.headers['x-request-id']), /^req_[0-9a-z]{26}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  it('keeps a sane incoming id, in the header and in problems', async () => {
    const id = 'trace-42.abc:def@edge_1';
    const ok = await api(t, ws.admin, 'GET', '/v1/users/me', undefined, { 'x-request-id': id });
    assert.equal(ok.headers['x-request-id'], id);
    const err = await api(t, null, 'GET', '/v1/users/me', undefined, { 'x-request-id': id });
    assert.equal(assertProblem(err, 401, 'missing_api_key').request_id, id);
  });

  it('replaces an incoming id that is too long or has odd characters', async () => {
    for (const bad of ['x'.repeat(129), 'has space', '<script>', 'semi;colon', 'quote"d']) {
      const res = await api(t, ws.admin, 'GET', '/v1/users/me', undefined, { 'x-request-id': bad });
      assert.match(String(res.headers['x-request-id']), /^req_[0-9a-z]{26}$/, bad);
    }
    const longest = 'y'.repeat(128);
    assert.equal((await api(t, ws.admin, 'GET', '/v1/users/me', undefined, { 'x-request-id': longest })).headers['x-request-id'], longest);
  });
});

describe('ETag and conditional requests', () => {
  it('gives single resources an ETag and answers a matching If-None-Match with an empty 304', async () => {
    const user = await newUser(t, ws, 'standard');
    const first = await api(t, ws.admin, 'GET', `/v1/users/${user.id}`);
    assert.equal(first.statusCode, 200);
    const etag = String(first.headers.etag);
    assert.match(etag, /^"[\w-]+"$/);

    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await api(t, ws.admin, 'GET', `/v1/users/${user.id}`, undefined, { 'if-none-match': inm });
      assert.equal(again.statusCode, 304, inm);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
    }
    const other = await api(t, ws.admin, 'GET', `/v1/users/${user.id}`, undefined, { 'if-none-match': '"something-else"' });
    assert.equal(other.statusCode, 200);
  });

  it('moves the ETag on PATCH and enforces If-Match on PATCH and DELETE', async () => {
    const user = await newUser(t, ws, 'standard');
    const url = `/v1/users/${user.id}`;
    const stale = String((await api(t, ws.admin, 'GET', url)).headers.etag);

    const patched = await api(t, ws.admin, 'PATCH', url, { first_name: 'Renamed' });
    assert.equal(patched.statusCode, 200);
    const current = String(patched.headers.etag);
    assert.notEqual(current, stale);
    assert.equal((await api(t, ws.admin, 'GET', url)).headers.etag, current);
    assert.equal((await api(t, ws.admin, 'GET', url, undefined, { 'if-none-match': stale })).statusCode, 200);

    assertProblem(await api(t, ws.admin, 'PATCH', url, { first_name: 'Lost update' }, { 'if-match': stale }), 412, 'precondition_failed');
    assert.equal((await api(t, ws.admin, 'GET', url)).json().first_name, 'Renamed');
    // A weak tag never satisfies If-Match (strong comparison).
    assertProblem(await api(t, ws.admin, 'PATCH', url, { first_name: 'Weak' }, { 'if-match': `W/${current}` }), 412, 'precondition_failed');

    const ok = await api(t, ws.admin, 'PATCH', url, { first_name: 'Careful' }, { 'if-match': current });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().first_name, 'Careful');
    const latest = String(ok.headers.etag);

    assertProblem(await api(t, ws.admin, 'DELETE', url, undefined, { 'if-match': current }), 412, 'precondition_failed');
    assert.equal((await api(t, ws.admin, 'GET', url)).json().status, 'active');
    assert.equal((await api(t, ws.admin, 'DELETE', url, undefined, { 'if-match': latest })).statusCode, 204);
    assert.equal((await api(t, ws.admin, 'GET', url)).json().status, 'deactivated');
  });
});

describe('API key authentication', () => {
  function assertUnauthorized(res: Res, code: string) {
    assertProblem(res, 401, code);
    assert.match(String(res.headers['www-authenticate']), /^Bearer\b/);
  }

  it('tells a missing key from a malformed one', async () => {
    const missing = await api(t, null, 'GET', '/v1/users/me');
    assertUnauthorized(missing, 'missing_api_key');
    assert.doesNotMatch(String(missing.headers['www-authenticate']), /error=/);
    assertUnauthorized(await api(t, null, 'GET', '/v1/users/me', undefined, { authorization: 'Basic dXNlcjpwYXNz' }), 'malformed_api_key');
    assertUnauthorized(await api(t, null, 'GET', '/v1/users/me', undefined, { authorization: 'Bearer' }), 'malformed_api_key');
    assertUnauthorized(await api(t, 'jsk_short', 'GET', '/v1/users/me'), 'malformed_api_key');
    assertUnauthorized(await api(t, 'not-a-jobsite-key', 'GET', '/v1/users/me'), 'malformed_api_key');
  });

  it('tells a typo (bad checksum) from an unknown key', async () => {
    const real = ws.admin.key;
    const last = real.at(-1)!;
    const typo = real.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    const res = await api(t, typo, 'GET', '/v1/users/me');
    assertUnauthorized(res, 'malformed_api_key');
    assert.match(String(res.headers['www-authenticate']), /error="invalid_token"/);
    assertUnauthorized(await api(t, generateApiKeySecret(), 'GET', '/v1/users/me'), 'unknown_api_key');
  });

  it('refuses a revoked key with revoked_api_key', async () => {
    const created = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'short-lived' });
    assert.equal(created.statusCode, 201);
    const { id, key } = created.json();
    assert.equal((await api(t, key, 'GET', '/v1/users/me')).statusCode, 200);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/api-keys/${id}`)).statusCode, 204);
    assertUnauthorized(await api(t, key, 'GET', '/v1/users/me'), 'revoked_api_key');
  });

  it('lets public routes through without a key', async () => {
    for (const url of ['/healthz', '/readyz', '/v1/openapi.json', '/docs', '/metrics']) {
      const res = await api(t, null, 'GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.statusCode}`);
    }
  });
});
