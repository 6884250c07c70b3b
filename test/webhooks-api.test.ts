import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { EVENT_TYPE_NAMES, type EventType } from '../src/features/events/event-types.ts';
import { DELIVERIES_CHANNEL, EventLog } from '../src/features/events/events.log.ts';
import { etagOf } from '../src/http/etag.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A public address literal: no DNS needed, and the SSRF guard lets it through. */
const PUBLIC_URL = 'https://93.184.216.34/hooks/jobsite';
const WEBHOOK_FIELDS = ['created_at', 'created_by', 'description', 'disabled_at', 'disabled_reason', 'enabled', 'events', 'failing_since',
  'id', 'last_success_at', 'previous_secret_expires_at', 'updated_at', 'url'];
const DELIVERY_FIELDS = ['attempt_count', 'attempts', 'completed_at', 'created_at', 'event', 'event_id', 'id', 'last_error',
  'last_status_code', 'next_attempt_at', 'status', 'updated_at'];

let t: TestContext;
let ws: TestWorkspace;
let admin: TestUser;

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
  admin = ws.admin;
});
after(async () => t.close());

async function createWebhook(who: { key: string }, body: Record<string, unknown> = {}) {
  const res = await api(t, who, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['*'], ...body });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as Record<string, any>;
}

/** Emits an event as a feature would, inside a transaction; optionally back-dated. */
async function emit(workspaceId: string, event: EventType, options: { at?: Date; projectId?: string | null; data?: unknown } = {}) {
  const envelope = await t.db.transaction().execute((tx) => new EventLog().emit(tx, {
    workspaceId, event, projectId: options.projectId ?? null, data: options.data ?? { id: 'x' },
  }));
  if (options.at) {
    await t.db.updateTable('events').set({ created_at: options.at }).where('id', '=', envelope.id).execute();
  }
  return envelope;
}

const endpointRow = (id: string) => t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const deliveriesOf = (endpointId: string) =>
  t.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', endpointId).orderBy('id').execute();

function assertProblem(res: { statusCode: number; headers: Record<string, unknown>; json(): any }, status: number, code: string) {
  assert.equal(res.statusCode, status, JSON.stringify(res.json()));
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(res.json().code, code);
  return res.json();
}

describe('creating a webhook endpoint', () => {
  it('answers 201 with Location, the view and a whsec_ secret shown only there', async () => {
    const res = await api(t, admin, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['project.*', 'user.added'], description: 'CRM sync' });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [...WEBHOOK_FIELDS, 'secret'].sort());
    assert.match(body.id, /^whk_[0-9a-z]{26}$/);
    assert.equal(res.headers.location, `/v1/webhooks/${body.id}`);
    assert.match(body.secret, SECRET);
    assert.equal(body.url, PUBLIC_URL);
    assert.deepEqual(body.events, ['project.*', 'user.added']);
    assert.equal(body.description, 'CRM sync');
    assert.equal(body.enabled, true);
    assert.equal(body.disabled_reason, null);
    assert.equal(body.created_by, admin.id);
    assert.match(body.created_at, RFC3339_MS);
    assert.equal(body.previous_secret_expires_at, null);

    // Stored (deliveries are signed with it), never shown again.
    assert.equal((await endpointRow(body.id)).secret, body.secret);
    const got = await api(t, admin, 'GET', `/v1/webhooks/${body.id}`);
    assert.equal(got.statusCode, 200);
    assert.equal(got.json().secret, undefined);
    assert.ok(!got.body.includes(body.secret));
    assert.deepEqual(Object.keys(got.json()).sort(), WEBHOOK_FIELDS);
    const listed = await api(t, admin, 'GET', '/v1/webhooks');
    assert.ok(!listed.body.includes(body.secret));
    assert.ok(listed.json().data.some((w: any) => w.id === body.id));
  });

  it('gives every endpoint its own secret', async () => {
    const a = await createWebhook(admin);
    const b = await createWebhook(admin);
    assert.notEqual(a.secret, b.secret);
  });

  it('may create a disabled endpoint (disabled by hand)', async () => {
    const w = await createWebhook(admin, { enabled: false });
    assert.equal(w.enabled, false);
    assert.equal(w.disabled_reason, 'manual');
    assert.match(w.disabled_at, RFC3339_MS);
  });

  it('refuses unknown event names and patterns, naming each one', async () => {
    const res = await api(t, admin, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['project.created', 'project.exploded', 'nothing.*', 'photo.*', 'Project.created'] });
    const problem = assertProblem(res, 400, 'validation_failed');
    assert.deepEqual(problem.errors.map((e: any) => e.path), ['body.events.1', 'body.events.2', 'body.events.4']);
    assert.match(problem.errors[0].message, /"project\.exploded"/);
    assert.match(problem.detail, /"project\.exploded", "nothing\.\*", "Project\.created"/);
    assert.match(problem.detail, /GET \/v1\/event-types/);
    for (const events of [['*.*'], ['project.'], ['.created'], ['project.created.x'], ['**'], ['project*']]) {
      assertProblem(await api(t, admin, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events }), 400, 'validation_failed');
    }
  });

  it('accepts every event type, every resource wildcard and *', async () => {
    const wildcards = [...new Set(EVENT_TYPE_NAMES.map((e) => `${e.split('.')[0]}.*`))];
    await createWebhook(admin, { events: EVENT_TYPE_NAMES.slice(0, 50) });
    await createWebhook(admin, { events: [...wildcards, '*'] });
  });

  it('validates the shape of the body', async () => {
    const bad: [unknown, string][] = [
      [{ events: ['*'] }, 'body.url'],
      [{ url: PUBLIC_URL }, 'body.events'],
      [{ url: PUBLIC_URL, events: [] }, 'body.events'],
      [{ url: PUBLIC_URL, events: 'project.created' }, 'body.events'],
      [{ url: PUBLIC_URL, events: ['*', '*'] }, 'body.events'],
      [{ url: PUBLIC_URL, events: Array.from({ length: 51 }, (_, i) => EVENT_TYPE_NAMES[i % EVENT_TYPE_NAMES.length] + (i >= EVENT_TYPE_NAMES.length ? 'x' : '')) }, 'body.events'],
      [{ url: PUBLIC_URL, events: [''] }, 'body.events.0'],
      [{ url: PUBLIC_URL, events: [42] }, 'body.events.0'],
      [{ url: `${PUBLIC_URL}?${'a'.repeat(2001)}`, events: ['*'] }, 'body.url'],
      [{ url: '', events: ['*'] }, 'body.url'],
      [{ url: 42, events: ['*'] }, 'body.url'],
      [{ url: PUBLIC_URL, events: ['*'], secret: 'whsec_mine' }, 'body.secret'],
      [{ url: PUBLIC_URL, events: ['*'], description: 'a'.repeat(1001) }, 'body.description'],
      [{ url: PUBLIC_URL, events: ['*'], description: 'nul\u0000' }, 'body.description'],
      [{ url: PUBLIC_URL, events: ['*'], enabled: 'yes' }, 'body.enabled'],
    ];
    for (const [body, path] of bad) {
      const problem = assertProblem(await api(t, admin, 'POST', '/v1/webhooks', body), 400, 'validation_failed');
      assert.ok(problem.errors.some((e: any) => e.path === path), `${JSON.stringify(body).slice(0, 80)}: ${JSON.stringify(problem.errors)}`);
    }
    assertProblem(await api(t, admin, 'POST', '/v1/webhooks', '{"url":', { 'content-type': 'application/json' }), 400, 'malformed_json');
    assertProblem(await api(t, admin, 'POST', '/v1/webhooks'), 400, 'validation_failed');
  });
});

