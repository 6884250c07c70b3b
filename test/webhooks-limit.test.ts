/**
 * A workspace has at most JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE endpoints (20 by default): one
 * more answers 422 `webhook_endpoint_limit_reached`, also when several creations race at the edge.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

/** A public address literal: no DNS needed, and the SSRF guard lets it through. */
const PUBLIC_URL = 'https://93.184.216.34/hooks/jobsite';

let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t.close());

const create = (ws: TestWorkspace, i: number) =>
  api(t, ws.admin, 'POST', '/v1/webhooks', { url: `${PUBLIC_URL}/${i}`, events: ['*'], enabled: i % 2 === 0 });
const count = async (ws: TestWorkspace) => {
  const page = (await api(t, ws.admin, 'GET', '/v1/webhooks?limit=100')).json();
  return page.data.length as number;
};

it('20 endpoints are fine, the 21st (disabled ones count) is refused with a clear 422; deleting one makes room', async () => {
  const ws = await newWorkspace(t);
  for (let i = 0; i < 20; i++) {
    const res = await create(ws, i);
    assert.equal(res.statusCode, 201, res.body);
  }
  const refused = await create(ws, 20);
  assert.equal(refused.statusCode, 422, refused.body);
  assert.match(String(refused.headers['content-type']), /^application\/problem\+json/);
  const problem = refused.json();
  assert.equal(problem.code, 'webhook_endpoint_limit_reached');
  assert.equal(problem.limit, 20);
  assert.match(problem.detail, /20 webhook endpoints/);
  assert.equal(await count(ws), 20);

  // Another workspace has its own 20.
  const other = await newWorkspace(t);
  assert.equal((await create(other, 0)).statusCode, 201);

  const oldest = (await api(t, ws.admin, 'GET', '/v1/webhooks?limit=100')).json().data.at(-1);
  assert.equal((await api(t, ws.admin, 'DELETE', `/v1/webhooks/${oldest.id}`)).statusCode, 204);
  assert.equal((await create(ws, 21)).statusCode, 201);
  assert.equal((await create(ws, 22)).statusCode, 422);
});

it('creations racing at 19 endpoints: exactly one gets the last place', async () => {
  const ws = await newWorkspace(t);
  for (let i = 0; i < 19; i++) assert.equal((await create(ws, i)).statusCode, 201);
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => create(ws, 100 + i)));
  const statuses = answers.map((r) => r.statusCode).sort();
  assert.deepEqual(statuses, [201, 422, 422, 422, 422, 422], answers.map((r) => r.body).join('\n'));
  assert.ok(answers.filter((r) => r.statusCode === 422).every((r) => r.json().code === 'webhook_endpoint_limit_reached'));
  assert.equal(await count(ws), 20);
});

it('the OpenAPI document names the error on POST /v1/webhooks', async () => {
  const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  const post = doc.paths['/v1/webhooks'].post;
  const ref = (r: { $ref?: string; description?: string }) => (r.$ref ? doc.components.responses[r.$ref.split('/').pop()!] : r);
  assert.match(ref(post.responses['422']).description, /webhook_endpoint_limit_reached/);
  assert.match(post.description, /JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE/);
});

it('the operator sets the limit (JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE)', async () => {
  const small = await startTestApp({ JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE: '2' }, { databaseUrl: t.url });
  try {
    const ws = await newWorkspace(small);
    const post = (i: number) => api(small, ws.admin, 'POST', '/v1/webhooks', { url: `${PUBLIC_URL}/${i}`, events: ['*'] });
    assert.equal((await post(0)).statusCode, 201);
    assert.equal((await post(1)).statusCode, 201);
    const refused = await post(2);
    assert.equal(refused.statusCode, 422, refused.body);
    assert.equal(refused.json().limit, 2);
  } finally {
    await small.close();
  }
});
