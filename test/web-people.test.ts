/**
 * The office side of the web app (issue 15) in Chromium: Settings → People (invite, with and
 * without mail; change a role; deactivate someone signed in elsewhere, and reactivate) and
 * Settings → Workspace (name, time zone, a 412 in words); what a manager and a standard user see,
 * and that the API still refuses them. Desktop and phone; axe-core on every screen.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { MailCatcher } from './smtp-server.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, freePort, listeningTestApp, openPage, TEST_PASSWORD } from './web-server.ts';

// Two API processes on one database: this one sends no mail, the second sends it to a real SMTP server.
const { t, origin } = await listeningTestApp();
const smtp = await MailCatcher.start();
const mailPort = await freePort();
const mailOrigin = `http://127.0.0.1:${mailPort}`;
const mailing: TestContext = await startTestApp(
  { JOBSITE_PUBLIC_URL: mailOrigin, JOBSITE_SMTP_URL: smtp.url(), JOBSITE_MAIL_FROM: 'Jobsite <jobsite@example.test>' },
  { databaseUrl: t.url },
);
await mailing.app.listen({ port: mailPort, host: '127.0.0.1' });
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => {
  await mailing.close();
  await t.close();
  await smtp.close();
});

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);
const tokenOf = (link: string) => new URL(link).pathname.split('/').at(-1)!;
let n = 0;
const address = (who: string) => `${who}-${Date.now().toString(36)}-${n++}@example.test`;

/** A request from inside a signed-in browser context (its cookie, and the CSRF token it would send). */
async function asBrowser(context: BrowserContext, method: 'POST' | 'PATCH', path: string, data: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const current = await context.request.get(`${origin}/v1/sessions/current`);
  assert.equal(current.status(), 200);
  const { csrf_token: csrf } = await current.json() as { csrf_token: string };
  const res = await context.request.fetch(`${origin}${path}`, { method, data, headers: { 'x-csrf-token': csrf } });
  return { status: res.status(), body: await res.json() as Record<string, any> };
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('People and Workspace settings in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  let admin: { id: string; email: string };

  /** Someone invited through the API who chose TEST_PASSWORD through their link. */
  async function personWithPassword(first: string, last: string, role: string): Promise<{ id: string; email: string }> {
    const email = address(first.toLowerCase());
    const user = await call(ws.admin.key, 'POST', '/v1/users', { email, first_name: first, last_name: last, role });
    await call(ws.admin.key, 'POST', `/v1/invitations/${tokenOf(user.invite_url)}`, { password: TEST_PASSWORD });
    return { id: user.id as string, email };
  }

  before(async () => {
    ws = await newWorkspace(t, 'Riverside Builders');
    admin = await personWithPassword('Ada', 'Admin', 'admin');
    // A crew to list, and someone who left.
    for (const [first, last, role] of [['Grace', 'Hopper', 'manager'], ['Linus', 'Carpenter', 'standard'], ['Olu', 'Mason', 'restricted']]) {
      await call(ws.admin.key, 'POST', '/v1/users', { email: address(first!.toLowerCase()), first_name: first, last_name: last, role });
    }
    const former = await call(ws.admin.key, 'POST', '/v1/users', { email: address('pat'), first_name: 'Pat', last_name: 'Former', role: 'standard' });
    await call(ws.admin.key, 'DELETE', `/v1/users/${former.id}`);
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const newPage = (viewport: { width: number; height: number }, email: string | null, at = origin) => openPage(browser, at, viewport, email);

  /** From the header's Settings link to a section by its link. */
  async function openSection(page: Page, at: string, title: 'People' | 'Workspace') {
    await page.goto(`${at}/projects`);
    await page.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: title }).click();
    await page.getByRole('heading', { name: title, level: 1 }).waitFor();
  }

  async function acceptInvitation(link: string, viewport: { width: number; height: number }, first: string) {
    const { context, page, errors } = await newPage(viewport, null);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Welcome to Riverside Builders', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('First name').inputValue(), first, 'the names given by the admin');
    await page.getByLabel('Password').fill('a fine new passphrase');
    await page.getByRole('button', { name: 'Join and sign in' }).click();
    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  }

  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    it(`on a ${size}: an admin invites someone; without mail the link is shown with Copy, and it works`, async () => {
      const { context, page, errors } = await newPage(viewport, admin.email);
      if (size === 'desktop') await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
      await openSection(page, origin, 'People');
      const list = page.getByRole('list', { name: 'People' });
      await list.getByRole('listitem', { name: /Ada Admin/ }).waitFor();
      assert.ok(await list.getByRole('listitem', { name: /Ada Admin/ }).getByText('(you)').isVisible());
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'desktop') await page.screenshot({ path: screenshotPath('web-people-desktop'), fullPage: true });

      await page.getByRole('button', { name: 'Invite someone' }).click();
      const form = page.getByRole('form', { name: 'Invite someone' });
      // An admin may give every role.
      assert.deepEqual(await form.getByLabel('Role', { exact: true }).locator('option').allInnerTexts(), ['Admin', 'Manager', 'Standard', 'Restricted']);
      await form.getByRole('button', { name: 'Send invitation' }).click();
      await form.getByText('Enter their e-mail address.').waitFor();
      const first = size === 'desktop' ? 'Nia' : 'Noa';
      const email = address(first.toLowerCase());
      await form.getByLabel('E-mail').fill(email);
      await form.getByLabel('First name').fill(first);
      await form.getByLabel('Last name').fill('Foreman');
      await form.getByLabel('Role', { exact: true }).selectOption('manager');
      assert.deepEqual(await seriousAxeViolations(page), []);
      await form.getByRole('button', { name: 'Send invitation' }).click();

      const result = page.getByRole('region', { name: 'Invitation' });
      await result.getByText(/the invitation was not e-mailed/).waitFor();
      const link = await result.getByLabel(`Invitation link for ${email}`).inputValue();
      assert.match(link, new RegExp(`^${origin}/invite/[A-Za-z0-9_-]{43}$`));
      assert.match(await result.getByRole('status').first().innerText(), /it works once, until \w+day, /);
      await result.getByRole('button', { name: 'Copy' }).click();
      if (size === 'desktop') {
        await result.getByText('The link is copied.').waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
      } else {
        // Without the clipboard permission either way is fine, as long as the link can be copied.
        await result.getByText(/The link is (copied|selected)/).waitFor();
        if (await result.getByText(/selected/).count()) {
          assert.ok(await result.getByLabel(`Invitation link for ${email}`).evaluate((el: HTMLInputElement) =>
            el === document.activeElement && el.selectionStart === 0 && el.selectionEnd === el.value.length), 'the whole link selected');
        }
      }
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') {
        assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
        await page.screenshot({ path: screenshotPath('web-people-invite-phone') });
      }

      // In the API: a manager, with the names given; and in the list.
      const users = await call(ws.admin.key, 'GET', '/v1/users?status=all&role=manager');
      const made = users.data.find((u: { email: string }) => u.email === email);
      assert.equal(made?.first_name, first);
      assert.equal(made?.status, 'active');
      await list.getByRole('listitem', { name: `${first} Foreman` }).waitFor();
      await result.getByRole('button', { name: 'Done' }).click();
      assert.ok(await page.getByRole('button', { name: 'Invite someone' }).evaluate((el) => el === document.activeElement), 'the focus back where it was');

      await acceptInvitation(link, viewport, first);
      const signIn = await fetch(`${origin}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'a fine new passphrase' }) });
      assert.equal(signIn.status, 201, 'the password chosen through the link signs in');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it(`on a ${size}: with a mail server, the invitation is e-mailed and its link works`, async () => {
      const { context, page, errors } = await newPage(viewport, admin.email, mailOrigin);
      await openSection(page, mailOrigin, 'People');
      await page.getByRole('button', { name: 'Invite someone' }).click();
      const form = page.getByRole('form', { name: 'Invite someone' });
      const email = address(`leo-${size}`);
      await form.getByLabel('E-mail').fill(email);
      await form.getByLabel('First name').fill('Leo');
      await form.getByRole('button', { name: 'Send invitation' }).click();
      const result = page.getByRole('region', { name: 'Invitation' });
      await result.getByText(`Invitation e-mailed to ${email}.`).waitFor();
      assert.equal(await result.getByRole('button', { name: 'Copy' }).count(), 0, 'no link to pass on by hand');
      assert.ok(await result.getByRole('heading', { name: 'Invitation ready' }).evaluate((el) => el === document.activeElement), 'focus on the answer');
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') assert.ok(await noSidewaysScroll(page));

      const mail = smtp.to(email);
      assert.equal(mail.length, 1, 'the mail arrived');
      const link = new RegExp(`${mailOrigin.replace(/[.]/g, '\\.')}/invite/[A-Za-z0-9_-]{43}`).exec(mail[0]!.text)?.[0];
      assert.ok(link, mail[0]!.text);
      assert.equal((await call(ws.admin.key, 'GET', '/v1/users?role=standard')).data.filter((u: { email: string }) => u.email === email).length, 1, 'a standard user by default');
      await acceptInvitation(link, viewport, 'Leo');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it(`on a ${size}: an admin changes a role, deactivates someone signed in elsewhere (signed out at once), and reactivates them`, async () => {
      const crew = await personWithPassword('Sam', `Site ${size}`, 'standard');
      const name = `Sam Site ${size}`;
      // Sam is using the app in another browser.
      const sam = await newPage(viewport, crew.email);
      await sam.page.goto(`${origin}/projects`);
      await sam.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();

      const { context, page, errors } = await newPage(viewport, admin.email);
      await openSection(page, origin, 'People');
      const row = page.getByRole('list', { name: 'People' }).getByRole('listitem', { name });
      await row.waitFor();
      assert.ok(await row.getByText(crew.email).isVisible());
      assert.ok(await row.getByText(/@sam-/).isVisible(), 'the handle');
      assert.ok(await row.getByText('Active', { exact: true }).isVisible());

      // Role: only a real change may be sent.
      assert.ok(await row.getByRole('button', { name: `Change role of ${name}` }).isDisabled());
      await row.getByLabel(`Role of ${name}`, { exact: true }).selectOption('restricted');
      await row.getByRole('button', { name: `Change role of ${name}` }).click();
      await row.getByRole('status').getByText(`${name} is now a restricted user.`).waitFor();
      assert.equal((await call(ws.admin.key, 'GET', `/v1/users/${crew.id}`)).role, 'restricted');

      // Deactivate: a dialog says what happens; Escape cancels and gives the focus back.
      const deactivate = row.getByRole('button', { name: `Deactivate ${name}` });
      await deactivate.click();
      const dialog = page.getByRole('dialog', { name: `Deactivate ${name}?` });
      await dialog.waitFor();
      assert.match(await dialog.innerText(), /signed out at once: every session they have ends/);
      assert.ok(await dialog.getByRole('button', { name: 'Cancel' }).evaluate((el) => el === document.activeElement), 'focus in the dialog, on Cancel');
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') assert.ok(await noSidewaysScroll(page));
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.ok(await deactivate.evaluate((el) => el === document.activeElement), 'focus back on the button');
      assert.equal((await call(ws.admin.key, 'GET', `/v1/users/${crew.id}`)).status, 'active', 'Escape changed nothing');

      // Keyboard only: Enter opens it, Tab to the confirm button, Enter.
      await page.keyboard.press('Enter');
      await dialog.waitFor();
      await page.keyboard.press('Shift+Tab');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Deactivate and sign out');
      await page.keyboard.press('Enter');
      await row.getByRole('status').getByText(`${name} is deactivated and signed out everywhere.`).waitFor();
      assert.ok(await row.getByText(/^Deactivated on /).isVisible());
      const after = await call(ws.admin.key, 'GET', `/v1/users/${crew.id}`);
      assert.equal(after.status, 'deactivated');
      assert.ok(after.deactivated_at);

      // Sam's browser: the API answers 401 to the next call, and the page says so in words; a reload shows the sign-in screen.
      assert.equal((await sam.context.request.get(`${origin}/v1/sessions/current`)).status(), 401);
      await sam.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
      await sam.page.getByRole('combobox', { name: 'Status' }).selectOption('all');
      await sam.page.getByRole('alert').getByText(/This session has ended/).waitFor();
      await sam.page.reload();
      await sam.page.getByRole('heading', { name: 'Sign in to Jobsite' }).waitFor();
      assert.deepEqual(sam.errors, []);
      await sam.context.close();

      // Reactivate: the same button, now "Reactivate"; they can sign in again.
      await row.getByRole('button', { name: `Reactivate ${name}` }).click();
      await row.getByRole('status').getByText(`${name} is active again`).waitFor();
      assert.equal((await call(ws.admin.key, 'GET', `/v1/users/${crew.id}`)).status, 'active');
      const again = await fetch(`${origin}/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: crew.email, password: TEST_PASSWORD }) });
      assert.equal(again.status, 201);

      // The filters: deactivated people only.
      await page.getByRole('form', { name: 'Filter people' }).getByLabel('Status').selectOption('deactivated');
      const deactivated = page.getByRole('list', { name: 'People' });
      await deactivated.getByRole('listitem', { name: 'Pat Former' }).getByRole('button', { name: 'Reactivate Pat Former' }).waitFor();
      assert.equal(await deactivated.getByRole('listitem', { name }).count(), 0, 'the reactivated person is not among them');
      assert.equal(await deactivated.getByRole('listitem').count(), 1);
      await page.getByRole('form', { name: 'Filter people' }).getByLabel('Role').selectOption('manager');
      await page.getByText('No one matches these filters.').waitFor();
      assert.match(new URL(page.url()).search, /status=deactivated/);
      assert.deepEqual(errors, []);
      await context.close();
    });

    it(`on a ${size}: a manager sees People but not Workspace, cannot give admin nor touch an admin; the API refuses too`, async () => {
      const manager = await personWithPassword('Mia', `Manager ${size}`, 'manager');
      const crew = await personWithPassword('Tom', `Crew ${size}`, 'standard');
      const { context, page, errors } = await newPage(viewport, manager.email);
      await openSection(page, origin, 'People');
      const settingsNav = page.getByRole('navigation', { name: 'Settings' });
      assert.deepEqual(await settingsNav.getByRole('link').allInnerTexts(), ['People', 'API keys'], 'no Workspace link');
      const list = page.getByRole('list', { name: 'People' });
      const adminRow = list.getByRole('listitem', { name: 'Ada Admin' });
      await adminRow.waitFor();
      assert.equal(await adminRow.getByRole('button').count(), 0, 'no controls on an admin');
      const crewRow = list.getByRole('listitem', { name: `Tom Crew ${size}` });
      assert.deepEqual(await crewRow.getByLabel(`Role of Tom Crew ${size}`, { exact: true }).locator('option').allInnerTexts(), ['Manager', 'Standard', 'Restricted']);
      await page.getByRole('button', { name: 'Invite someone' }).click();
      assert.deepEqual(await page.getByRole('form', { name: 'Invite someone' }).getByLabel('Role', { exact: true }).locator('option').allInnerTexts(), ['Manager', 'Standard', 'Restricted']);
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') assert.ok(await noSidewaysScroll(page));

      // The API still refuses what the page does not offer.
      const grant = await asBrowser(context, 'POST', '/v1/users', { email: address('boss'), role: 'admin' });
      assert.equal(grant.status, 403);
      assert.match(grant.body.detail, /may not grant the admin role/);
      assert.equal((await asBrowser(context, 'PATCH', `/v1/users/${admin.id}`, { role: 'standard' })).status, 403);
      assert.equal((await asBrowser(context, 'PATCH', '/v1/workspace', { name: 'Mine now' })).status, 403);

      // Typed in: the workspace, without the form.
      await page.goto(`${origin}/settings/workspace`);
      await page.getByRole('heading', { name: 'Workspace', level: 1 }).waitFor();
      await page.getByText('Only an admin may change the workspace; your role is manager.').waitFor();
      assert.equal(await page.getByRole('button', { name: 'Save workspace' }).count(), 0);

      // Demoted while the page is open: the page still offers the change, the API refuses it, in words.
      await page.goto(`${origin}/settings/people`);
      await crewRow.waitFor();
      await call(ws.admin.key, 'PATCH', `/v1/users/${manager.id}`, { role: 'standard' });
      await crewRow.getByLabel(`Role of Tom Crew ${size}`, { exact: true }).selectOption('restricted');
      await crewRow.getByRole('button', { name: `Change role of Tom Crew ${size}` }).click();
      await crewRow.getByRole('alert').getByText('Your role (standard) may not edit this user.').waitFor();
      assert.equal((await call(ws.admin.key, 'GET', `/v1/users/${crew.id}`)).role, 'standard', 'nothing changed');
      assert.deepEqual(errors, []);
      await context.close();
    });

    it(`on a ${size}: a standard user's Settings has only their API keys; typed in, the sections show what they may see and the API refuses the rest`, async () => {
      const crew = await personWithPassword('Rosa', `Crew ${size}`, 'standard');
      const { context, page, errors } = await newPage(viewport, crew.email);
      await page.goto(`${origin}/projects`);
      await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
      await page.getByRole('banner').getByRole('link', { name: 'Settings' }).click();
      const nav = page.getByRole('navigation', { name: 'Settings' });
      await nav.getByRole('link', { name: 'API keys' }).waitFor();
      assert.deepEqual(await nav.getByRole('link').allInnerTexts(), ['API keys'], 'no People, Workspace or Webhooks for them');

      await page.goto(`${origin}/settings/people`);
      await page.getByRole('heading', { name: 'People', level: 1 }).waitFor();
      await page.getByText('Your role (standard) may see who is in the workspace, but not invite people or change their role or status.').waitFor();
      await page.getByRole('list', { name: 'People' }).getByRole('listitem', { name: 'Ada Admin' }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Invite someone' }).count(), 0);
      assert.equal(await page.getByRole('list', { name: 'People' }).getByRole('button').count(), 0, 'no role or status controls');
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') assert.ok(await noSidewaysScroll(page));
      const invite = await asBrowser(context, 'POST', '/v1/users', { email: address('friend'), role: 'restricted' });
      assert.equal(invite.status, 403);
      assert.equal(invite.body.detail, 'Your role (standard) may not add users.');

      await page.goto(`${origin}/settings/workspace`);
      await page.getByText('Only an admin may change the workspace; your role is standard.').waitFor();
      await page.goto(`${origin}/settings`);
      await page.getByText('Choose what to manage.').waitFor();
      assert.deepEqual(errors, []);
      await context.close();
    });

    it(`on a ${size}: an admin renames the workspace and sets its time zone; a 412 is said in words`, async () => {
      const { context, page, errors } = await newPage(viewport, admin.email);
      await openSection(page, origin, 'Workspace');
      const form = page.getByRole('form', { name: 'Workspace' });
      assert.equal(await form.getByLabel('Name').inputValue(), (await call(ws.admin.key, 'GET', '/v1/workspace')).name);
      const zone = form.getByLabel('Time zone');
      assert.ok(await zone.locator('option[value="America/Chicago"]').count() === 1, 'IANA zones to choose from');
      assert.ok(await zone.locator('option').count() > 300);
      assert.match(await form.getByText(/Used for local times/).innerText(), /reports of such projects print their times in it/);
      const wanted = size === 'desktop' ? 'America/Chicago' : 'Pacific/Auckland';
      await form.getByLabel('Name').fill(`Riverside Builders (${size})`);
      await zone.selectOption(wanted);
      await form.getByText(`Now in ${wanted.replace('_', ' ')}:`).waitFor();
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (size === 'phone') assert.ok(await noSidewaysScroll(page));
      if (size === 'desktop') await page.screenshot({ path: screenshotPath('web-workspace-settings-desktop'), fullPage: true });
      await form.getByRole('button', { name: 'Save workspace' }).click();
      await form.getByRole('status').getByText('The workspace is saved.').waitFor();
      let saved = await call(ws.admin.key, 'GET', '/v1/workspace');
      assert.equal(saved.name, `Riverside Builders (${size})`);
      assert.equal(saved.time_zone, wanted);

      // Someone else renames it meanwhile: the save is refused (If-Match), said in words; Reload shows theirs.
      await call(ws.admin.key, 'PATCH', '/v1/workspace', { name: 'Riverside Builders' });
      await form.getByLabel('Name').fill('Riverside & Sons');
      await form.getByRole('button', { name: 'Save workspace' }).click();
      await form.getByRole('alert').getByText(/Someone else changed the workspace/).waitFor();
      assert.match(await form.getByRole('alert').innerText(), /Nothing was saved/);
      assert.equal((await call(ws.admin.key, 'GET', '/v1/workspace')).name, 'Riverside Builders', 'nothing overwritten');
      await form.getByRole('button', { name: 'Reload' }).click();
      while (await form.getByLabel('Name').inputValue() !== 'Riverside Builders') await new Promise((r) => setTimeout(r, 20));
      await form.getByLabel('Time zone').selectOption('UTC');
      await form.getByRole('button', { name: 'Save workspace' }).click();
      await form.getByRole('status').getByText('The workspace is saved.').waitFor();
      saved = await call(ws.admin.key, 'GET', '/v1/workspace');
      assert.equal(saved.time_zone, 'UTC');
      assert.equal(saved.name, 'Riverside Builders');
      assert.deepEqual(errors, []);
      await context.close();
    });
  }
});
