import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/database.ts';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';

let t: TestContext;

before(async () => { t = await startTestApp(); });
after(async () => t.close());

/**
 * Every (method, path) the router knows, read from `printRoutes`, the router's own account
 * (so a route missing from the document cannot hide by missing from a list kept elsewhere).
 */
function registeredRoutes(text: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^((?:│   |    )*)(?:├── |└── )(.+?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack.push(path);
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) routes.push({ method, path });
  }
  return routes;
}

describe('OpenAPI document', () => {
  let doc: Record<string, any>;
  before(async () => {
    const res = await api(t, null, 'GET', '/v1/openapi.json');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    doc = res.json();
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2)?.slice(0, 3000));
    assert.equal(validator.version, '3.1');
    assert.match(doc.openapi, /^3\.1\./);
  });

  it('lists every /v1 route the app serves, with {param} paths', () => {
    const routes = registeredRoutes(t.app.printRoutes({ commonPrefix: false }))
      .filter((r) => r.path.startsWith('/v1/') && r.path !== '/v1/openapi.json' && r.method !== 'HEAD');
    assert.ok(routes.length >= 10, `found only ${routes.length} routes`);
    for (const { method, path } of routes) {
      const documented = path.replace(/:(\w+)/g, '{$1}');
      assert.ok(doc.paths[documented], `${documented} is missing from paths`);
      assert.ok(doc.paths[documented][method.toLowerCase()], `${method} ${documented} is missing`);
    }
    for (const must of ['/v1/users/{id}', '/v1/api-keys/{id}', '/v1/users/me', '/v1/workspace']) assert.ok(doc.paths[must], must);
    assert.equal(doc.paths['/v1/openapi.json'], undefined);
    assert.ok(!Object.keys(doc.paths).some((p) => p.includes(':')), 'no :param paths');
  });

  it('declares bearer authentication and points error answers at the Problem schema', () => {
    assert.deepEqual(doc.components.securitySchemes.bearer, { type: 'http', scheme: 'bearer', description: 'An API key: `jsk_…`.' });
    assert.deepEqual(doc.security, [{ bearer: [] }, { session: [] }]);
    assert.deepEqual({ ...doc.components.securitySchemes.session, description: undefined },
      { type: 'apiKey', in: 'cookie', name: 'jobsite_session', description: undefined });
    const problem = doc.components.schemas.Problem;
    assert.ok(problem, 'Problem schema');
    for (const field of ['type', 'title', 'status', 'code', 'request_id']) assert.ok(problem.properties[field], field);
    assert.ok(problem.properties.errors);

    const get = doc.paths['/v1/users/{id}'].get;
    // Error responses are shared, one per status: components.responses.
    const resolve = (r: { $ref?: string } | undefined) => r?.$ref ? doc.components.responses[r.$ref.split('/').at(-1)!] : r;
    for (const status of ['400', '401', '404', '429']) {
      const content = resolve(get.responses[status])?.content;
      assert.ok(content?.['application/problem+json'], `GET /v1/users/{id} ${status}`);
      assert.equal(content['application/problem+json'].schema.$ref, '#/components/schemas/Problem');
    }
    assert.ok(doc.paths['/v1/users/{id}'].patch.responses['412'], 'PATCH documents 412');
    for (const status of ['409', '422']) assert.ok(doc.paths['/v1/users'].post.responses[status], `POST documents ${status}`);
  });

  it('documents the convention headers on the routes that take them', () => {
    const headerNames = (op: { parameters?: { in: string; name: string }[] }) =>
      (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
    assert.deepEqual(headerNames(doc.paths['/v1/users'].post), ['Idempotency-Key']);
    assert.deepEqual(headerNames(doc.paths['/v1/api-keys'].post), ['Idempotency-Key']);
    assert.deepEqual(headerNames(doc.paths['/v1/users/{id}'].patch), ['If-Match']);
    assert.deepEqual(headerNames(doc.paths['/v1/users/{id}'].delete), ['If-Match']);
    assert.deepEqual(headerNames(doc.paths['/v1/users/{id}'].get), ['If-None-Match']);
    assert.deepEqual(headerNames(doc.paths['/v1/users'].get), [], 'lists carry no ETag');
    for (const status of ['413', '415']) assert.ok(doc.paths['/v1/users'].post.responses[status], `POST with a body documents ${status}`);
  });

  it('documents every error code in the description', () => {
    for (const code of ['validation_failed', 'missing_api_key', 'idempotency_key_reused', 'idempotency_key_secret', 'rate_limited', 'route_not_found']) {
      assert.ok(doc.info.description.includes(`\`${code}\``), code);
    }
  });
});

