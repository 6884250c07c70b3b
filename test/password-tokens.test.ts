/**
 * Invitations and password resets (issue 14), with a real SMTP server on 127.0.0.1: the links
 * e-mailed and returned, single use, expiry, the same answer for unknown addresses, a reset ending
 * every session, and the CLI's `users invite` as a real process.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { cliEnv, runCli } from './cli-process.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { MailCatcher } from './smtp-server.ts';

const FROM = 'Jobsite <jobsite@example.test>';
let smtp: MailCatcher;
let t: TestContext;
let ws: TestWorkspace;

before(async () => {
  smtp = await MailCatcher.start();
  t = await startTestApp({ JOBSITE_SMTP_URL: smtp.url(), JOBSITE_MAIL_FROM: FROM, JOBSITE_PUBLIC_URL: 'https://jobsite.example.com' });
  ws = await newWorkspace(t, 'Riverside Builders');
});
after(async () => {
  await t.close();
  await smtp.close();
});

let n = 0;
const address = () => `person-${Date.now().toString(36)}-${n++}@example.test`;
const tokenOf = (link: string) => new URL(link).pathname.split('/').at(-1)!;
const linkIn = (text: string, kind: 'invite' | 'reset') => new RegExp(`https://jobsite\\.example\\.com/${kind}/[A-Za-z0-9_-]{43}`).exec(text)?.[0];

/** Waits for the mail to `to` (the reset mail is sent after the 202); the test's own timeout bounds it. */
async function mailTo(to: string, count = 1) {
  while (smtp.to(to).length < count) await new Promise((r) => setTimeout(r, 20));
  return smtp.to(to);
}

const signIn = (email: string, password: string) => t.app.inject({ method: 'POST', url: '/v1/sessions', payload: { email, password } });

describe('invitations', () => {
  it('e-mails the link that POST /v1/users returns; the page can greet them; accepting signs them in once', async () => {
    const email = address();
    const created = await api(t, ws.admin, 'POST', '/v1/users', { email, role: 'manager' });
    assert.equal(created.statusCode, 201, created.body);
    const { invite_url: url, invite_emailed: emailed, id } = created.json();
    assert.equal(emailed, true);
    assert.match(url, /^https:\/\/jobsite\.example\.com\/invite\/[A-Za-z0-9_-]{43}$/);
    const [mail] = await mailTo(email);
    assert.equal(linkIn(mail!.text, 'invite'), url);
    assert.match(mail!.headers.subject!, /Riverside Builders/);

    const token = tokenOf(url);
    const greeting = await api(t, null, 'GET', `/v1/invitations/${token}`);
    assert.equal(greeting.statusCode, 200, greeting.body);
    assert.equal(greeting.json().email, email);
    assert.equal(greeting.json().workspace.name, 'Riverside Builders');

    const short = await api(t, null, 'POST', `/v1/invitations/${token}`, { password: 'too short' });
    assert.equal(short.statusCode, 400);
    assert.equal(short.json().code, 'validation_failed');

    const accepted = await api(t, null, 'POST', `/v1/invitations/${token}`, { password: 'a proper passphrase', first_name: 'Rosa' });
    assert.equal(accepted.statusCode, 201, accepted.body);
    assert.equal(accepted.json().user.id, id);
    assert.equal(accepted.json().user.first_name, 'Rosa');
    const { rows: updates } = await sql<{ first_name: string }>`
      select payload::jsonb -> 'data' ->> 'first_name' as first_name from events where event = 'user.updated' and payload::jsonb -> 'data' ->> 'id' = ${id}`.execute(t.db);
    assert.deepEqual(updates.map((r) => r.first_name), ['Rosa'], 'naming oneself is a user.updated; the password is not');
    assert.ok(String(accepted.headers['set-cookie']).split('; ').includes('Secure'));
    const cookie = String(accepted.headers['set-cookie']).split(';')[0]!;
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/users/me', headers: { cookie } })).json().id, id);

    // Single use: both reading and accepting answer 410 token_used now.
    for (const method of ['GET', 'POST']) {
      const again = await api(t, null, method, `/v1/invitations/${token}`, method === 'POST' ? { password: 'another passphrase' } : undefined);
      assert.equal(again.statusCode, 410, `${method} ${again.body}`);
      assert.equal(again.json().code, 'token_used');
    }
    assert.equal((await signIn(email, 'another passphrase')).statusCode, 401, 'the reuse set nothing');
    assert.equal((await signIn(email, 'a proper passphrase')).statusCode, 201);

    // Only a hash of the token is stored.
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from user_tokens where token_hash = sha256(convert_to(${token}, 'UTF8'))`.execute(t.db);
    assert.equal(rows[0]!.n, 1);
  });

  it('answers 404 token_not_found for an unknown or malformed token, and 410 token_expired after 72 hours', async () => {
    for (const token of ['nope', 'A'.repeat(43)]) {
      const res = await api(t, null, 'GET', `/v1/invitations/${token}`);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().code, 'token_not_found');
    }
    const email = address();
    const created = await api(t, ws.admin, 'POST', '/v1/users', { email });
    const token = tokenOf(created.json().invite_url);
    await sql`update user_tokens set expires_at = now() - interval '1 second' where user_id = ${created.json().id}`.execute(t.db);
    const expired = await api(t, null, 'POST', `/v1/invitations/${token}`, { password: 'a proper passphrase' });
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.json().code, 'token_expired');
    assert.equal((await api(t, null, 'GET', `/v1/invitations/${token}`)).json().code, 'token_expired');
  });

  it('stops working when the user is deactivated', async () => {
    const created = await api(t, ws.admin, 'POST', '/v1/users', { email: address() });
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/users/${created.json().id}`)).statusCode, 204);
    const res = await api(t, null, 'POST', `/v1/invitations/${tokenOf(created.json().invite_url)}`, { password: 'a proper passphrase' });
    assert.equal(res.statusCode, 410);
  });
});

