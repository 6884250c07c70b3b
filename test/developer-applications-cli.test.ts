/**
 * The operator's review of developer applications (issue 7), through the real CLI against the
 * test database (DATABASE_URL), with a real SMTP server on 127.0.0.1: listing, showing, approving
 * (workspace, admin and key, e-mailed), rejecting, resending a key, SMTP down at approval, no SMTP
 * at all, races between decisions, and bad arguments.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiKeyAuthenticator } from '../src/http/auth.ts';
import { ApiError } from '../src/http/errors.ts';
import { ApplicationReviewService, ReviewRefused } from '../src/features/developer-applications/developer-applications.review.ts';
import { generateWebhookSecret } from '../src/features/webhooks/webhooks.signing.ts';
import { cliEnv, http, runCli, Service, type CliResult } from './cli-process.ts';
import { eventually, Receiver } from './webhook-receiver.ts';
import { api, startTestApp, type TestContext } from './helpers.ts';
import { MailCatcher } from './smtp-server.ts';

let t: TestContext;
let smtp: MailCatcher;
/** CLI environments: with working SMTP, with SMTP down, and without SMTP. */
let withMail: NodeJS.ProcessEnv;
let mailDown: NodeJS.ProcessEnv;
let noMail: NodeJS.ProcessEnv;

const FROM = 'Jobsite <keys@jobsite.example>';
const PUBLIC_URL = 'https://api.jobsite.example';

before(async () => {
  t = await startTestApp({ JOBSITE_APPLICATION_RATE_LIMIT: '1000' });
  smtp = await MailCatcher.start();
  const base = { DATABASE_URL: t.url, LOG_LEVEL: 'silent', JOBSITE_PUBLIC_URL: PUBLIC_URL };
  withMail = cliEnv({ ...base, JOBSITE_SMTP_URL: smtp.url(), JOBSITE_MAIL_FROM: FROM });
  // Nothing listens on port 1: the connection is refused.
  mailDown = cliEnv({ ...base, JOBSITE_SMTP_URL: 'smtp://jobsite:mail-secret@127.0.0.1:1', JOBSITE_MAIL_FROM: FROM });
  noMail = cliEnv(base);
});
after(async () => {
  await smtp.close();
  await t.close();
});

let counter = 0;
async function applyFor(extra: Record<string, unknown> = {}) {
  const n = counter++;
  const body = {
    company_name: `Integrator ${n}`,
    contact_name: 'Grace Brewster Hopper',
    email: `grace${n}-${Date.now().toString(36)}@integrator.test`,
    intended_use: 'We schedule crews and want to attach jobsite photos to each visit.',
    ...extra,
  };
  const res = await t.app.inject({ method: 'POST', url: '/v1/developer-applications', payload: body });
  assert.equal(res.statusCode, 202, res.body);
  return { ...body, ...(res.json() as { id: string; status_token: string }) };
}

const status = async (app: { id: string; status_token: string }) =>
  (await t.app.inject({ method: 'GET', url: `/v1/developer-applications/${app.id}`, headers: { 'x-application-token': app.status_token } })).json().status;

/** What a fresh API process (no cached lookups) says of a key. */
async function keyState(key: string): Promise<string> {
  try {
    await new ApiKeyAuthenticator(t.db).authenticate(`Bearer ${key}`);
    return 'ok';
  } catch (err) {
    return (err as ApiError).code;
  }
}

const keyIn = (text: string) => /^ {4}(jsk_[0-9A-Za-z]{38})$/m.exec(text)?.[1];

function assertOk(r: CliResult, what: string) {
  assert.equal(r.code, 0, `${what}: exit ${r.code}\n${r.stdout}\n${r.stderr}`);
}

