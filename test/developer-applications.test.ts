/**
 * The developer program's public side (issue 7): applying without a key, following the status
 * with the token, and the abuse protection (strict validation, body limit, per-address rate limit,
 * one pending application per e-mail); and the operator webhook, delivered by the real dispatcher.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { clientBucket } from '../src/http/client-address.ts';
import { OPERATOR_ENDPOINT_ID, SYSTEM_WORKSPACE_ID } from '../src/features/developer-applications/developer-applications.operator-webhook.ts';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { generateWebhookSecret } from '../src/features/webhooks/webhooks.signing.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { eventually, Receiver } from './webhook-receiver.ts';

let counter = 0;
const email = () => `dev${Date.now().toString(36)}${counter++}@integrator.test`;

const validApplication = (extra: Record<string, unknown> = {}) => ({
  company_name: 'Acme Integrations',
  contact_name: 'Ada Lovelace',
  email: email(),
  intended_use: 'Sync jobsite photos into our CRM, nightly, for about 40 customers.',
  website: 'https://acme.example',
  expected_monthly_requests: 50_000,
  ...extra,
});

/** An application from `ip` (inject's remoteAddress). */
function apply(t: TestContext, body: unknown, ip = '203.0.113.7', headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST', url: '/v1/developer-applications', remoteAddress: ip,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const status = (t: TestContext, id: string, token?: string) => t.app.inject({
  method: 'GET', url: `/v1/developer-applications/${id}`, headers: token === undefined ? {} : { 'x-application-token': token },
});