describe('password resets', () => {
  it('answers 202 alike for known and unknown addresses, mails only the known one, and the link sets a new password and ends every session', async () => {
    const email = address();
    const created = await api(t, ws.admin, 'POST', '/v1/users', { email });
    const accepted = await api(t, null, 'POST', `/v1/invitations/${tokenOf(created.json().invite_url)}`, { password: 'the first passphrase' });
    const oldCookie = String(accepted.headers['set-cookie']).split(';')[0]!;
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/users/me', headers: { cookie: oldCookie } })).statusCode, 200);

    const ghost = 'nobody-at-all@example.test';
    const unknown = await api(t, null, 'POST', '/v1/password-resets', { email: ghost });
    const known = await api(t, null, 'POST', '/v1/password-resets', { email: email.toUpperCase() });
    assert.equal(unknown.statusCode, 202);
    assert.equal(known.statusCode, 202);
    assert.deepEqual(known.json(), unknown.json());
    const mails = await mailTo(email, 2); // the invitation, then the reset
    const link = linkIn(mails[1]!.text, 'reset');
    assert.ok(link, mails[1]!.text);
    assert.equal(smtp.to(ghost).length, 0);

    const token = tokenOf(link);
    const reset = await api(t, null, 'POST', `/v1/password-resets/${token}`, { password: 'the second passphrase' });
    assert.equal(reset.statusCode, 204, reset.body);
    const old = await t.app.inject({ method: 'GET', url: '/v1/users/me', headers: { cookie: oldCookie } });
    assert.equal(old.statusCode, 401, 'the reset ended the old session');
    assert.equal(old.json().code, 'invalid_session');
    assert.equal((await signIn(email, 'the first passphrase')).statusCode, 401);
    assert.equal((await signIn(email, 'the second passphrase')).statusCode, 201);

    const reused = await api(t, null, 'POST', `/v1/password-resets/${token}`, { password: 'the third passphrase' });
    assert.equal(reused.statusCode, 410);
    assert.equal(reused.json().code, 'token_used');
  });

  it('expires reset links after an hour (410 token_expired), and a newer link replaces an older one', async () => {
    const email = address();
    const created = await api(t, ws.admin, 'POST', '/v1/users', { email });
    await mailTo(email, 1);
    await api(t, null, 'POST', '/v1/password-resets', { email });
    const first = tokenOf(linkIn((await mailTo(email, 2))[1]!.text, 'reset')!);
    await api(t, null, 'POST', '/v1/password-resets', { email });
    const second = tokenOf(linkIn((await mailTo(email, 3))[2]!.text, 'reset')!);
    const replaced = await api(t, null, 'POST', `/v1/password-resets/${first}`, { password: 'a proper passphrase' });
    assert.equal(replaced.statusCode, 410, 'the older link stopped working');
    await sql`update user_tokens set expires_at = now() - interval '1 second' where user_id = ${created.json().id} and kind = 'reset'`.execute(t.db);
    const expired = await api(t, null, 'POST', `/v1/password-resets/${second}`, { password: 'a proper passphrase' });
    assert.equal(expired.statusCode, 410);
    assert.equal(expired.json().code, 'token_expired');
  });
});

