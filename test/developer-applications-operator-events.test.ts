/**
 * The operator hears of every decision: approving and rejecting an application (the real CLI)
 * POST developer_application.approved / .rejected to the operator webhook, signed, through the
 * running server's dispatcher; `jobsite applications deliveries` lists what was sent, with its
 * status, attempts and last answer. A real `jobsite start` on the test database, a real receiver.
 */
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { OPERATOR_ENDPOINT_ID, SYSTEM_WORKSPACE_ID } from '../src/features/developer-applications/developer-applications.operator-webhook.ts';
import { generateWebhookSecret } from '../src/features/webhooks/webhooks.signing.ts';
import { cliEnv, http, runCli, Service, type CliResult } from './cli-process.ts';
import { startTestApp, type TestContext } from './helpers.ts';
import { eventually, Receiver, type Received } from './webhook-receiver.ts';

let t: TestContext;
let receiver: Receiver;
let service: Service;
let env: NodeJS.ProcessEnv;
const secret = generateWebhookSecret();

before(async () => {
  t = await startTestApp();
  receiver = await Receiver.start();
  env = cliEnv({
    DATABASE_URL: t.url, LOG_LEVEL: 'info', JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
    JOBSITE_OPERATOR_WEBHOOK_URL: receiver.url('/ops'), JOBSITE_OPERATOR_WEBHOOK_SECRET: secret,
  });
  service = await Service.start('start', env);
});
after(async () => {
  await service?.stop('SIGTERM');
  await receiver.close();
  await t.close();
});

function assertOk(r: CliResult, what: string) {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

async function apply(company: string): Promise<string> {
  const res = await http(service, null, 'POST', '/v1/developer-applications', {
    company_name: company, contact_name: 'Barbara Liskov', email: `${company.toLowerCase().replaceAll(' ', '-')}-${Date.now().toString(36)}@integrator.test`,
    intended_use: 'Photo reports for each site visit, from our scheduling tool.',
  });
  assert.equal(res.status, 202, JSON.stringify(res.json));
  return res.json.id;
}

const sent = (event: string, id: string) => receiver.at('/ops').filter((r) => {
  const body = JSON.parse(r.body);
  return body.event === event && body.data.id === id;
});

async function assertSigned(r: Received) {
  assert.ok(await verifyGithub(secret, r.body, String(r.headers['x-service-signature'])));
  assert.doesNotThrow(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>));
}

it('approving and rejecting post signed events to the operator webhook; `applications deliveries` lists them', async () => {
  // The receiver turns down every rejection: its delivery stays pending, with the error shown.
  receiver.on('/ops', (req, res) => {
    res.writeHead(JSON.parse(req.body).event === 'developer_application.rejected' ? 500 : 204).end();
  });
  const approvedId = await apply('Approved Co');
  const rejectedId = await apply('Rejected Co');

  assertOk(await runCli(['applications', 'approve', approvedId], env), 'approve');
  assertOk(await runCli(['applications', 'reject', rejectedId, '--reason', 'We only take companies with crews.'], env), 'reject');

  const [approval] = await eventually('the approval event', () => sent('developer_application.approved', approvedId).length > 0 && sent('developer_application.approved', approvedId));
  const approvedBody = JSON.parse(approval!.body);
  assert.equal(approvedBody.workspace_id, SYSTEM_WORKSPACE_ID);
  assert.equal(approvedBody.project_id, null);
  assert.equal(approvedBody.data.status, 'approved');
  assert.match(approvedBody.data.workspace_id, /^wsp_/);
  assert.match(approvedBody.data.api_key_id, /^key_/);
  assert.ok(!approval!.body.includes('jsk_'), 'the key itself is never sent');
  assert.equal(approval!.headers['x-service-event'], 'developer_application.approved');
  await assertSigned(approval!);

  const [rejection] = await eventually('the rejection event', () => sent('developer_application.rejected', rejectedId).length >= 2 && sent('developer_application.rejected', rejectedId));
  const rejectedBody = JSON.parse(rejection!.body);
  assert.equal(rejectedBody.data.status, 'rejected');
  assert.equal(rejectedBody.data.rejection_reason, 'We only take companies with crews.');
  await assertSigned(rejection!);

  await eventually('the deliveries recorded', async () => {
    const rows = await t.db.selectFrom('webhook_deliveries').select(['status', 'last_status_code', 'attempt_count', 'lease_until'])
      .where('endpoint_id', '=', OPERATOR_ENDPOINT_ID).execute();
    return rows.filter((d) => d.status === 'succeeded').length === 3
      && rows.some((d) => d.status === 'pending' && d.last_status_code === 500 && d.attempt_count >= 2 && d.lease_until === null);
  }, 15_000);

  // The JSON view: every delivery to the operator webhook, newest first, with its attempts.
  const r = await runCli(['applications', 'deliveries', '--json'], env);
  assertOk(r, 'deliveries --json');
  const json = JSON.parse(r.stdout) as { id: string; event: string; status: string; attempt_count: number; last_error: string | null; attempts: unknown[] }[];
  assert.deepEqual(json.map((d) => d.event).sort(), [
    'developer_application.approved', 'developer_application.created', 'developer_application.created', 'developer_application.rejected',
  ]);
  const rejected = json.find((d) => d.event === 'developer_application.rejected')!;
  assert.equal(rejected.status, 'pending');
  assert.equal(rejected.last_error, 'HTTP 500');
  assert.equal(rejected.attempts.length, rejected.attempt_count);
  const ids = json.map((d) => d.id);
  assert.deepEqual(ids, [...ids].sort().reverse(), 'newest first');

  // The text view, and its filters.
  const [text, pending, one, bad] = await Promise.all([
    runCli(['applications', 'deliveries'], env),
    runCli(['applications', 'deliveries', '--status', 'pending'], env),
    runCli(['applications', 'deliveries', '--limit', '1', '--status', 'succeeded'], env),
    runCli(['applications', 'deliveries', '--status', 'sent'], env),
  ]);
  for (const r of [text, pending, one]) assertOk(r, 'deliveries');
  assert.equal(text.stdout.trim().split('\n').length, 4, text.stdout);
  const approvedLine = text.stdout.split('\n').find((l) => l.includes('developer_application.approved'))!;
  assert.match(approvedLine, /^dlv_\w{26}  succeeded  \d{4}-\d\d-\d\d \d\d:\d\d  developer_application\.approved  1 attempt   HTTP 204$/);
  assert.match(pending.stdout, /^dlv_\w{26}  pending    .* developer_application\.rejected  \d+ attempts  HTTP 500  next \d{4}-\d\d-\d\d \d\d:\d\d$/m);
  assert.equal(pending.stdout.trim().split('\n').length, 1, pending.stdout);
  assert.equal(one.stdout.trim().split('\n').length, 1, one.stdout);
  assert.notEqual(bad.code, 0, bad.stderr);
  assert.match(bad.stderr, /Must be one of pending, succeeded, failed/);
});