describe('URLs (the SSRF guard at registration)', () => {
  const refused = [
    ['http://127.0.0.1:8080/hook', /loopback/],
    ['http://localhost/hook', /localhost resolves to .*loopback/],
    ['http://10.1.2.3/hook', /private/],
    ['http://192.168.0.10/hook', /private/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://100.64.0.1/hook', /carrier-grade NAT/],
    ['http://[::1]/hook', /loopback/],
    ['http://[::ffff:127.0.0.1]/hook', /IPv4-mapped/],
    ['http://0.0.0.0/hook', /unspecified/],
    ['http://224.0.0.1/hook', /multicast/],
    ['ftp://93.184.216.34/hook', /Only http and https/],
    ['file:///etc/passwd', /Only http and https/],
    ['https://user:pass@93.184.216.34/hook', /user name or password/],
    ['not a url', /not a valid absolute URL/],
    ['https://no-such-host.invalid/hook', /could not be resolved/],
  ] as const;

  it('refuses non-public, non-http(s) and unresolvable URLs with 400 url_not_allowed and a clear detail', async () => {
    for (const [url, why] of refused) {
      const problem = assertProblem(await api(t, admin, 'POST', '/v1/webhooks', { url, events: ['*'] }), 400, 'url_not_allowed');
      assert.match(problem.detail, why, url);
      assert.match(problem.detail, /^The webhook URL is not allowed: /);
      assert.deepEqual(problem.errors.map((e: any) => e.path), ['body.url']);
    }
    const count = await t.db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('url', 'in', refused.map(([url]) => url)).executeTakeFirstOrThrow();
    assert.equal(count.n, 0);
  });

  it('checks a new URL on PATCH too', async () => {
    const w = await createWebhook(admin);
    const problem = assertProblem(await api(t, admin, 'PATCH', `/v1/webhooks/${w.id}`, { url: 'http://10.0.0.5/x' }), 400, 'url_not_allowed');
    assert.match(problem.detail, /private/);
    assert.equal((await endpointRow(w.id)).url, PUBLIC_URL);
  });

  it('accepts a private range the operator allowed with JOBSITE_WEBHOOK_ALLOW_PRIVATE, and only that range', async () => {
    const allowing = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' }, { databaseUrl: t.url });
    try {
      const ok = await allowing.app.inject({ method: 'POST', url: '/v1/webhooks', headers: { authorization: `Bearer ${admin.key}` },
        payload: { url: 'http://127.0.0.1:4000/hook', events: ['*'] } });
      assert.equal(ok.statusCode, 201, ok.body);
      const localhost = await allowing.app.inject({ method: 'POST', url: '/v1/webhooks', headers: { authorization: `Bearer ${admin.key}` },
        payload: { url: 'http://localhost:4000/hook', events: ['*'] } });
      // localhost may resolve to ::1 too, which the IPv4 range does not cover.
      assert.ok(localhost.statusCode === 201 || localhost.json().code === 'url_not_allowed', localhost.body);
      const other = await allowing.app.inject({ method: 'POST', url: '/v1/webhooks', headers: { authorization: `Bearer ${admin.key}` },
        payload: { url: 'http://10.0.0.1/hook', events: ['*'] } });
      assert.equal(other.statusCode, 400);
      assert.equal(other.json().code, 'url_not_allowed');
    } finally {
      await allowing.app.close();
    }
    // …and this app, without the allow list, still refuses it.
    assertProblem(await api(t, admin, 'POST', '/v1/webhooks', { url: 'http://127.0.0.1:4000/hook', events: ['*'] }), 400, 'url_not_allowed');
  });
});

describe('reading, updating and deleting', () => {
  it('lists newest first with keyset pagination', async () => {
    const w2 = await newWorkspace(t);
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await createWebhook(w2.admin, { description: `n${i}` })).id);
    const seen: string[] = [];
    let url = '/v1/webhooks?limit=2';
    for (;;) {
      const res = await api(t, w2.admin, 'GET', url);
      assert.equal(res.statusCode, 200);
      const page = res.json();
      seen.push(...page.data.map((w: any) => w.id));
      if (!page.has_more) break;
      assert.match(String(res.headers.link), /rel="next"/);
      url = `/v1/webhooks?limit=2&cursor=${page.next_cursor}`;
    }
    assert.deepEqual(seen, [...made].reverse());
    assertProblem(await api(t, w2.admin, 'GET', '/v1/webhooks?cursor=garbage'), 400, 'invalid_cursor');
    assertProblem(await api(t, w2.admin, 'GET', '/v1/webhooks?limit=0'), 400, 'validation_failed');
    assertProblem(await api(t, w2.admin, 'GET', '/v1/webhooks?status=x'), 400, 'validation_failed');
  });

  it('answers GET with an ETag and 304 for If-None-Match', async () => {
    const w = await createWebhook(admin);
    const res = await api(t, admin, 'GET', `/v1/webhooks/${w.id}`);
    assert.equal(res.headers.etag, etagOf(res.json()));
    const again = await api(t, admin, 'GET', `/v1/webhooks/${w.id}`, undefined, { 'if-none-match': String(res.headers.etag) });
    assert.equal(again.statusCode, 304);
  });

  it('PATCH merges url, events and description, and honours If-Match', async () => {
    const w = await createWebhook(admin, { description: 'before', events: ['project.*'] });
    const etag = String((await api(t, admin, 'GET', `/v1/webhooks/${w.id}`)).headers.etag);
    const res = await api(t, admin, 'PATCH', `/v1/webhooks/${w.id}`, { events: ['user.*', 'project.created'], url: 'https://93.184.216.35/new' }, { 'if-match': etag });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.events, ['user.*', 'project.created']);
    assert.equal(body.url, 'https://93.184.216.35/new');
    assert.equal(body.description, 'before');
    assert.ok(body.updated_at > w.updated_at);
    assert.equal(body.secret, undefined);
    assert.equal((await endpointRow(w.id)).secret, w.secret, 'PATCH keeps the secret');

    assertProblem(await api(t, admin, 'PATCH', `/v1/webhooks/${w.id}`, { description: 'stale' }, { 'if-match': etag }), 412, 'precondition_failed');
    const cleared = await api(t, admin, 'PATCH', `/v1/webhooks/${w.id}`, { description: null });
    assert.equal(cleared.json().description, null);

    for (const [body, path] of [[{ events: ['nope'] }, 'body.events.0'], [{ events: [] }, 'body.events'], [{ secret: 'x' }, 'body.secret'],
      [{ enabled: null }, 'body.enabled'], [{ url: null }, 'body.url']] as const) {
      const problem = assertProblem(await api(t, admin, 'PATCH', `/v1/webhooks/${w.id}`, body), 400, 'validation_failed');
      assert.ok(problem.errors.some((e: any) => e.path === path), JSON.stringify(problem.errors));
    }
  });

  it('disabling by PATCH fails the pending deliveries; enabling clears why it was disabled', async () => {
    const w2 = await newWorkspace(t);
    const w = await createWebhook(w2.admin, { events: ['project.*'] });
    await emit(w2.id, 'project.created');
    await emit(w2.id, 'project.updated');
    const [done] = await deliveriesOf(w.id);
    await t.db.updateTable('webhook_deliveries').set({ status: 'succeeded', completed_at: new Date(), next_attempt_at: null }).where('id', '=', done!.id).execute();

    const off = await api(t, w2.admin, 'PATCH', `/v1/webhooks/${w.id}`, { enabled: false });
    assert.equal(off.statusCode, 200, off.body);
    assert.equal(off.json().enabled, false);
    assert.equal(off.json().disabled_reason, 'manual');
    assert.match(off.json().disabled_at, RFC3339_MS);
    const after = await deliveriesOf(w.id);
    assert.deepEqual(after.map((d) => d.status), ['succeeded', 'failed']);
    assert.equal(after[1]!.last_error, 'endpoint disabled');
    assert.ok(after[1]!.completed_at);

    // A disabled endpoint gets nothing new.
    await emit(w2.id, 'project.archived');
    assert.equal((await deliveriesOf(w.id)).length, 2);

    // As the dispatcher would leave an endpoint that kept failing:
    await t.db.updateTable('webhook_endpoints').set({ disabled_reason: 'failing', failing_since: new Date(Date.now() - 6 * 86_400_000) }).where('id', '=', w.id).execute();
    const on = await api(t, w2.admin, 'PATCH', `/v1/webhooks/${w.id}`, { enabled: true });
    assert.equal(on.statusCode, 200);
    assert.equal(on.json().enabled, true);
    assert.equal(on.json().disabled_reason, null);
    assert.equal(on.json().disabled_at, null);
    assert.equal(on.json().failing_since, null);
    await emit(w2.id, 'project.restored');
    assert.equal((await deliveriesOf(w.id)).length, 3);

    // Enabling an enabled endpoint changes nothing about its state.
    const again = await api(t, w2.admin, 'PATCH', `/v1/webhooks/${w.id}`, { enabled: true });
    assert.equal(again.json().enabled, true);
  });

  it('DELETE answers 204, honours If-Match, and takes the deliveries with it', async () => {
    const w2 = await newWorkspace(t);
    const w = await createWebhook(w2.admin);
    await emit(w2.id, 'user.added');
    assert.equal((await deliveriesOf(w.id)).length, 1);
    assertProblem(await api(t, w2.admin, 'DELETE', `/v1/webhooks/${w.id}`, undefined, { 'if-match': '"stale"' }), 412, 'precondition_failed');
    const res = await api(t, w2.admin, 'DELETE', `/v1/webhooks/${w.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assert.equal((await deliveriesOf(w.id)).length, 0);
    assertProblem(await api(t, w2.admin, 'GET', `/v1/webhooks/${w.id}`), 404, 'not_found');
    assertProblem(await api(t, w2.admin, 'DELETE', `/v1/webhooks/${w.id}`), 404, 'not_found');
  });

  it('answers 404 for ids that do not exist or are malformed', async () => {
    for (const id of ['nope', 'whk_01jd0000000000000000000000', 'prj_01jd0000000000000000000000', `whk_${'0'.repeat(150)}`, 'whk_%00']) {
      assertProblem(await api(t, admin, 'GET', `/v1/webhooks/${id}`), 404, 'not_found');
      assertProblem(await api(t, admin, 'PATCH', `/v1/webhooks/${id}`, { description: 'x' }), 404, 'not_found');
      assertProblem(await api(t, admin, 'POST', `/v1/webhooks/${id}/ping`), 404, 'not_found');
      assertProblem(await api(t, admin, 'GET', `/v1/webhooks/${id}/deliveries`), 404, 'not_found');
    }
  });
});

describe('secret rotation', () => {
  it('returns a new secret and keeps the old one signing for 24 h by default', async () => {
    const w = await createWebhook(admin);
    const before = Date.now();
    const res = await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.match(body.secret, SECRET);
    assert.notEqual(body.secret, w.secret);
    const row = await endpointRow(w.id);
    assert.equal(row.secret, body.secret);
    assert.equal(row.previous_secret, w.secret);
    const expires = row.previous_secret_expires_at!.getTime();
    assert.ok(expires >= before + 86_400_000 && expires <= Date.now() + 86_400_000, String(row.previous_secret_expires_at));
    assert.equal(body.previous_secret_expires_at, row.previous_secret_expires_at!.toISOString());
    const got = await api(t, admin, 'GET', `/v1/webhooks/${w.id}`);
    assert.ok(!got.body.includes(body.secret) && !got.body.includes(w.secret));
    assert.equal(got.json().previous_secret_expires_at, body.previous_secret_expires_at);
  });

  it('takes a grace period; 0 drops the old secret at once', async () => {
    const w = await createWebhook(admin);
    const hour = await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, { grace_seconds: 3600 });
    assert.equal(hour.statusCode, 200);
    const row = await endpointRow(w.id);
    assert.ok(Math.abs(row.previous_secret_expires_at!.getTime() - (Date.now() + 3600_000)) < 10_000);

    // A second rotation keeps only the secret it replaces.
    const now = await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, { grace_seconds: 0 });
    assert.equal(now.statusCode, 200);
    const after = await endpointRow(w.id);
    assert.equal(after.secret, now.json().secret);
    assert.equal(after.previous_secret, null);
    assert.equal(after.previous_secret_expires_at, null);
    assert.equal(now.json().previous_secret_expires_at, null);
  });

  it('validates grace_seconds', async () => {
    const w = await createWebhook(admin);
    for (const body of [{ grace_seconds: -1 }, { grace_seconds: 604_801 }, { grace_seconds: 1.5 }, { grace_seconds: '60' }, { other: 1 }, []]) {
      assertProblem(await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, body), 400, 'validation_failed');
    }
    assert.equal((await endpointRow(w.id)).secret, w.secret);
    const max = await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, { grace_seconds: 604_800 });
    assert.equal(max.statusCode, 200);
  });
});

describe('Idempotency-Key on requests that return a secret', () => {
  it('never stores the secret: a replay of POST /v1/webhooks answers 409 idempotency_key_secret naming the endpoint', async () => {
    const headers = { 'idempotency-key': `wh-${Date.now()}` };
    const first = await api(t, admin, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['*'] }, headers);
    assert.equal(first.statusCode, 201);
    const stored = await t.db.selectFrom('idempotency_keys').select('response_body').where('key', '=', headers['idempotency-key']).executeTakeFirstOrThrow();
    assert.ok(!stored.response_body!.includes(first.json().secret));
    const again = await api(t, admin, 'POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['*'] }, headers);
    const problem = assertProblem(again, 409, 'idempotency_key_secret');
    assert.equal(problem.resource_id, first.json().id);
  });

  it('does the same for rotate-secret', async () => {
    const w = await createWebhook(admin);
    const headers = { 'idempotency-key': `rot-${Date.now()}` };
    const first = await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, {}, headers);
    assert.equal(first.statusCode, 200);
    const stored = await t.db.selectFrom('idempotency_keys').select('response_body').where('key', '=', headers['idempotency-key']).executeTakeFirstOrThrow();
    assert.ok(!stored.response_body!.includes(first.json().secret));
    assertProblem(await api(t, admin, 'POST', `/v1/webhooks/${w.id}/rotate-secret`, {}, headers), 409, 'idempotency_key_secret');
    assert.equal((await endpointRow(w.id)).secret, first.json().secret, 'the replay did not rotate again');
  });
});

describe('ping', () => {
  it('creates one webhook.ping event and exactly one delivery, to this endpoint only, whatever it subscribes to', async () => {
    const w2 = await newWorkspace(t);
    const target = await createWebhook(w2.admin, { events: ['project.created'] });
    const bystander = await createWebhook(w2.admin, { events: ['*'] });
    const res = await api(t, w2.admin, 'POST', `/v1/webhooks/${target.id}/ping`);
    assert.equal(res.statusCode, 202, res.body);
    const { event_id, delivery_id } = res.json();
    assert.match(event_id, /^evt_/);
    assert.match(delivery_id, /^dlv_/);

    const event = await t.db.selectFrom('events').selectAll().where('id', '=', event_id).executeTakeFirstOrThrow();
    assert.equal(event.event, 'webhook.ping');
    assert.equal(event.project_id, null);
    assert.equal(event.workspace_id, w2.id);
    const envelope = JSON.parse(event.payload);
    assert.deepEqual(Object.keys(envelope).sort(), ['created_at', 'data', 'event', 'id', 'project_id', 'workspace_id']);
    assert.equal(envelope.data.id, target.id, 'data.id names the resource, as in every other event');
    assert.equal(envelope.data.webhook_id, target.id);
    assert.equal(typeof envelope.data.message, 'string');

    const deliveries = await t.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', event_id).execute();
    assert.equal(deliveries.length, 1);
    assert.equal(deliveries[0]!.id, delivery_id);
    assert.equal(deliveries[0]!.endpoint_id, target.id);
    assert.equal(deliveries[0]!.status, 'pending');
    assert.equal((await deliveriesOf(bystander.id)).length, 0);

    const shown = await api(t, w2.admin, 'GET', `/v1/webhooks/${target.id}/deliveries/${delivery_id}`);
    assert.equal(shown.statusCode, 200);
    assert.equal(shown.json().event, 'webhook.ping');
  });

  it('refuses a disabled endpoint with 409 webhook_disabled', async () => {
    const w = await createWebhook(admin, { enabled: false });
    const problem = assertProblem(await api(t, admin, 'POST', `/v1/webhooks/${w.id}/ping`), 409, 'webhook_disabled');
    assert.match(problem.detail, /disabled \(by hand\).*enable it first/);
    assert.equal((await deliveriesOf(w.id)).length, 0);
  });
});

describe('the delivery log', () => {
  let w2: TestWorkspace;
  let hook: Record<string, any>;
  let deliveryIds: string[];

  before(async () => {
    w2 = await newWorkspace(t);
    hook = await createWebhook(w2.admin, { events: ['project.*', 'user.added'] });
    await emit(w2.id, 'project.created', { projectId: 'prj_01jd0000000000000000000000' });
    await emit(w2.id, 'user.added');
    await emit(w2.id, 'project.updated');
    await emit(w2.id, 'user.removed'); // not subscribed
    deliveryIds = (await deliveriesOf(hook.id)).map((d) => d.id);
    assert.equal(deliveryIds.length, 3);
    // The first failed twice then succeeded; the second gave up after one attempt.
    const at = (s: number) => new Date(Date.now() - s * 1000);
    await t.db.insertInto('webhook_attempts').values([
      { delivery_id: deliveryIds[0]!, attempted_at: at(30), status_code: 500, duration_ms: 12, response_excerpt: 'oops', error: 'HTTP 500' },
      { delivery_id: deliveryIds[0]!, attempted_at: at(20), status_code: null, duration_ms: 10_000, response_excerpt: null, error: 'timeout: no answer in 10 s' },
      { delivery_id: deliveryIds[0]!, attempted_at: at(10), status_code: 204, duration_ms: 8, response_excerpt: '', error: null },
      { delivery_id: deliveryIds[1]!, attempted_at: at(5), status_code: 400, duration_ms: 3, response_excerpt: 'bad', error: 'HTTP 400' },
    ]).execute();
    await t.db.updateTable('webhook_deliveries').set({ status: 'succeeded', attempt_count: 3, last_status_code: 204, completed_at: at(10), next_attempt_at: null })
      .where('id', '=', deliveryIds[0]!).execute();
    await t.db.updateTable('webhook_deliveries').set({ status: 'failed', attempt_count: 11, last_status_code: 400, last_error: 'HTTP 400', completed_at: at(5), next_attempt_at: null })
      .where('id', '=', deliveryIds[1]!).execute();
  });

  it('lists deliveries newest first, each with its attempts oldest first', async () => {
    const res = await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries`);
    assert.equal(res.statusCode, 200, res.body);
    const page = res.json();
    assert.deepEqual(page.data.map((d: any) => d.id), [...deliveryIds].reverse());
    for (const d of page.data) assert.deepEqual(Object.keys(d).sort(), DELIVERY_FIELDS);
    const [pending, failed, succeeded] = page.data;
    assert.equal(pending.event, 'project.updated');
    assert.equal(pending.status, 'pending');
    assert.equal(pending.attempt_count, 0);
    assert.match(pending.next_attempt_at, RFC3339_MS);
    assert.deepEqual(pending.attempts, []);
    assert.equal(failed.event, 'user.added');
    assert.equal(failed.status, 'failed');
    assert.equal(failed.next_attempt_at, null);
    assert.equal(failed.last_error, 'HTTP 400');
    assert.deepEqual(failed.attempts, [{ attempted_at: failed.attempts[0].attempted_at, status_code: 400, duration_ms: 3, response_excerpt: 'bad', error: 'HTTP 400' }]);
    assert.equal(succeeded.event, 'project.created');
    assert.deepEqual(succeeded.attempts.map((a: any) => a.status_code), [500, null, 204]);
    assert.equal(succeeded.attempts[1].error, 'timeout: no answer in 10 s');
    assert.ok(succeeded.attempts[0].attempted_at < succeeded.attempts[2].attempted_at);
    assert.match(succeeded.completed_at, RFC3339_MS);
  });

  it('filters by status and event, and paginates', async () => {
    const by = async (query: string) => (await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries?${query}`)).json().data.map((d: any) => d.id);
    assert.deepEqual(await by('status=pending'), [deliveryIds[2]]);
    assert.deepEqual(await by('status=failed'), [deliveryIds[1]]);
    assert.deepEqual(await by('status=succeeded'), [deliveryIds[0]]);
    assert.deepEqual(await by('event=project.created'), [deliveryIds[0]]);
    assert.deepEqual(await by('event=user.removed'), []);
    assert.deepEqual(await by('event=project.updated&status=failed'), []);
    const first = await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=2`);
    assert.equal(first.json().has_more, true);
    assert.match(String(first.headers.link), /rel="next"/);
    const second = await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries?limit=2&cursor=${first.json().next_cursor}`);
    assert.deepEqual(second.json().data.map((d: any) => d.id), [deliveryIds[0]]);
    assert.equal(second.json().has_more, false);

    for (const query of ['status=done', 'event=project.exploded', 'event=project.*', 'limit=101', 'unknown=1']) {
      assertProblem(await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries?${query}`), 400, 'validation_failed');
    }
    assertProblem(await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries?cursor=abc`), 400, 'invalid_cursor');
  });

  it('shows the latest 25 attempts of a delivery retried many times', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({
      delivery_id: deliveryIds[2]!, attempted_at: new Date(Date.now() - (30 - i) * 1000), status_code: 500 + (i % 3), duration_ms: i, response_excerpt: null, error: `attempt ${i}`,
    }));
    await t.db.insertInto('webhook_attempts').values(many).execute();
    try {
      const res = await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries/${deliveryIds[2]}`);
      const attempts = res.json().attempts;
      assert.equal(attempts.length, 25);
      assert.equal(attempts[0].error, 'attempt 5');
      assert.equal(attempts[24].error, 'attempt 29');
      const listed = (await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries`)).json().data;
      assert.equal(listed[0].attempts.length, 25);
      assert.equal(listed[2].attempts.length, 3);
    } finally {
      await t.db.deleteFrom('webhook_attempts').where('delivery_id', '=', deliveryIds[2]!).execute();
    }
  });

  it('gets one delivery with an ETag; other endpoints\' and unknown deliveries are 404', async () => {
    const res = await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries/${deliveryIds[0]}`);
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().id, deliveryIds[0]);
    assert.equal(res.headers.etag, etagOf(res.json()));
    const other = await createWebhook(w2.admin);
    assertProblem(await api(t, w2.admin, 'GET', `/v1/webhooks/${other.id}/deliveries/${deliveryIds[0]}`), 404, 'not_found');
    for (const id of ['dlv_01jd0000000000000000000000', 'nope', 'dlv_%00']) {
      assertProblem(await api(t, w2.admin, 'GET', `/v1/webhooks/${hook.id}/deliveries/${id}`), 404, 'not_found');
      assertProblem(await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/deliveries/${id}/retry`), 404, 'not_found');
    }
  });
});

describe('retrying a delivery', () => {
  it('makes a failed delivery pending and due now, keeping its attempt count, and wakes the dispatcher', async () => {
    const w2 = await newWorkspace(t);
    const hook = await createWebhook(w2.admin);
    await emit(w2.id, 'project.created');
    const [d] = await deliveriesOf(hook.id);
    await t.db.updateTable('webhook_deliveries')
      .set({ status: 'failed', attempt_count: 11, last_status_code: 503, last_error: 'HTTP 503', completed_at: new Date(Date.now() - 60_000), next_attempt_at: null })
      .where('id', '=', d!.id).execute();

    const listener = await listen();
    try {
      const before = Date.now();
      const res = await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/retry`);
      assert.equal(res.statusCode, 202, res.body);
      assert.equal(res.json().status, 'pending');
      assert.equal(res.json().attempt_count, 11);
      assert.equal(res.json().completed_at, null);
      const [row] = await deliveriesOf(hook.id);
      assert.equal(row!.status, 'pending');
      assert.equal(row!.attempt_count, 11);
      assert.equal(row!.completed_at, null);
      assert.equal(row!.lease_until, null);
      assert.ok(row!.next_attempt_at!.getTime() >= before - 1000 && row!.next_attempt_at!.getTime() <= Date.now() + 1000);
      assert.equal(row!.last_status_code, 503, 'the last outcome stays visible until the next attempt');
      await listener.notified();
    } finally {
      await listener.close();
    }
  });

  it('sends a succeeded delivery again too', async () => {
    const w2 = await newWorkspace(t);
    const hook = await createWebhook(w2.admin);
    await emit(w2.id, 'user.added');
    const [d] = await deliveriesOf(hook.id);
    await t.db.updateTable('webhook_deliveries').set({ status: 'succeeded', attempt_count: 1, completed_at: new Date(), next_attempt_at: null }).where('id', '=', d!.id).execute();
    const res = await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/retry`);
    assert.equal(res.statusCode, 202);
    const [row] = await deliveriesOf(hook.id);
    assert.equal(row!.status, 'pending');
    assert.equal(row!.attempt_count, 1);
    assert.equal((await deliveriesOf(hook.id)).length, 1, 'no new delivery');
  });

  it('leaves the lease of a delivery being attempted right now', async () => {
    const w2 = await newWorkspace(t);
    const hook = await createWebhook(w2.admin);
    await emit(w2.id, 'user.added');
    const [d] = await deliveriesOf(hook.id);
    const lease = new Date(Date.now() + 30_000);
    await t.db.updateTable('webhook_deliveries').set({ lease_until: lease }).where('id', '=', d!.id).execute();
    assert.equal((await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/retry`)).statusCode, 202);
    assert.equal((await deliveriesOf(hook.id))[0]!.lease_until!.getTime(), lease.getTime());
  });

  it('refuses while the endpoint is disabled (409), changing nothing', async () => {
    const w2 = await newWorkspace(t);
    const hook = await createWebhook(w2.admin);
    await emit(w2.id, 'user.added');
    await api(t, w2.admin, 'PATCH', `/v1/webhooks/${hook.id}`, { enabled: false });
    const [d] = await deliveriesOf(hook.id);
    assert.equal(d!.status, 'failed');
    assertProblem(await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/deliveries/${d!.id}/retry`), 409, 'webhook_disabled');
    assert.equal((await deliveriesOf(hook.id))[0]!.status, 'failed');
  });
});

describe('replaying a time range', () => {
  let w2: TestWorkspace;
  let hook: Record<string, any>;
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000);
  const expected: string[] = [];

  before(async () => {
    w2 = await newWorkspace(t);
    // Created after the events, so none of them was delivered to it.
    const events = [
      await emit(w2.id, 'project.created', { at: hoursAgo(50) }),
      await emit(w2.id, 'project.updated', { at: hoursAgo(30) }),
      await emit(w2.id, 'user.added', { at: hoursAgo(20) }),
      await emit(w2.id, 'user.removed', { at: hoursAgo(10) }),
      await emit(w2.id, 'webhook.ping', { at: hoursAgo(5) }),
      await emit(w2.id, 'project.archived', { at: hoursAgo(1) }),
    ];
    const other = await newWorkspace(t);
    await emit(other.id, 'project.created', { at: hoursAgo(2) });
    hook = await createWebhook(w2.admin, { events: ['project.*', 'user.added', 'webhook.ping'] });
    expected.push(events[1]!.id, events[2]!.id, events[5]!.id);
  });

  it('queues one new delivery per matching event in [since, until), pings excepted, due now', async () => {
    const listener = await listen();
    try {
      // (until: before the workspace's own provisioning events of a moment ago)
      const res = await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/replay`, { since: hoursAgo(40).toISOString(), until: hoursAgo(0.5).toISOString() });
      assert.equal(res.statusCode, 202, res.body);
      assert.deepEqual(res.json(), { queued: 3 });
      await listener.notified();
    } finally {
      await listener.close();
    }
    const rows = await deliveriesOf(hook.id);
    assert.deepEqual(rows.map((d) => d.event_id), expected);
    for (const d of rows) {
      assert.equal(d.status, 'pending');
      assert.equal(d.attempt_count, 0);
      assert.ok(Math.abs(d.next_attempt_at!.getTime() - Date.now()) < 10_000);
      assert.equal(d.workspace_id, w2.id);
    }

    // Again, bounded: new deliveries each time (the receiver dedupes on webhook-id).
    const bounded = await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/replay`, { since: hoursAgo(40).toISOString(), until: hoursAgo(25).toISOString() });
    assert.deepEqual(bounded.json(), { queued: 1 });
    assert.equal((await deliveriesOf(hook.id)).length, 4);
    const empty = await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/replay`, { since: hoursAgo(0.9).toISOString(), until: hoursAgo(0.5).toISOString() });
    assert.deepEqual(empty.json(), { queued: 0 });
  });

  it('validates the range', async () => {
    const cases: [unknown, RegExp][] = [
      [{ since: new Date(Date.now() - 31 * 86_400_000).toISOString() }, /30 days/],
      [{ since: hoursAgo(1).toISOString(), until: hoursAgo(2).toISOString() }, /before until/],
      [{ since: hoursAgo(1).toISOString(), until: hoursAgo(1).toISOString() }, /before until/],
      [{ since: new Date(Date.now() + 3600_000).toISOString() }, /before until/],
      [{ since: 'yesterday' }, /./],
      [{ since: '2026-01-01' }, /./],
      [{ since: '2026-01-01T00:00:00' }, /./],
      [{}, /./],
      [{ since: hoursAgo(1).toISOString(), extra: true }, /./],
      [{ since: 1_700_000_000 }, /./],
    ];
    for (const [body, detail] of cases) {
      const problem = assertProblem(await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/replay`, body), 400, 'validation_failed');
      assert.match(problem.detail, detail, JSON.stringify(body));
    }
    // A leap second passes RFC 3339 but not Date: a 400, not a 500.
    assertProblem(await api(t, w2.admin, 'POST', `/v1/webhooks/${hook.id}/replay`, { since: '2016-12-31T23:59:60Z' }), 400, 'validation_failed');
  });

  it('refuses more than 10,000 events in one request, queuing nothing', async () => {
    const w3 = await newWorkspace(t);
    const big = await createWebhook(w3.admin, { events: ['project.created'] });
    await sql`insert into events (id, workspace_id, project_id, event, payload, created_at)
              select 'evt_bulk' || lpad(i::text, 22, '0'), ${w3.id}, null, 'project.created', '{}', now() - interval '1 hour'
              from generate_series(1, 10001) as i`.execute(t.db);
    const problem = assertProblem(await api(t, w3.admin, 'POST', `/v1/webhooks/${big.id}/replay`, { since: hoursAgo(2).toISOString() }), 400, 'replay_too_large');
    assert.match(problem.detail, /narrower/);
    assert.equal((await deliveriesOf(big.id)).length, 0);
    // Exactly 10,000 is fine.
    await t.db.deleteFrom('events').where('id', '=', `evt_bulk${'1'.padStart(22, '0')}`).execute();
    const ok = await api(t, w3.admin, 'POST', `/v1/webhooks/${big.id}/replay`, { since: hoursAgo(2).toISOString() });
    assert.equal(ok.statusCode, 202, ok.body);
    assert.deepEqual(ok.json(), { queued: 10_000 });
    assert.equal((await deliveriesOf(big.id)).length, 10_000);
  });

  it('refuses a disabled endpoint with 409', async () => {
    const off = await createWebhook(w2.admin, { enabled: false });
    assertProblem(await api(t, w2.admin, 'POST', `/v1/webhooks/${off.id}/replay`, { since: hoursAgo(40).toISOString() }), 409, 'webhook_disabled');
    assert.equal((await deliveriesOf(off.id)).length, 0);
  });
});

describe('who may manage webhooks', () => {
  let hook: Record<string, any>;
  let deliveryId: string;
  const routes = (id: string, dlv: string): [string, string, unknown?][] => [
    ['GET', '/v1/webhooks'],
    ['POST', '/v1/webhooks', { url: PUBLIC_URL, events: ['*'] }],
    ['GET', `/v1/webhooks/${id}`],
    ['PATCH', `/v1/webhooks/${id}`, { description: 'mine now' }],
    ['DELETE', `/v1/webhooks/${id}`],
    ['POST', `/v1/webhooks/${id}/rotate-secret`],
    ['POST', `/v1/webhooks/${id}/ping`],
    ['GET', `/v1/webhooks/${id}/deliveries`],
    ['GET', `/v1/webhooks/${id}/deliveries/${dlv}`],
    ['POST', `/v1/webhooks/${id}/deliveries/${dlv}/retry`],
    ['POST', `/v1/webhooks/${id}/replay`, { since: new Date(Date.now() - 3600_000).toISOString() }],
  ];

  before(async () => {
    hook = await createWebhook(admin);
    deliveryId = (await api(t, admin, 'POST', `/v1/webhooks/${hook.id}/ping`)).json().delivery_id;
  });

  it('answers 403 to every role but admin, on every route', async () => {
    for (const role of ['manager', 'standard', 'restricted'] as const) {
      const user = await newUser(t, ws, role);
      for (const [method, url, body] of routes(hook.id, deliveryId)) {
        const problem = assertProblem(await api(t, user, method, url, body), 403, 'forbidden');
        assert.match(problem.detail, /manage webhooks/, `${role} ${method} ${url}`);
      }
    }
    const row = await endpointRow(hook.id);
    assert.equal(row.secret, hook.secret);
    assert.equal(row.description, null);
  });

  it('answers 404 for another workspace\'s endpoint and deliveries, on every route', async () => {
    const other = await newWorkspace(t);
    for (const [method, url, body] of routes(hook.id, deliveryId).filter(([, url]) => url !== '/v1/webhooks')) {
      assertProblem(await api(t, other.admin, method, url, body), 404, 'not_found');
    }
    const list = await api(t, other.admin, 'GET', '/v1/webhooks');
    assert.deepEqual(list.json().data, []);
    assert.ok(await endpointRow(hook.id));
  });
});

describe('the OpenAPI document', () => {
  it('has a webhooks entry for every event type, with its payload and signature headers', async () => {
    const doc = (await api(t, null, 'GET', '/v1/openapi.json')).json();
    assert.deepEqual(Object.keys(doc.webhooks).sort(), [...EVENT_TYPE_NAMES].sort());
    for (const name of EVENT_TYPE_NAMES) {
      const post = doc.webhooks[name].post;
      const schema = post.requestBody.content['application/json'].schema;
      assert.equal(schema.properties.event.const, name);
      assert.deepEqual(schema.required, ['id', 'event', 'project_id', 'workspace_id', 'created_at', 'data']);
      const headers = post.parameters.map((p: any) => p.name);
      for (const h of ['X-Service-Signature', 'webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Service-Event', 'X-Service-Delivery']) {
        assert.ok(headers.includes(h), `${name}: ${h}`);
      }
    }
    const ref = (name: string) => doc.webhooks[name].post.requestBody.content['application/json'].schema.properties.data.$ref;
    assert.equal(ref('project.created'), '#/components/schemas/Project');
    assert.equal(ref('user.removed'), '#/components/schemas/User');
    assert.equal(ref('webhook.disabled'), '#/components/schemas/Webhook');
    for (const schema of ['Project', 'User', 'Webhook']) assert.ok(doc.components.schemas[schema]?.properties?.id, schema);
    assert.deepEqual(doc.webhooks['webhook.ping'].post.requestBody.content['application/json'].schema.properties.data.required, ['id', 'webhook_id', 'message']);
    for (const path of ['/v1/webhooks', '/v1/webhooks/{id}', '/v1/webhooks/{id}/rotate-secret', '/v1/webhooks/{id}/ping', '/v1/webhooks/{id}/deliveries',
      '/v1/webhooks/{id}/deliveries/{delivery_id}', '/v1/webhooks/{id}/deliveries/{delivery_id}/retry', '/v1/webhooks/{id}/replay']) {
      assert.ok(doc.paths[path], path);
    }
    assert.ok(doc.info.description.includes('url_not_allowed'));
  });
});

/** A LISTEN on the dispatcher's channel, to see that a write woke it (on commit). */
async function listen(): Promise<{ notified(): Promise<void>; close(): Promise<void> }> {
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  let resolve!: () => void;
  const got = new Promise<void>((r) => { resolve = r; });
  client.on('notification', (n) => { if (n.channel === DELIVERIES_CHANNEL) resolve(); });
  await client.query(`listen ${DELIVERIES_CHANNEL}`);
  return {
    notified: () => Promise.race([got, new Promise<void>((_, reject) => setTimeout(() => reject(new Error('no NOTIFY within 5 s')), 5000))]),
    close: () => client.end(),
  };
}
