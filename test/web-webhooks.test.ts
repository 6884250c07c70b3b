/**
 * Settings → Webhooks in Chromium (issue 15): an admin adds an endpoint (the SSRF guard's refusal
 * in words; the secret shown once verifies a real delivery), pings it, follows the delivery log
 * (a 500 with its code and body, retry one, replay a range), rotates the secret, disables and
 * enables, deletes; an endpoint the dispatcher disabled (410) is called out and enabled again;
 * a standard user typing the address gets the 403 in words. Desktop and phone; a real receiver
 * on 127.0.0.1 (allowed by JOBSITE_WEBHOOK_ALLOW_PRIVATE) and the real dispatcher.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, TEST_PASSWORD, userWithPassword } from './web-server.ts';
import { eventually, Receiver, type Received } from './webhook-receiver.ts';

const { t, origin } = await listeningTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
const receiver = await Receiver.start();
const dispatcher = new WebhookDispatcher(
  { db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }) },
  { timeoutMs: 2000 },
);
await dispatcher.start();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => {
  await dispatcher.stop();
  await receiver.close();
  await t.close();
});

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** An admin "Ada Office" with TEST_PASSWORD (invited through the API, the invitation accepted). */
async function adminWithPassword(ws: TestWorkspace, email: string): Promise<void> {
  const user = await call(ws.admin.key, 'POST', '/v1/users', { email, first_name: 'Ada', last_name: 'Office', role: 'admin' });
  const token = decodeURIComponent(new URL(user.invite_url).pathname.split('/').pop()!);
  await call(ws.admin.key, 'POST', `/v1/invitations/${encodeURIComponent(token)}`, { password: TEST_PASSWORD });
}

const answer = (code: number, body: string) => (_r: Received, res: import('node:http').ServerResponse) => {
  res.writeHead(code, { 'content-type': 'text/plain' }).end(body);
};