describe('jobsite users invite', () => {
  it('adds the user and prints (and e-mails) a working invitation link; refuses an unknown workspace and a user with a password', async () => {
    const env = cliEnv({ DATABASE_URL: t.url, LOG_LEVEL: 'silent', JOBSITE_PUBLIC_URL: 'https://jobsite.example.com', JOBSITE_SMTP_URL: smtp.url(), JOBSITE_MAIL_FROM: FROM });
    const email = address();
    const res = await runCli(['users', 'invite', '--workspace', ws.id, '--email', email, '--role', 'manager', '--json'], env);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { user: { id: string; role: string }; invite_url: string; invite_emailed: boolean };
    assert.equal(out.user.role, 'manager');
    assert.equal(out.invite_emailed, true);
    assert.equal(linkIn((await mailTo(email))[0]!.text, 'invite'), out.invite_url);
    const greeting = await api(t, null, 'GET', `/v1/invitations/${tokenOf(out.invite_url)}`);
    assert.equal(greeting.json().email, email);

    // Again for the same person (no password yet): a fresh link, and the first stops working.
    const again = await runCli(['users', 'invite', '--workspace', ws.id, '--email', email], cliEnv({ DATABASE_URL: t.url, LOG_LEVEL: 'silent', JOBSITE_PUBLIC_URL: 'https://jobsite.example.com' }));
    assert.equal(again.code, 0, again.stderr);
    const printed = linkIn(again.stdout, 'invite');
    assert.ok(printed, again.stdout);
    assert.match(again.stdout, /Give them this link/);
    assert.equal((await api(t, null, 'GET', `/v1/invitations/${tokenOf(out.invite_url)}`)).statusCode, 410);
    const accepted = await api(t, null, 'POST', `/v1/invitations/${tokenOf(printed)}`, { password: 'a proper passphrase' });
    assert.equal(accepted.statusCode, 201, accepted.body);
    assert.equal(accepted.json().user.id, out.user.id);

    const [hasPassword, noWorkspace, badRole] = await Promise.all([
      runCli(['users', 'invite', '--workspace', ws.id, '--email', email], env),
      runCli(['users', 'invite', '--workspace', 'wsp_01jdq5r8s2t4v6w8x0y2z4a6b8', '--email', address()], env),
      runCli(['users', 'invite', '--workspace', ws.id, '--email', address(), '--role', 'owner'], env),
    ]);
    assert.notEqual(hasPassword.code, 0);
    assert.match(hasPassword.stderr, /already has a password/);
    assert.notEqual(noWorkspace.code, 0);
    assert.match(noWorkspace.stderr, /No workspace/);
    assert.notEqual(badRole.code, 0);
    assert.match(badRole.stderr, /Must be one of/);
  });
});
