/**
 * The API keys settings (/settings/api-keys) in Chromium: a read-only key with a 30-day expiry
 * created in the page, its secret shown once (copied to the clipboard, working against the API,
 * gone from the page once closed), its last use shown after a reload, a rotation with a grace
 * period (old and new secrets both work), a revocation behind a confirm dialog (401 after); what
 * a standard and a restricted user may do, as the API says; axe-core; no sideways scrolling.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, TEST_PASSWORD } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = !chromiumPath() ? NO_CHROMIUM : false;
after(async () => t.close());

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** Any answer: its status and problem code (for the 401s and 403s a key should get). */
async function attempt(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${origin}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, code: res.ok ? undefined : (JSON.parse(text) as { code?: string }).code };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const near = (iso: string | null, expected: number, slack = 5 * 60_000) =>
  assert.ok(iso && Math.abs(new Date(iso).getTime() - expected) < slack, `${iso} ≈ ${new Date(expected).toISOString()}`);

describe('API keys in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const people: Record<'admin' | 'standard' | 'restricted', { id: string; email: string }> = {} as never;

  /** A person of `role` with TEST_PASSWORD (invited by the workspace's first admin, the invitation accepted). */
  async function personWithPassword(role: 'admin' | 'standard' | 'restricted', first: string, last: string) {
    const email = `${role}-${Date.now()}@example.test`;
    const user = await call(ws.admin.key, 'POST', '/v1/users', { email, first_name: first, last_name: last, role });
    const token = decodeURIComponent(new URL(user.invite_url).pathname.split('/').pop()!);
    await call(ws.admin.key, 'POST', `/v1/invitations/${encodeURIComponent(token)}`, { password: TEST_PASSWORD });
    return { id: user.id as string, email };
  }

  before(async () => {
    ws = await newWorkspace(t);
    people.admin = await personWithPassword('admin', 'Ada', 'Office');
    people.standard = await personWithPassword('standard', 'Rosa', 'Crew');
    people.restricted = await personWithPassword('restricted', 'Sam', 'Sub');
    // Keys already there: one of the standard user's (made by an admin), one of the first admin's.
    await call(ws.admin.key, 'POST', '/v1/api-keys', { name: 'Rosa phone sync', user_id: people.standard.id });
    await call(ws.admin.key, 'POST', '/v1/api-keys', { name: 'Accounting export' });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const signedIn = (who: keyof typeof people, viewport: { width: number; height: number }) =>
    openPage(browser, origin, viewport, people[who].email, { hasTouch: viewport === VIEWPORTS.phone, permissions: ['clipboard-read', 'clipboard-write'] });

  const card = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });
  const fact = async (item: Locator, term: string) => (await item.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd').innerText()).trim();
  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  /** Fills the form for a read-only key expiring in 30 days, creates it; returns the secret the panel shows. */
  async function createReadOnlyKey(page: Page, name: string): Promise<string> {
    await page.getByRole('button', { name: 'New API key' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Read-only').check();
    await form.getByLabel('Expires').selectOption({ label: 'In 30 days' });
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Create key' }).click();
    const panel = page.getByRole('region', { name: `New key “${name}”` });
    await panel.waitFor();
    assert.match(await panel.innerText(), /you won't see it again/);
    assert.match(await panel.innerText(), /Read-only\. It expires in 30 days/);
    const secret = await panel.getByLabel('Secret').inputValue();
    assert.match(secret, /^jsk_[A-Za-z0-9]{38}$/);
    return secret;
  }

  /** The Copy button puts the secret in the clipboard (read back in the page). */
  async function copyAndCheck(page: Page, secret: string) {
    const panel = page.getByRole('region', { name: /^New (key|secret)/ });
    await panel.getByRole('button', { name: 'Copy' }).click();
    await panel.getByRole('status').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
  }

  /** "I have stored it" removes the panel, and the secret is nowhere in the page. */
  async function closeAndForget(page: Page, secret: string) {
    await page.getByRole('button', { name: 'I have stored it, close' }).click();
    await page.getByRole('region', { name: /^New (key|secret)/ }).waitFor({ state: 'detached' });
    const inPage = await page.evaluate((s) => document.documentElement.outerHTML.includes(s)
      || [...document.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>('input, textarea')].some((i) => i.value.includes(s)), secret);
    assert.equal(inPage, false, 'the secret is gone from the page');
  }

  it('on a desktop, an admin creates a read-only key, uses it, rotates it with a grace period and revokes it', async () => {
    const { context, page, errors } = await signedIn('admin', VIEWPORTS.desktop);
    await page.goto(`${origin}/settings/api-keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    assert.ok(await page.getByRole('banner').getByRole('link', { name: 'Settings' }).isVisible());
    // Everyone's keys, with their owners.
    assert.equal(await fact(card(page, 'Rosa phone sync'), 'Owner'), 'Rosa Crew');
    assert.equal(await fact(card(page, 'Accounting export'), 'Owner'), ws.admin.email, 'a person without a name: their address');

    const secret = await createReadOnlyKey(page, 'Nightly export');
    await copyAndCheck(page, secret);
    const listed = (await call(ws.admin.key, 'GET', `/v1/api-keys?user_id=${people.admin.id}`)).data as Array<Record<string, any>>;
    const made = listed.find((k) => k.name === 'Nightly export')!;
    assert.equal(made.read_only, true);
    assert.equal(made.status, 'active');
    near(made.expires_at, Date.now() + 30 * DAY);
    assert.equal(secret.slice(0, 8), made.prefix);

    // The secret works, read-only: it reads as its user, and any write is refused.
    const me = await call(secret, 'GET', '/v1/users/me');
    assert.equal(me.id, people.admin.id);
    assert.deepEqual(await attempt(secret, 'POST', '/v1/projects', { name: 'Not allowed' }), { status: 403, code: 'read_only_key' });

    await closeAndForget(page, secret);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'New API key', 'the focus goes back to "New API key"');
    const item = card(page, 'Nightly export');
    assert.match(await item.innerText(), /Read-only/);
    assert.equal(await fact(item, 'Owner'), 'You');
    assert.equal(await fact(item, 'Begins with'), `${made.prefix}…`);
    assert.match(await fact(item, 'Expires'), /^in 30 days \(/);
    assert.equal(await fact(item, 'Last used'), 'Never', 'not used when the list was read');

    // Its use is recorded (the recorder writes every 10 s; flushed here), and a reload shows it.
    await t.app.keyUsage.flush();
    await page.reload();
    assert.match(await fact(card(page, 'Nightly export'), 'Last used'), /^just now \(.+\)$/);

    // Rotate with the default grace period (24 hours): both secrets work, the old one until then.
    await card(page, 'Nightly export').getByRole('button', { name: 'Rotate Nightly export' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate “Nightly export”' });
    await rotate.waitFor();
    assert.equal(await rotate.getByLabel('Keep the old secret working for').inputValue(), '86400');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-api-key-rotate-desktop') });
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const panel = page.getByRole('region', { name: 'New secret for “Nightly export”' });
    await panel.waitFor();
    assert.match(await panel.innerText(), /The old secret keeps working until .+ \(in 24 hours\)/);
    const rotated = await panel.getByLabel('Secret').inputValue();
    assert.notEqual(rotated, secret);
    assert.equal((await call(rotated, 'GET', '/v1/users/me')).id, people.admin.id);
    assert.equal((await call(secret, 'GET', '/v1/users/me')).id, people.admin.id, 'the old secret works during the grace period');
    near((await call(ws.admin.key, 'GET', `/v1/api-keys/${made.id}`)).previous_secret_expires_at, Date.now() + DAY);
    await copyAndCheck(page, rotated);
    await closeAndForget(page, rotated);
    assert.match(await fact(card(page, 'Nightly export'), 'Old secret works until'), /^in 24 hours \(/);

    // Revoke: Escape cancels (the focus back on the button), then confirmed.
    const revokeButton = card(page, 'Nightly export').getByRole('button', { name: 'Revoke Nightly export' });
    await revokeButton.click();
    const confirm = page.getByRole('dialog', { name: 'Revoke “Nightly export”?' });
    await confirm.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Cancel', 'the focus moves into the dialog');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    assert.equal(await revokeButton.evaluate((b) => b === document.activeElement), true, 'the focus is back on Revoke');
    assert.equal((await call(ws.admin.key, 'GET', `/v1/api-keys/${made.id}`)).status, 'active');
    await revokeButton.click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').getByText('The key “Nightly export” is revoked').waitFor();
    assert.match(await card(page, 'Nightly export').innerText(), /Revoked/);
    assert.equal(await card(page, 'Nightly export').getByRole('button').count(), 0, 'a revoked key has nothing left to do');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Nightly export', 'the focus on the key\'s name, its buttons gone');
    assert.deepEqual(await attempt(rotated, 'GET', '/v1/users/me'), { status: 401, code: 'revoked_api_key' });
    assert.deepEqual(await attempt(secret, 'GET', '/v1/users/me'), { status: 401, code: 'revoked_api_key' });
    assert.equal((await call(ws.admin.key, 'GET', `/v1/api-keys/${made.id}`)).status, 'revoked');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-api-keys-desktop'), fullPage: true });

    // Filters: only the revoked ones; then one person's keys (in the address).
    await page.getByLabel('Show').selectOption('revoked');
    await page.getByRole('heading', { name: 'Rosa phone sync' }).waitFor({ state: 'detached' });
    assert.equal(await card(page, 'Nightly export').count(), 1);
    await page.getByLabel('Show').selectOption('all');
    await page.getByLabel('Whose').selectOption({ label: 'Rosa Crew' });
    await page.getByRole('heading', { name: 'Keys of Rosa Crew' }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/settings/api-keys/${people.standard.id}`);
    await page.getByRole('heading', { name: 'Nightly export' }).waitFor({ state: 'detached' });
    assert.equal(await card(page, 'Rosa phone sync').count(), 1);

    // A key for someone else: the admin may name them; it acts as them.
    await page.getByRole('button', { name: 'New API key' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByLabel('Name').fill('Sam laptop');
    await form.getByLabel('For').selectOption({ label: 'Sam Sub (restricted)' });
    await form.getByRole('button', { name: 'Create key' }).click();
    const forSam = await page.getByRole('region', { name: 'New key “Sam laptop”' }).getByLabel('Secret').inputValue();
    assert.match(await page.getByRole('region', { name: 'New key “Sam laptop”' }).innerText(), /It does not expire\. It acts as Sam Sub\./);
    assert.equal((await call(forSam, 'GET', '/v1/users/me')).id, people.restricted.id);
    await closeAndForget(page, forSam);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone, a standard user manages only their own keys; another person\'s address answers the API\'s 403 in words', async () => {
    const { context, page, errors } = await signedIn('standard', VIEWPORTS.phone);
    await page.goto(`${origin}/settings/api-keys`);
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();
    await card(page, 'Rosa phone sync').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Accounting export' }).count(), 0, 'an admin\'s key is not listed');
    assert.equal(await page.getByLabel('Whose').count(), 0);
    assert.ok(await noSidewaysScroll(page));

    const secret = await createReadOnlyKey(page, 'Tablet in the van');
    assert.equal(await page.getByRole('form', { name: 'New API key' }).getByLabel('For').count(), 0, 'no "For": only their own keys');
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling with the secret shown');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-api-key-created-phone'), fullPage: true });
    await copyAndCheck(page, secret);
    assert.equal((await call(secret, 'GET', '/v1/users/me')).id, people.standard.id);
    assert.deepEqual(await attempt(secret, 'PATCH', `/v1/users/${people.standard.id}`, { first_name: 'X' }), { status: 403, code: 'read_only_key' });
    await closeAndForget(page, secret);
    const made = ((await call(ws.admin.key, 'GET', `/v1/api-keys?user_id=${people.standard.id}`)).data as Array<Record<string, any>>)
      .find((k) => k.name === 'Tablet in the van')!;
    assert.equal(made.read_only, true);
    near(made.expires_at, Date.now() + 30 * DAY);

    // Rotate with no grace (a leaked key): the old secret stops at once.
    await card(page, 'Tablet in the van').getByRole('button', { name: 'Rotate Tablet in the van' }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate “Tablet in the van”' });
    await rotate.getByLabel('Keep the old secret working for').selectOption('0');
    assert.ok(await noSidewaysScroll(page));
    await rotate.getByRole('button', { name: 'Rotate key' }).click();
    const panel = page.getByRole('region', { name: 'New secret for “Tablet in the van”' });
    await panel.getByText('The old secret no longer works.').waitFor();
    const rotated = await panel.getByLabel('Secret').inputValue();
    assert.deepEqual(await attempt(secret, 'GET', '/v1/users/me'), { status: 401, code: 'rotated_api_key' });
    assert.equal((await call(rotated, 'GET', '/v1/users/me')).id, people.standard.id);
    await closeAndForget(page, rotated);

    // Revoke with a tap.
    await card(page, 'Tablet in the van').getByRole('button', { name: 'Revoke Tablet in the van' }).tap();
    await page.getByRole('dialog', { name: 'Revoke “Tablet in the van”?' }).getByRole('button', { name: 'Revoke key' }).tap();
    await page.getByRole('status').getByText('The key “Tablet in the van” is revoked').waitFor();
    assert.deepEqual(await attempt(rotated, 'GET', '/v1/users/me'), { status: 401, code: 'revoked_api_key' });

    // Typing the address of someone else's keys: the API refuses (403), said in words.
    await page.goto(`${origin}/settings/api-keys/${people.admin.id}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Forbidden.*Only admins may list other users' keys\./s);
    assert.ok(await noSidewaysScroll(page));
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a restricted user may make their own keys too (the API lets every role), and a long list pages', async () => {
    for (let i = 1; i <= 21; i++) await call(ws.admin.key, 'POST', '/v1/api-keys', { name: `Batch key ${i}`, user_id: people.restricted.id });
    const { context, page, errors } = await signedIn('restricted', VIEWPORTS.desktop);
    await page.goto(`${origin}/settings/api-keys`);
    await page.getByRole('heading', { name: 'Your keys' }).waitFor();
    const list = page.getByRole('list', { name: 'Your keys' });
    await card(page, 'Batch key 21').waitFor();
    assert.equal(await list.getByRole('listitem').count(), 20, 'twenty at a time');
    await page.getByRole('button', { name: 'Load more keys' }).click();
    await card(page, 'Batch key 1').waitFor();
    // The 21 batch keys and the one the admin made for Sam in the first test.
    assert.equal(await list.getByRole('listitem').count(), 22);
    assert.equal(await page.getByRole('button', { name: 'Load more keys' }).count(), 0);

    await page.getByRole('button', { name: 'New API key' }).click();
    const form = page.getByRole('form', { name: 'New API key' });
    await form.getByRole('button', { name: 'Cancel' }).click();
    await form.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.textContent === 'New API key');
    await page.getByRole('button', { name: 'New API key' }).click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'key-name', 'the form opens on Name');
    await form.getByRole('button', { name: 'Create key' }).click();
    await form.getByText('Enter a name').waitFor();
    assert.equal(await form.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    await form.getByLabel('Name').fill('Site camera');
    await form.getByLabel('Expires').selectOption({ label: 'On a date…' });
    await form.getByLabel('Expiry date').fill('2099-06-01');
    await form.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByRole('region', { name: 'New key “Site camera”' }).getByLabel('Secret').inputValue();
    const me = await call(secret, 'GET', '/v1/users/me');
    assert.equal(me.id, people.restricted.id);
    const made = ((await call(ws.admin.key, 'GET', `/v1/api-keys?user_id=${people.restricted.id}&limit=100`)).data as Array<Record<string, any>>)
      .find((k) => k.name === 'Site camera')!;
    assert.equal(made.read_only, false);
    assert.equal(made.expires_at, '2099-06-01T00:00:00.000Z', 'the start of the day chosen, in the viewer\'s time zone (UTC here)');
    await closeAndForget(page, secret);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