describe('the whole path, on a running server', () => {
  it('apply with one request, the operator is notified, approves with one command, the key arrives by e-mail and works', async () => {
    const receiver = await Receiver.start();
    const env: NodeJS.ProcessEnv = {
      ...withMail, LOG_LEVEL: 'info', JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8',
      JOBSITE_OPERATOR_WEBHOOK_URL: receiver.url('/ops'), JOBSITE_OPERATOR_WEBHOOK_SECRET: generateWebhookSecret(),
    };
    delete env.JOBSITE_PUBLIC_URL;
    const service = await Service.start('start', env);
    try {
      const address = `e2e-${Date.now().toString(36)}@integrator.test`;
      const applied = await http(service, null, 'POST', '/v1/developer-applications', {
        company_name: 'End To End Ltd', contact_name: 'Edsger Dijkstra', email: address,
        intended_use: 'Reports for every jobsite, generated from our scheduling tool.',
      });
      assert.equal(applied.status, 202, JSON.stringify(applied.json));
      const [notice] = await eventually('the operator webhook', () => receiver.at('/ops').length > 0 && receiver.at('/ops'), 20_000);
      assert.equal(JSON.parse(notice!.body).data.id, applied.json.id);

      const listed = await runCli(['applications', 'list', '--status', 'pending'], env);
      assert.ok(listed.stdout.includes(applied.json.id), listed.stdout);
      const approved = await runCli(['applications', 'approve', applied.json.id], env);
      assertOk(approved, 'approve');
      const key = keyIn(smtp.to(address)[0]!.text)!;
      const me = await http(service, key, 'GET', '/v1/users/me');
      assert.equal(me.status, 200);
      assert.equal(me.json.email, address);
      const seen = await fetch(`${service.url}/v1/developer-applications/${applied.json.id}`, { headers: { 'x-application-token': applied.json.status_token } });
      assert.equal(((await seen.json()) as { status: string }).status, 'approved');
    } finally {
      assert.deepEqual(await service.stop('SIGTERM'), { code: 0, signal: null }, service.output);
      await receiver.close();
    }
  });
});