describe('applying and following the status', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp({ JOBSITE_APPLICATION_RATE_LIMIT: '1000' }); });
  after(async () => { await t.close(); });

  it('answers 202 with the id, pending and a status token, without any key', async () => {
    const body = validApplication();
    const res = await apply(t, body);
    assert.equal(res.statusCode, 202, res.body);
    const receipt = res.json();
    assert.deepEqual(Object.keys(receipt).sort(), ['created_at', 'id', 'status', 'status_token']);
    assert.match(receipt.id, /^app_[0-9a-z]{26}$/);
    assert.equal(receipt.status, 'pending');
    assert.match(receipt.status_token, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(res.headers.location, `/v1/developer-applications/${receipt.id}`);

    const row = await t.db.selectFrom('developer_applications').selectAll().where('id', '=', receipt.id).executeTakeFirstOrThrow();
    assert.equal(row.email, body.email);
    assert.equal(row.intended_use, body.intended_use);
    assert.equal(row.expected_monthly_requests, 50_000);
    assert.equal(row.client_ip, '203.0.113.7');
    assert.ok(!row.status_token_hash.toString('utf8').includes(receipt.status_token), 'only a hash of the token is stored');

    const seen = await status(t, receipt.id, receipt.status_token);
    assert.equal(seen.statusCode, 200);
    assert.deepEqual(Object.keys(seen.json()).sort(), ['created_at', 'id', 'status', 'updated_at'], 'the status and nothing else');
    assert.equal(seen.json().status, 'pending');
    assert.ok(seen.headers.etag);
  });

  it('answers 404 for a wrong token, another application\'s token or an unknown id, and 400 without a token', async () => {
    const a = (await apply(t, validApplication())).json();
    const b = (await apply(t, validApplication())).json();
    const wrong = [
      [a.id, b.status_token],
      [a.id, a.status_token.slice(0, -1) + (a.status_token.endsWith('A') ? 'B' : 'A')],
      [a.id, 'x'],
      ['app_01jd0000000000000000000000', a.status_token],
      ['nope', a.status_token],
    ];
    for (const [id, token] of wrong) {
      const res = await status(t, id!, token);
      assert.equal(res.statusCode, 404, `${id} ${token}`);
      assert.equal(res.json().code, 'not_found');
      assert.equal(res.json().detail, 'No developer application with this id and status token.', 'the same answer whatever was wrong');
    }
    const none = await status(t, a.id);
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().errors[0].path, 'header.x-application-token');
  });

  it('refuses a second pending application for the same address (any case) with 409', async () => {
    const address = email();
    assert.equal((await apply(t, validApplication({ email: address }))).statusCode, 202);
    const again = await apply(t, validApplication({ email: address.toUpperCase() }));
    assert.equal(again.statusCode, 409);
    assert.equal(again.json().code, 'application_pending');
    // Concurrent duplicates: exactly one gets in.
    const racing = email();
    const results = await Promise.all(Array.from({ length: 8 }, () => apply(t, validApplication({ email: racing }))));
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [202, 409, 409, 409, 409, 409, 409, 409]);
  });

  it('refuses malformed and invalid bodies with 400 naming each field', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ intended_use: 'too short' }, 'body.intended_use', 'must NOT have fewer than 20 characters'],
      [{ intended_use: `   ${'short'}                         ` }, 'body.intended_use', 'must have at least 20 characters besides surrounding spaces'],
      [{ intended_use: 'x'.repeat(5001) }, 'body.intended_use', 'must NOT have more than 5000 characters'],
      [{ email: 'not-an-address' }, 'body.email', 'must match format "email"'],
      [{ email: 42 }, 'body.email', 'must be string'],
      [{ company_name: '' }, 'body.company_name', 'must NOT have fewer than 1 characters'],
      [{ company_name: '   ' }, 'body.company_name', 'must not be blank'],
      [{ contact_name: 'Ada\u0007' }, 'body.contact_name', 'must match pattern "^[^\\u0000-\\u001F\\u007F]*$"'],
      [{ website: 'javascript:alert(1)' }, 'body.website', 'must match pattern "^https?://[^\\s]+$"'],
      [{ expected_monthly_requests: -1 }, 'body.expected_monthly_requests', 'must be >= 0'],
      [{ expected_monthly_requests: '1000' }, 'body.expected_monthly_requests', 'must be integer'],
      [{ role: 'admin' }, 'body.role', 'is not a known field'],
    ];
    for (const [change, path, message] of cases) {
      const res = await apply(t, validApplication(change));
      assert.equal(res.statusCode, 400, `${JSON.stringify(change).slice(0, 60)}: ${res.body}`);
      assert.equal(res.json().code, 'validation_failed');
      assert.ok(res.json().errors.some((e: { path: string; message: string }) => e.path === path && e.message.startsWith(message.split(' "')[0]!)),
        `${path}: ${JSON.stringify(res.json().errors)}`);
    }
    const missing = await apply(t, {});
    assert.equal(missing.statusCode, 400);
    assert.deepEqual(missing.json().errors.map((e: { path: string }) => e.path).sort(),
      ['body.company_name', 'body.contact_name', 'body.email', 'body.intended_use']);
    // Multi-line intended use is fine.
    assert.equal((await apply(t, validApplication({ intended_use: 'Line one of the plan.\nLine two: photos\tand tasks.' }))).statusCode, 202);

    const broken = await apply(t, '{"company_name": "Acme",');
    assert.equal(broken.statusCode, 400);
    assert.equal(broken.json().code, 'malformed_json');
    const text = await apply(t, 'hello', undefined, { 'content-type': 'text/plain' });
    assert.equal(text.statusCode, 415);
    assert.equal(text.json().code, 'unsupported_media_type');
    const array = await apply(t, '[]');
    assert.equal(array.statusCode, 400);
    assert.equal(array.json().code, 'validation_failed');
  });

  it('refuses a body over 32 KiB with 413, before reading it all', async () => {
    const res = await apply(t, validApplication({ intended_use: 'x'.repeat(40_000) }));
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'payload_too_large');
    assert.match(res.json().detail, /32768 bytes/);
  });

  it('is documented in the OpenAPI document, field by field, as public', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const post = doc.paths['/v1/developer-applications'].post;
    assert.deepEqual(post.security, []);
    const bodyRef = post.requestBody.content['application/json'].schema.$ref as string;
    const body = doc.components.schemas[bodyRef.split('/').at(-1)!];
    assert.deepEqual(Object.keys(body.properties).sort(),
      ['company_name', 'contact_name', 'email', 'expected_monthly_requests', 'intended_use', 'website']);
    assert.deepEqual([...body.required].sort(), ['company_name', 'contact_name', 'email', 'intended_use']);
    assert.equal(body.properties.intended_use.minLength, 20);
    assert.equal(body.properties.intended_use.maxLength, 5000);
    assert.ok(post.responses['202'] && post.responses['409'] && post.responses['413'] && post.responses['429']);
    const get = doc.paths['/v1/developer-applications/{id}'].get;
    assert.deepEqual(get.security, []);
    assert.ok(get.parameters.some((p: { in: string; name: string; required: boolean }) => p.in === 'header' && p.name === 'x-application-token' && p.required));
    assert.match(doc.info.description, /application_rate_limited/);
    assert.match(doc.info.description, /expired_api_key/);
  });
});