describe('reference page and operations endpoints', () => {
  async function follow(url: string) {
    let res = await api(t, null, 'GET', url);
    for (let hops = 0; res.statusCode >= 300 && res.statusCode < 400 && hops < 5; hops++) {
      res = await api(t, null, 'GET', new URL(String(res.headers.location), 'http://jobsite.test' + url).pathname);
    }
    return res;
  }

  it('serves /docs as an HTML page whose assets come from this server', async () => {
    const page = await follow('/docs');
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /swagger-ui/i);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('swagger-ui-bundle.js')), assets.join(' '));
    for (const asset of assets) {
      assert.doesNotMatch(asset, /^(https?:)?\/\//, `${asset} is fetched from elsewhere`);
      const res = await api(t, null, 'GET', new URL(asset, 'http://jobsite.test/docs/').pathname);
      assert.equal(res.statusCode, 200, `${asset}: ${res.statusCode}`);
    }
    // No directive that would break the page on a plain-HTTP (LAN) deployment.
    const csp = String(page.headers['content-security-policy']);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  });

  it('is Jobsite\'s page: its title, its logo, and the document at /v1/openapi.json', async () => {
    const page = await follow('/docs');
    assert.match(page.body, /<title>Jobsite API<\/title>/);
    assert.match(page.body, /theme\/logo\.svg/);
    const logo = await api(t, null, 'GET', '/docs/static/theme/logo.svg');
    assert.equal(logo.statusCode, 200);
    assert.match(logo.body, /^<svg/);
    const css = await api(t, null, 'GET', '/docs/static/theme/reference.css');
    assert.match(css.body, /Jobsite API reference/);
    const init = await api(t, null, 'GET', '/docs/static/swagger-initializer.js');
    assert.match(init.body, /"configUrl":"\/docs\/ui-config\.json"/);
    assert.match(init.body, /"layout":"BaseLayout"/);
    assert.deepEqual((await api(t, null, 'GET', '/docs/ui-config.json')).json(), { url: '/v1/openapi.json' });
  });

  it('answers /healthz and /readyz', async () => {
    const health = await api(t, null, 'GET', '/healthz');
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await api(t, null, 'GET', '/readyz');
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ok' });
  });

  it('answers /readyz with a 503 problem when the database is unreachable, while /healthz stays up', async () => {
    const url = new URL(t.url);
    url.port = '1'; // nothing listens there
    const handle = openDatabase(url.toString(), { max: 1 });
    const app = await buildApp({ config: t.config, db: handle.db, logger: false });
    try {
      const ready = await app.inject({ url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.match(String(ready.headers['content-type']), /^application\/problem\+json/);
      assert.equal(ready.json().code, 'service_unavailable');
      assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
    } finally {
      await app.close();
      await handle.close();
    }
  });

  it('counts requests per route pattern in /metrics', async () => {
    const ws = await newWorkspace(t);
    assert.equal((await api(t, ws.admin, 'GET', '/v1/users/me')).statusCode, 200);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/users/${ws.admin.id}`)).statusCode, 200);
    assert.equal((await api(t, null, 'GET', '/v1/no/such/thing')).statusCode, 404);
    const res = await api(t, null, 'GET', '/metrics');
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.match(res.body, /^jobsite_http_requests_total\{method="GET",route="\/v1\/users\/me",status_code="200"\} [1-9]/m);
    // Ids do not make series of their own: the route pattern does.
    assert.match(res.body, /^jobsite_http_requests_total\{method="GET",route="\/v1\/users\/:id",status_code="200"\} [1-9]/m);
    assert.ok(!res.body.includes(ws.admin.id));
    assert.ok(!res.body.includes('/v1/no/such/thing'));
    assert.match(res.body, /^jobsite_http_request_duration_seconds_bucket\{/m);
    assert.match(res.body, /^process_cpu_user_seconds_total /m);
  });
});