describe('jobsite applications', () => {
  it('lists and shows applications, as text and JSON', async () => {
    const a = await applyFor({ website: 'https://grace.example', expected_monthly_requests: 1200, intended_use: 'Line one of the plan, long enough.\nLine two.' });
    const [list, pending, json, show, showJson] = await Promise.all([
      runCli(['applications', 'list'], noMail),
      runCli(['applications', 'list', '--status', 'pending', '--limit', '1000'], noMail),
      runCli(['applications', 'list', '--json'], noMail),
      runCli(['applications', 'show', a.id], noMail),
      runCli(['applications', 'show', a.id, '--json'], noMail),
    ]);
    for (const r of [list, pending, json, show, showJson]) assertOk(r, 'list/show');
    assert.match(list.stdout, new RegExp(`^${a.id}  pending   \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d  ${a.email}  ${a.company_name}$`, 'm'));
    assert.ok(pending.stdout.includes(a.id));
    const listed = (JSON.parse(json.stdout) as { id: string }[]).find((x) => x.id === a.id);
    assert.ok(listed);
    assert.match(show.stdout, new RegExp(`^Application  ${a.id}  \\(pending\\)$`, 'm'));
    assert.match(show.stdout, /^Company      Integrator \d+  https:\/\/grace\.example$/m);
    assert.match(show.stdout, /^Requests     about 1200 a month$/m);
    assert.match(show.stdout, /^Intended use:\n  Line one of the plan, long enough\.\n  Line two\.$/m);
    const shown = JSON.parse(showJson.stdout);
    assert.equal(shown.intended_use, a.intended_use);
    assert.equal(shown.status_token_hash, undefined);
    assert.equal(shown.client_ip, '127.0.0.1');
  });

  it('approves: workspace, admin and key, e-mailed over SMTP with the base URL and /docs; the key works', async () => {
    const a = await applyFor();
    const r = await runCli(['applications', 'approve', a.id, '--workspace-name', 'Hopper Scheduling'], withMail);
    assertOk(r, 'approve');
    assert.match(r.stdout, new RegExp(`^Approved   ${a.id}  ${a.company_name}$`, 'm'));
    assert.match(r.stdout, new RegExp(`The key was e-mailed to ${a.email.replace('.', '\\.')}\\.`));
    assert.equal(keyIn(r.stdout), undefined, 'a mailed key is not printed');
    assert.ok(!r.stdout.includes('jsk_'));

    const [mail] = smtp.to(a.email);
    assert.ok(mail, 'the mail arrived');
    assert.equal(mail.from, 'keys@jobsite.example');
    assert.match(mail.headers.from!, /^"?Jobsite"? <keys@jobsite\.example>$/);
    assert.equal(mail.headers.subject, 'Your Jobsite API key');
    assert.match(mail.headers['content-type']!, /^text\/plain/);
    assert.match(mail.text, /^Hello Grace Brewster Hopper,$/m);
    assert.match(mail.text, /Your workspace "Hopper Scheduling" is ready/);
    assert.match(mail.text, new RegExp(`^Base URL: +${PUBLIC_URL}/v1$`, 'm'));
    assert.match(mail.text, new RegExp(`^API reference: +${PUBLIC_URL}/docs$`, 'm'));
    const key = keyIn(mail.text);
    assert.ok(key, mail.text);

    const me = await api(t, key, 'GET', '/v1/users/me');
    assert.equal(me.statusCode, 200);
    assert.equal(me.json().email, a.email);
    assert.equal(me.json().role, 'admin');
    assert.equal(me.json().first_name, 'Grace');
    assert.equal(me.json().last_name, 'Brewster Hopper');
    assert.equal((await api(t, key, 'GET', '/v1/workspace')).json().name, 'Hopper Scheduling');
    assert.equal(await status(a), 'approved');

    const row = await t.db.selectFrom('developer_applications').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.equal(row.key_delivery, 'email');
    assert.ok(row.notified_at);

    // Deciding again is refused, clearly, with exit code 1; nothing changes.
    const [twice, reject, resend] = await Promise.all([
      runCli(['applications', 'approve', a.id], withMail),
      runCli(['applications', 'reject', a.id, '--reason', 'Changed our mind'], withMail),
      runCli(['applications', 'resend-key', a.id], withMail),
    ]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, new RegExp(`^error: Application ${a.id} was already approved at \\S+ \\(workspace ${row.workspace_id}\\)\\. To send its key again: jobsite applications resend-key ${a.id}\\n$`));
    assert.equal(reject.code, 1);
    assert.match(reject.stderr, /it can no longer be rejected/);
    assert.equal(resend.code, 1);
    assert.match(resend.stderr, new RegExp(`was e-mailed to ${a.email.replace('.', '\\.')} at .*add --force`));
    assert.equal(smtp.to(a.email).length, 1, 'no second mail');
    assert.equal(await keyState(key), 'ok');

    // resend-key --force: a fresh key by mail, the old one revoked.
    const forced = await runCli(['applications', 'resend-key', a.id, '--force', '--key-expires-in', '30d'], withMail);
    assertOk(forced, 'resend-key --force');
    const second = smtp.to(a.email)[1];
    assert.ok(second);
    const newKey = keyIn(second.text)!;
    assert.notEqual(newKey, key);
    assert.match(second.text, /^It works until \d{4}-/m);
    assert.equal(await keyState(key), 'revoked_api_key');
    assert.equal(await keyState(newKey), 'ok');
  });

  it('rejects with a reason, e-mails it, and refuses to approve or reject it again', async () => {
    const a = await applyFor();
    const r = await runCli(['applications', 'reject', a.id, '--reason', 'We only serve construction companies.'], withMail);
    assertOk(r, 'reject');
    assert.match(r.stdout, new RegExp(`^Rejected   ${a.id}`, 'm'));
    const [mail] = smtp.to(a.email);
    assert.ok(mail);
    assert.equal(mail.headers.subject, 'Your Jobsite API application');
    assert.match(mail.text, /^ {4}We only serve construction companies\.$/m);
    assert.ok(!mail.text.includes('jsk_'));
    assert.equal(await status(a), 'rejected');

    const [approve, again, resend] = await Promise.all([
      runCli(['applications', 'approve', a.id], withMail),
      runCli(['applications', 'reject', a.id, '--reason', 'again'], withMail),
      runCli(['applications', 'resend-key', a.id], withMail),
    ]);
    assert.equal(approve.code, 1);
    assert.match(approve.stderr, new RegExp(`^error: Application ${a.id} was rejected at \\S+; a rejected application cannot be approved\\.`));
    assert.equal(again.code, 1);
    assert.match(again.stderr, /was already rejected/);
    assert.equal(resend.code, 1);
    assert.match(resend.stderr, /is rejected; only an approved application has a key to send/);
    const workspaces = await t.db.selectFrom('users').select('id').where('email', '=', a.email).execute();
    assert.deepEqual(workspaces, [], 'no user was made');
    // The applicant may apply again (the pending one is no longer pending).
    assert.equal((await t.app.inject({ method: 'POST', url: '/v1/developer-applications', payload: {
      company_name: a.company_name, contact_name: a.contact_name, email: a.email, intended_use: a.intended_use,
    } })).statusCode, 202);
  });

  it('keeps the approval when SMTP is down (exit code 3, no key shown); resend-key sends a fresh key and revokes the unsent one', async () => {
    const a = await applyFor();
    const r = await runCli(['applications', 'approve', a.id], mailDown);
    assert.equal(r.code, 3, r.stderr);
    assert.ok(!(r.stdout + r.stderr).includes('jsk_'), 'the unsent key is never shown');
    assert.match(r.stderr, new RegExp(`^error: ${a.id} is approved, but the e-mail with its key to ${a.email.replace('.', '\\.')} could not be sent: .*ECONNREFUSED`, 'm'));
    assert.match(r.stderr, new RegExp(`Once mail works, run: jobsite applications resend-key ${a.id}`));
    const row = await t.db.selectFrom('developer_applications').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    assert.equal(row.status, 'approved');
    assert.equal(row.notified_at, null);
    assert.ok(row.workspace_id && row.api_key_id);
    assert.equal(await status(a), 'approved');
    const unsent = row.api_key_id;

    // The mail server answers, but refuses the message: still exit code 3.
    smtp.refuse = { code: 451, message: 'Mailbox busy, try later' };
    try {
      const refused = await runCli(['applications', 'resend-key', a.id], withMail);
      assert.equal(refused.code, 3, refused.stderr);
      assert.match(refused.stderr, /Mailbox busy, try later/);
    } finally {
      smtp.refuse = null;
    }
    const resent = await runCli(['applications', 'resend-key', a.id, '--json'], withMail);
    assertOk(resent, 'resend-key');
    const out = JSON.parse(resent.stdout);
    assert.equal(out.delivery, 'email');
    assert.equal(out.api_key.key, undefined, 'a mailed key is not in the output');
    const [mail] = smtp.to(a.email);
    assert.ok(mail);
    const key = keyIn(mail.text)!;
    assert.equal(await keyState(key), 'ok');
    const keys = await t.db.selectFrom('api_keys').select(['id', 'revoked_at']).where('workspace_id', '=', row.workspace_id).orderBy('id').execute();
    assert.equal(keys.length, 3, 'the first unsent key, the refused one, the sent one');
    assert.ok(keys.find((k) => k.id === unsent)!.revoked_at, 'the unsent key is revoked');
    assert.deepEqual(keys.filter((k) => !k.revoked_at).map((k) => k.id), [out.api_key.id]);
  });

  it('without SMTP prints the key once and says no e-mail was sent', async () => {
    const a = await applyFor();
    const r = await runCli(['applications', 'approve', a.id, '--key-expires-in', '1y'], noMail);
    assertOk(r, 'approve');
    const key = /^API key    (jsk_\S+)$/m.exec(r.stdout)?.[1];
    assert.ok(key, r.stdout);
    assert.match(r.stdout, new RegExp(`No e-mail was sent \\(JOBSITE_SMTP_URL is not set\\): give the key to ${a.email.replace('.', '\\.')} yourself\\. It is shown only now\\.`));
    assert.match(r.stdout, /^Expires    \d{4}-/m);
    assert.equal(await keyState(key), 'ok');
    assert.equal(smtp.to(a.email).length, 0);
    // It was handed over: a new one only with --force.
    const resend = await runCli(['applications', 'resend-key', a.id], noMail);
    assert.equal(resend.code, 1);
    assert.match(resend.stderr, /was printed at .*add --force/);

    const b = await applyFor();
    const rejected = await runCli(['applications', 'reject', b.id, '--reason', 'Not now.', '--json'], noMail);
    assertOk(rejected, 'reject');
    assert.equal(JSON.parse(rejected.stdout).delivery, 'printed');
  });

  it('lets exactly one of racing decisions win, in processes and within one', async () => {
    const a = await applyFor();
    const [approve, reject, approve2] = await Promise.all([
      runCli(['applications', 'approve', a.id], noMail),
      runCli(['applications', 'reject', a.id, '--reason', 'race'], noMail),
      runCli(['applications', 'approve', a.id], noMail),
    ]);
    const codes = [approve.code, reject.code, approve2.code];
    assert.equal(codes.filter((c) => c === 0).length, 1, `${codes}: ${approve.stderr}${reject.stderr}${approve2.stderr}`);
    assert.equal(codes.filter((c) => c === 1).length, 2);
    const row = await t.db.selectFrom('developer_applications').selectAll().where('id', '=', a.id).executeTakeFirstOrThrow();
    const users = await t.db.selectFrom('users').select('workspace_id').where('email', '=', a.email).execute();
    assert.equal(users.length, row.status === 'approved' ? 1 : 0, 'one workspace at most');

    // Within one process: ten at once on the pool.
    const b = await applyFor();
    const review = new ApplicationReviewService(t.db, t.config, null);
    const outcomes = await Promise.allSettled([
      ...Array.from({ length: 5 }, () => review.approve(b.id)),
      ...Array.from({ length: 5 }, () => review.reject(b.id, 'race')),
    ]);
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 1);
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(o.reason instanceof ReviewRefused, String(o.reason));
    const made = await t.db.selectFrom('users').select('id').where('email', '=', b.email).execute();
    const final = await t.db.selectFrom('developer_applications').select('status').where('id', '=', b.id).executeTakeFirstOrThrow();
    assert.equal(made.length, final.status === 'approved' ? 1 : 0);
  });

  it('refuses bad arguments with exit code 2 and unknown applications with exit code 1', async () => {
    const cases: [string[], RegExp][] = [
      [['applications', 'approve', 'app_123'], /^error: command-argument value 'app_123' is invalid for argument 'id'\. "app_123" is not an application id/],
      [['applications', 'show', 'wsp_01jd0000000000000000000000'], /is not an application id/],
      [['applications', 'reject', 'app_01jd0000000000000000000000'], /^error: required option '--reason <reason>' not specified/],
      [['applications', 'reject', 'app_01jd0000000000000000000000', '--reason', '  '], /--reason must be 1 to 2000 characters/],
      [['applications', 'list', '--status', 'open'], /Must be one of pending, approved, rejected\./],
      [['applications', 'list', '--limit', '0'], /Must be a whole number from 1 to 1000\./],
      [['applications', 'approve', 'app_01jd0000000000000000000000', '--key-expires-in', 'forever'], /Give a whole number and a unit/],
      [['applications', 'approve'], /^error: missing required argument 'id'/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(args, noMail)));
    cases.forEach(([args, message], i) => {
      assert.equal(results[i]!.code, 2, `${args.join(' ')}: ${results[i]!.stderr}`);
      assert.match(results[i]!.stderr, message, args.join(' '));
      assert.equal(results[i]!.stdout, '');
    });
    const unknown = 'app_01jd0000000000000000000000';
    const missing = await Promise.all([
      runCli(['applications', 'approve', unknown], noMail),
      runCli(['applications', 'show', unknown], noMail),
      runCli(['applications', 'resend-key', unknown], noMail),
    ]);
    for (const r of missing) {
      assert.equal(r.code, 1);
      assert.equal(r.stderr, `error: No developer application ${unknown}.\n`);
    }
    const badConfig = await runCli(['applications', 'list'], { ...noMail, JOBSITE_SMTP_URL: smtp.url() });
    assert.equal(badConfig.code, 1);
    assert.match(badConfig.stderr, /JOBSITE_SMTP_URL and JOBSITE_MAIL_FROM go together/);
  });
});