describe('per-address rate limit', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp({ JOBSITE_APPLICATION_RATE_LIMIT: '3' }); });
  after(async () => { await t.close(); });

  it('lets one address send 3 an hour, then answers 429 with Retry-After, malformed ones included; other addresses are unaffected', async () => {
    const flood = '198.51.100.23';
    const results = [];
    // One valid, one malformed, one oversized: each counts.
    results.push(await apply(t, validApplication(), flood));
    results.push(await apply(t, '{', flood));
    results.push(await apply(t, validApplication({ intended_use: 'x'.repeat(40_000) }), flood));
    assert.deepEqual(results.map((r) => r.statusCode), [202, 400, 413]);
    const burst = await Promise.all(Array.from({ length: 20 }, () => apply(t, validApplication(), flood)));
    for (const res of burst) {
      assert.equal(res.statusCode, 429);
      assert.equal(res.json().code, 'application_rate_limited');
      const retryAfter = Number(res.headers['retry-after']);
      assert.ok(retryAfter >= 1 && retryAfter <= 3600, String(res.headers['retry-after']));
    }
    const count = await t.db.selectFrom('developer_applications').select((eb) => eb.fn.countAll<number>().as('n')).where('client_ip', '=', flood).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 1, 'the flood stored one application');
    assert.equal((await apply(t, validApplication(), '198.51.100.24')).statusCode, 202, 'another address still gets in');
    // The status lookup is not limited with it.
    const receipt = results[0]!.json();
    assert.equal((await status(t, receipt.id, receipt.status_token)).statusCode, 200);
  });

  it('counts an IPv6 /64 as one address, and is shared by API processes', async () => {
    assert.equal(clientBucket('2001:db8:1:2:aaaa::1'), clientBucket('2001:db8:1:2:bbbb::2'));
    assert.notEqual(clientBucket('2001:db8:1:2::1'), clientBucket('2001:db8:1:3::1'));
    assert.equal(clientBucket('::ffff:192.0.2.1'), '192.0.2.1');

    const ip = '192.0.2.77';
    for (let i = 0; i < 3; i++) assert.equal((await apply(t, validApplication(), ip)).statusCode, 202);
    await t.app.applicationLimiter.flush();
    const other = await startTestApp({ JOBSITE_APPLICATION_RATE_LIMIT: '3' }, { databaseUrl: t.url });
    try {
      // The first process's counts reached the shared store: the other one starts from them.
      const res = await apply(other, validApplication(), ip);
      assert.equal(res.statusCode, 429);
      assert.equal(res.json().code, 'application_rate_limited');
    } finally {
      await other.close();
    }
  });
});