/** Both signature schemes' Standard Webhooks form: the receiver's library accepts the body with this secret. */
function verifies(r: Received, secret: string): boolean {
  try {
    new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

/** A datetime-local value ("2026-11-25T06:30") in the browser's time zone, which these tests pin to UTC. */
const localInput = (d: Date) => d.toISOString().slice(0, 16);

describe('Settings → Webhooks in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const adminEmail = `ada-${Date.now()}@example.test`;
  const crewEmail = `rosa-${Date.now()}@example.test`;

  before(async () => {
    ws = await newWorkspace(t);
    await adminWithPassword(ws, adminEmail);
    await userWithPassword(origin, ws, crewEmail);
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const signedIn = (email: string, viewport: { width: number; height: number }) => openPage(browser, origin, viewport, email);

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);
  const deliveryItem = (page: Page, name: RegExp) => page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem', { name });
  const deliveriesOf = async (id: string) => (await call(ws.admin.key, 'GET', `/v1/webhooks/${id}/deliveries?limit=100`)).data as Array<Record<string, any>>;

  it('on a desktop: create (secret once, verified), ping, a 500 in the log, retry, replay, rotate, disable/enable, delete', async () => {
    const { context, page, errors } = await signedIn(adminEmail, VIEWPORTS.desktop);
    await page.goto(`${origin}/settings/webhooks`);
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    await page.getByText('No endpoints yet.').waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).getAttribute('aria-current'), 'page');

    // The SSRF guard: a link-local address is refused, in words, under the URL field.
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    const form = page.getByRole('region', { name: 'New endpoint' });
    await form.getByLabel('URL').fill('http://169.254.169.254/latest/meta-data');
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    await form.getByRole('alert').getByText('The webhook URL is not allowed').waitFor();
    assert.equal(await form.getByLabel('URL').getAttribute('aria-invalid'), 'true');
    assert.equal((await call(ws.admin.key, 'GET', '/v1/webhooks')).data.length, 0, 'nothing created');

    // The receiver's address; every project event and task.created.
    const path = '/desktop';
    await form.getByLabel('URL').fill(receiver.url(path));
    await form.getByLabel('Description').fill('Accounting sync');
    await form.getByLabel('All events, including kinds added later').uncheck();
    await form.getByLabel('Every project event').check();
    assert.equal(await form.getByLabel('project.created').isDisabled(), true, 'the wildcard takes in its events');
    await form.getByLabel('task.created').check();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Create endpoint' }).click();

    const secretRegion = page.getByRole('region', { name: /signing secret/ });
    await secretRegion.waitFor();
    await secretRegion.getByText('you won’t see it again').waitFor();
    const secret = (await secretRegion.getByLabel('Signing secret').textContent())!;
    assert.match(secret, /^whsec_/);
    const [endpoint] = (await call(ws.admin.key, 'GET', '/v1/webhooks')).data;
    assert.equal(endpoint.url, receiver.url(path));
    assert.equal(endpoint.description, 'Accounting sync');
    assert.deepEqual(endpoint.events, ['project.*', 'task.created']);
    assert.equal(endpoint.secret, undefined, 'the list never carries the secret');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    await secretRegion.getByRole('button', { name: 'Copy secret' }).click();
    await secretRegion.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await page.getByRole('list', { name: 'Endpoints' }).getByText('Events: every project event, task.created').waitFor();

    // A real delivery (a project created through the API) verifies with the secret the page showed.
    await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge' });
    const [first] = await eventually('the project.created delivery', () => receiver.at(path).length ? receiver.at(path) : null);
    assert.equal(JSON.parse(first!.body).event, 'project.created');
    assert.ok(verifies(first!, secret), 'the shown secret verifies the delivery');
    await secretRegion.getByRole('button', { name: 'I have stored it' }).click();
    assert.equal(await page.getByLabel('Signing secret').count(), 0, 'the secret is gone from the page');

    // Ping: the receiver gets it, the page says it was delivered, the log shows it with its code.
    await page.getByRole('link', { name: receiver.url(path) }).click();
    await page.getByRole('heading', { name: receiver.url(path), level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/settings/webhooks/${endpoint.id}`);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').getByText(/The test event was delivered: the endpoint answered 200 in \d+ ms/).waitFor();
    const pings = receiver.at(path).filter((r) => JSON.parse(r.body).event === 'webhook.ping');
    assert.equal(pings.length, 1);
    assert.ok(verifies(pings[0]!, secret));
    const ping = deliveryItem(page, /Succeeded webhook\.ping/);
    await ping.getByText('1 attempt, last answer 200').waitFor();

    // The receiver breaks: a 500 shows with its code and its body; the status filter finds it.
    receiver.on(path, answer(500, 'ledger offline'));
    await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Quay Wall' });
    const broken = await eventually('three failed attempts', async () => {
      const d = (await deliveriesOf(endpoint.id)).find((x) => x.attempt_count >= 3);
      return d && d.status === 'pending' ? d : null;
    }, 15_000);
    await page.getByRole('button', { name: 'Refresh' }).click();
    const failing = deliveryItem(page, /Retrying project\.created/);
    await failing.getByText(/3 attempts, last answer 500; next attempt/).waitFor();
    await failing.getByText('Attempts and bodies').click();
    await failing.getByText(/Answered 500 in \d+ ms/).first().waitFor();
    assert.equal(await failing.getByLabel('Response body').first().textContent(), 'ledger offline');
    await failing.getByRole('button', { name: 'Show the request body' }).click();
    assert.match((await failing.getByLabel('Request body').textContent())!, /"name": "Quay Wall"/);
    await page.getByLabel('Status', { exact: true }).selectOption('succeeded');
    await deliveryItem(page, /Retrying/).waitFor({ state: 'detached' });
    await deliveryItem(page, /Succeeded webhook\.ping/).waitFor();
    assert.equal(await deliveryItem(page, /project\.created/).count(), 1, 'only the first project.created succeeded');
    await page.getByLabel('Status', { exact: true }).selectOption('pending');
    await deliveryItem(page, /Retrying project\.created/).waitFor();
    assert.equal(await page.getByRole('list', { name: 'Deliveries' }).getByRole('listitem', { name: /webhook\.ping/ }).count(), 0);
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await deliveryItem(page, /Succeeded webhook\.ping/).waitFor();
    await deliveryItem(page, /Retrying project\.created/).getByText('Attempts and bodies').click();
    await deliveryItem(page, /Retrying project\.created/).getByLabel('Response body').first().waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-webhook-deliveries-desktop'), fullPage: true });

    // Fixed: retry that one delivery now; it succeeds, with the same webhook-id.
    receiver.on(path, answer(200, 'thanks'));
    await deliveryItem(page, /Retrying project\.created/).getByRole('button', { name: 'Retry now' }).click();
    await page.getByText('The project.created delivery is queued to be sent again now.').waitFor();
    await page.getByLabel('Status', { exact: true }).selectOption('');
    await deliveryItem(page, /Succeeded project\.created/).filter({ hasText: /attempts, last answer 200/ }).first().waitFor({ timeout: 15_000 });
    const retried = await call(ws.admin.key, 'GET', `/v1/webhooks/${endpoint.id}/deliveries/${broken.id}`);
    assert.equal(retried.status, 'succeeded');
    assert.equal(retried.last_status_code, 200);

    // Replay the last ten minutes: the two project.created events again, as new deliveries.
    const before = (await deliveriesOf(endpoint.id)).length;
    const received = receiver.at(path).length;
    await page.getByLabel('From', { exact: true }).fill(localInput(new Date(Date.now() - 10 * 60_000)));
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText('2 deliveries were queued; they appear in the log above.').waitFor();
    assert.equal((await deliveriesOf(endpoint.id)).length, before + 2);
    const replayed = await eventually('the replayed deliveries', () => receiver.at(path).length >= received + 2 ? receiver.at(path).slice(received) : null);
    assert.deepEqual(replayed.map((r) => JSON.parse(r.body).event), ['project.created', 'project.created']);
    assert.ok(replayed.every((r) => verifies(r, secret)));

    // Rotate: Escape cancels and gives focus back; with a 1 h grace both secrets verify the next delivery.
    const rotateButton = page.getByRole('button', { name: 'Rotate secret' });
    await rotateButton.click();
    const rotateDialog = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
    await rotateDialog.waitFor();
    assert.equal(await rotateDialog.evaluate((d) => d.contains(document.activeElement)), true, 'focus moves into the dialog');
    await page.keyboard.press('Escape');
    await rotateDialog.waitFor({ state: 'hidden' });
    assert.equal(await rotateButton.evaluate((b) => b === document.activeElement), true, 'focus returns to Rotate secret');
    await rotateButton.click();
    await rotateDialog.getByLabel('Keep the old secret signing for').selectOption({ label: '1 hour' });
    await rotateDialog.getByRole('button', { name: 'Rotate secret' }).click();
    const newSecretRegion = page.getByRole('region', { name: 'The new signing secret' });
    await newSecretRegion.getByText(/For 1 hour, deliveries are signed with both/).waitFor();
    const newSecret = (await newSecretRegion.getByLabel('Signing secret').textContent())!;
    assert.notEqual(newSecret, secret);
    const rotated = await call(ws.admin.key, 'GET', `/v1/webhooks/${endpoint.id}`);
    const graceLeft = Date.parse(rotated.previous_secret_expires_at) - Date.now();
    assert.ok(graceLeft > 55 * 60_000 && graceLeft <= 3_600_000, `about an hour of grace: ${graceLeft} ms`);
    await page.getByText(/the previous secret also signs deliveries until/).waitFor();
    const count = receiver.at(path).length;
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').getByText(/The test event was delivered/).waitFor();
    const afterRotation = receiver.at(path).slice(count).find((r) => JSON.parse(r.body).event === 'webhook.ping')!;
    assert.ok(verifies(afterRotation, newSecret), 'the new secret verifies');
    assert.ok(verifies(afterRotation, secret), 'the old one still does, during the grace period');

    // Edit: a new description, and every event.
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('region', { name: 'Edit the endpoint' });
    assert.equal(await edit.getByLabel('Every project event').isChecked(), true, 'the form shows the stored patterns');
    assert.equal(await edit.getByLabel('task.created').isChecked(), true);
    await edit.getByLabel('Description').fill('Accounting sync (all events)');
    await edit.getByLabel('All events, including kinds added later').check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The endpoint is saved.').waitFor();
    const edited = await call(ws.admin.key, 'GET', `/v1/webhooks/${endpoint.id}`);
    assert.equal(edited.description, 'Accounting sync (all events)');
    assert.deepEqual(edited.events, ['*']);
    await page.getByText('Events: All events').waitFor();

    // Disable, then enable.
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Disabled by an admin.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send a test event' }).isDisabled(), true);
    let state = await call(ws.admin.key, 'GET', `/v1/webhooks/${endpoint.id}`);
    assert.equal(state.enabled, false);
    assert.equal(state.disabled_reason, 'manual');
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await page.getByText('The endpoint is enabled: new events are delivered to it.').waitFor();
    state = await call(ws.admin.key, 'GET', `/v1/webhooks/${endpoint.id}`);
    assert.equal(state.enabled, true);
    assert.equal(state.disabled_reason, null);

    // An endpoint the dispatcher disabled (its receiver answered 410) is called out in the list, and enabled from there.
    receiver.on('/gone', answer(410, 'gone'));
    const gone = await call(ws.admin.key, 'POST', '/v1/webhooks', { url: receiver.url('/gone'), events: ['*'], description: 'Old CRM' });
    await call(ws.admin.key, 'POST', `/v1/webhooks/${gone.id}/ping`);
    await eventually('the 410 to disable the endpoint', async () => (await call(ws.admin.key, 'GET', `/v1/webhooks/${gone.id}`)).disabled_reason === 'gone');
    await page.getByRole('link', { name: 'All webhooks' }).click();
    const goneCard = page.getByRole('list', { name: 'Endpoints' }).getByRole('listitem').filter({ hasText: 'Old CRM' });
    await goneCard.getByText('Disabled automatically: the receiver answered 410 Gone').waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-webhooks-desktop'), fullPage: true });
    await goneCard.getByRole('button', { name: `Enable ${receiver.url('/gone')}` }).click();
    await page.getByRole('status').getByText('is enabled again').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/webhooks/${gone.id}`)).enabled, true);

    // Delete: Cancel keeps it (focus back on Delete); confirming removes it and its log.
    await page.getByRole('link', { name: receiver.url(path) }).click();
    const deleteButton = page.getByRole('button', { name: 'Delete', exact: true });
    await deleteButton.click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    await deleteDialog.waitFor({ state: 'hidden' });
    assert.equal(await deleteButton.evaluate((b) => b === document.activeElement), true, 'focus returns to Delete');
    await deleteButton.click();
    await deleteDialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: receiver.url(path) }).count(), 0);
    const res = await fetch(`${origin}/v1/webhooks/${endpoint.id}`, { headers: { authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(res.status, 404);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: create, the secret once, ping and its delivery in the log, delete; no sideways scroll', async () => {
    const { context, page, errors } = await signedIn(adminEmail, VIEWPORTS.phone);
    await page.goto(`${origin}/settings/webhooks`);
    await page.getByRole('button', { name: 'Add an endpoint' }).click();
    const form = page.getByRole('region', { name: 'New endpoint' });
    const path = '/phone';
    await form.getByLabel('URL').fill(receiver.url(path));
    await form.getByLabel('All events, including kinds added later').uncheck();
    await form.getByLabel('photo.created').check();
    assert.ok(await noSidewaysScroll(page), 'the form fits the phone');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.getByRole('region', { name: /signing secret/ }).getByLabel('Signing secret').textContent())!;
    assert.ok(await noSidewaysScroll(page), 'the secret wraps');
    const created = (await call(ws.admin.key, 'GET', '/v1/webhooks')).data.find((w: { url: string }) => w.url === receiver.url(path));
    assert.deepEqual(created.events, ['photo.created']);
    await page.screenshot({ path: screenshotPath('web-webhooks-phone'), fullPage: true });

    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByRole('status').getByText(/The test event was delivered: the endpoint answered 200/).waitFor();
    assert.ok(verifies(receiver.at(path)[0]!, secret));
    const ping = deliveryItem(page, /Succeeded webhook\.ping/);
    await ping.getByText('Attempts and bodies').click();
    await ping.getByRole('button', { name: 'Show the request body' }).click();
    assert.match((await ping.getByLabel('Request body').textContent())!, /"event": "webhook.ping"/);
    assert.equal(await ping.getByLabel('Response body').textContent(), 'ok');
    assert.ok(await noSidewaysScroll(page), 'the delivery log fits the phone');
    assert.deepEqual(await seriousAxeViolations(page), []);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this endpoint?' });
    assert.ok(await noSidewaysScroll(page), 'the dialog fits the phone');
    await dialog.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
    assert.equal((await call(ws.admin.key, 'GET', '/v1/webhooks')).data.some((w: { id: string }) => w.id === created.id), false);
    // An address of no endpoint: the API's 404 in words, and the way back.
    await page.goto(`${origin}/settings/webhooks/${created.id}`);
    await page.getByRole('alert').getByText('Not found').waitFor();
    await page.getByRole('link', { name: 'All webhooks' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`on a ${name}: a standard user typing /settings/webhooks reads the 403 in words`, async () => {
      const { context, page, errors } = await signedIn(crewEmail, viewport);
      await page.goto(`${origin}/settings/webhooks`);
      await page.getByRole('alert').getByText('Your role (standard) may not manage webhooks.').waitFor();
      // They have Settings (their own API keys), but no Webhooks in it.
      await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).waitFor();
      assert.equal(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Webhooks' }).count(), 0, 'no Webhooks link for them');
      assert.equal(await page.getByRole('button', { name: 'Add an endpoint' }).count(), 0);
      assert.ok(await noSidewaysScroll(page));
      assert.deepEqual(await seriousAxeViolations(page), []);
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});