describe('operator webhook', () => {
  let t: TestContext;
  let receiver: Receiver;
  let dispatcher: WebhookDispatcher;
  const secret = generateWebhookSecret();

  before(async () => {
    receiver = await Receiver.start();
    t = await startTestApp({
      JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      JOBSITE_OPERATOR_WEBHOOK_URL: receiver.url('/operator'),
      JOBSITE_OPERATOR_WEBHOOK_SECRET: secret,
    });
    dispatcher = new WebhookDispatcher({ db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }) }, { timeoutMs: 500, random: () => 0.5 });
    await dispatcher.start();
  });
  after(async () => {
    await dispatcher.stop();
    await receiver.close();
    await t.close();
  });

  it('POSTs each new application, signed like workspace webhooks, and retries a failure', async () => {
    receiver.on('/operator', (_req, res, index) => {
      res.writeHead(index === 0 ? 503 : 204).end();
    });
    const body = validApplication();
    const receipt = (await apply(t, body)).json();
    const [, second] = await eventually('two attempts', () => receiver.at('/operator').length >= 2 && receiver.at('/operator'));
    const payload = JSON.parse(second!.body);
    assert.equal(payload.event, 'developer_application.created');
    assert.equal(payload.workspace_id, SYSTEM_WORKSPACE_ID);
    assert.equal(payload.data.id, receipt.id);
    assert.equal(payload.data.email, body.email);
    assert.equal(payload.data.intended_use, body.intended_use);
    assert.equal(payload.data.status, 'pending');
    assert.equal(payload.data.status_token, undefined, 'the applicant\'s token is not sent');
    assert.equal(payload.data.status_token_hash, undefined);
    assert.equal(second!.headers['webhook-id'], payload.id);
    assert.ok(await verifyGithub(secret, second!.body, String(second!.headers['x-service-signature'])));
    assert.doesNotThrow(() => new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>));
    const delivery = await eventually('the delivery recorded', async () => {
      const d = await t.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', OPERATOR_ENDPOINT_ID).where('event_id', '=', payload.id).executeTakeFirst();
      return d?.status === 'succeeded' && d;
    });
    assert.equal(delivery.attempt_count, 2);
  });

  it('is invisible to every workspace: not in their webhooks, events or event types', async () => {
    const ws = await newWorkspace(t);
    assert.deepEqual((await api(t, ws.admin, 'GET', '/v1/webhooks')).json().data, []);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/webhooks/${OPERATOR_ENDPOINT_ID}`)).statusCode, 404);
    const events = (await api(t, ws.admin, 'GET', '/v1/events')).json().data;
    assert.ok(!events.some((e: { event: string }) => e.event.startsWith('developer_application.')));
    const types = JSON.stringify((await api(t, ws.admin, 'GET', '/v1/event-types')).json());
    assert.ok(!types.includes('developer_application'));
    const sub = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: 'https://example.com/h', events: ['developer_application.created'] });
    assert.equal(sub.statusCode, 400, 'a workspace cannot subscribe to operator events');
  });

  it('follows the configuration at start-up: a new secret signs alongside the old one for 24 h; no URL removes the endpoint', async () => {
    const newSecret = generateWebhookSecret();
    const second = await startTestApp({
      JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      JOBSITE_OPERATOR_WEBHOOK_URL: receiver.url('/operator-2'),
      JOBSITE_OPERATOR_WEBHOOK_SECRET: newSecret,
    }, { databaseUrl: t.url });
    try {
      const row = await t.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', OPERATOR_ENDPOINT_ID).executeTakeFirstOrThrow();
      assert.equal(row.url, receiver.url('/operator-2'));
      assert.equal(row.secret, newSecret);
      assert.equal(row.previous_secret, secret);
      assert.equal(row.workspace_id, SYSTEM_WORKSPACE_ID);
      await apply(second, validApplication());
      const [got] = await eventually('a delivery to the new URL', () => receiver.at('/operator-2').length > 0 && receiver.at('/operator-2'));
      assert.ok(await verifyGithub(newSecret, got!.body, String(got!.headers['x-service-signature'])));
      assert.ok(await verifyGithub(secret, got!.body, String(got!.headers['x-service-signature-previous'])), 'the old secret still signs');
    } finally {
      await second.close();
    }
    const without = await startTestApp({}, { databaseUrl: t.url });
    try {
      const row = await t.db.selectFrom('webhook_endpoints').select('id').where('id', '=', OPERATOR_ENDPOINT_ID).executeTakeFirst();
      assert.equal(row, undefined);
      assert.equal((await apply(without, validApplication())).statusCode, 202, 'applications still work without an operator webhook');
    } finally {
      await without.close();
    }
  });
});

describe('configuration', () => {
  it('names every bad developer program variable', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
        return [];
      } catch (err) {
        assert.ok(err instanceof ConfigError);
        return err.problems;
      }
    };
    assert.deepEqual(problems({ JOBSITE_SMTP_URL: 'http://mail.example', JOBSITE_MAIL_FROM: 'keys@x.example' }),
      ['JOBSITE_SMTP_URL must start with smtp:// or smtps:// (got "http:")']);
    assert.deepEqual(problems({ JOBSITE_SMTP_URL: 'smtp://mail.example' }),
      ['JOBSITE_SMTP_URL and JOBSITE_MAIL_FROM go together: set both, or neither (keys are then printed by the CLI)']);
    assert.deepEqual(problems({ JOBSITE_SMTP_URL: 'smtp://mail.example', JOBSITE_MAIL_FROM: 'nobody' }),
      ['JOBSITE_MAIL_FROM must be an address, or "Name <address>" (got "nobody")']);
    assert.deepEqual(problems({ JOBSITE_OPERATOR_WEBHOOK_URL: 'https://ops.example/hook' }),
      ['JOBSITE_OPERATOR_WEBHOOK_SECRET is required with JOBSITE_OPERATOR_WEBHOOK_URL (whsec_ + base64 of 32 random bytes)']);
    assert.match(problems({ JOBSITE_OPERATOR_WEBHOOK_URL: 'https://ops.example/hook', JOBSITE_OPERATOR_WEBHOOK_SECRET: 'hunter2' })[0]!,
      /^JOBSITE_OPERATOR_WEBHOOK_SECRET must be whsec_ followed by the base64 of at least 24 random bytes/);
    assert.deepEqual(problems({ JOBSITE_OPERATOR_WEBHOOK_URL: 'ftp://ops.example/', JOBSITE_OPERATOR_WEBHOOK_SECRET: generateWebhookSecret() }),
      ['JOBSITE_OPERATOR_WEBHOOK_URL must be an http(s) URL']);
    assert.deepEqual(problems({ JOBSITE_APPLICATION_RATE_LIMIT: '0', JOBSITE_TRUST_PROXY: '10.0.0.1/8' }), [
      'JOBSITE_APPLICATION_RATE_LIMIT must be an integer between 1 and 1000000 (got "0")',
      problems({ JOBSITE_TRUST_PROXY: '10.0.0.1/8' })[0]!,
    ]);
    assert.match(problems({ JOBSITE_TRUST_PROXY: '10.0.0.1/8' })[0]!, /^JOBSITE_TRUST_PROXY: /);
    const ok = loadConfig({ JOBSITE_SMTP_URL: 'smtps://u:p@mail.example:465', JOBSITE_MAIL_FROM: 'Jobsite <keys@x.example>', JOBSITE_TRUST_PROXY: '2' });
    assert.equal(ok.developerProgram.mailFrom, 'Jobsite <keys@x.example>');
    assert.equal(ok.developerProgram.trustProxy, 2);
    assert.equal(ok.developerProgram.applicationsPerHour, 10);
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy', async () => {
    const behind = await startTestApp({ JOBSITE_TRUST_PROXY: '127.0.0.1' });
    try {
      const send = (remoteAddress: string) => behind.app.inject({
        method: 'POST', url: '/v1/developer-applications', remoteAddress,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.200' }, payload: JSON.stringify(validApplication()),
      });
      const viaProxy = (await send('127.0.0.1')).json();
      const direct = (await send('198.51.100.9')).json();
      const ip = async (id: string) => (await behind.db.selectFrom('developer_applications').select('client_ip').where('id', '=', id).executeTakeFirstOrThrow()).client_ip;
      assert.equal(await ip(viaProxy.id), '192.0.2.200');
      assert.equal(await ip(direct.id), '198.51.100.9', 'a client cannot claim another address itself');
    } finally {
      await behind.close();
    }
  });
});
