/**
 * The signed-in web app in Chromium (issue 14): sign in → the projects list (search, status,
 * load more) → a project's page with its photos by day → sign out, on a desktop and a phone.

 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, sessionCookieFor, TEST_PASSWORD, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

const PASSWORD = TEST_PASSWORD;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);
const setPassword = (ws: TestWorkspace, email: string) => userWithPassword(origin, ws, email);

const signInByApi = (context: BrowserContext, email: string) => sessionCookieFor(origin, context, email);

async function uploadPhoto(key: string, projectId: string, capturedAt: string, caption: string) {
  const { payload, headers } = multipart({ captured_at: capturedAt, caption }, { data: await jpegWithExif() });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 201, res.body);
}

describe('the signed-in web app in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `rosa-${Date.now()}@example.test`;
  let harbour: { id: string };

  before(async () => {
    ws = await newWorkspace(t);
    await setPassword(ws, email);
    // 34 active projects (more than the first page of 30) and one archived; the user is a standard
    // member, so the admin puts them on every project's crew.
    const user = (await call(ws.admin.key, 'GET', `/v1/users?limit=100`)).data.find((u: { email: string }) => u.email === email);
    for (let i = 1; i <= 33; i++) {
      const p = await call(ws.admin.key, 'POST', '/v1/projects', { name: `Site ${String(i).padStart(2, '0')}`, address: { city: 'Springfield' } });
      await call(ws.admin.key, 'PUT', `/v1/projects/${p.id}/members/${user.id}`);
    }
    harbour = await call(ws.admin.key, 'POST', '/v1/projects', {
      name: 'Harbour Bridge Retrofit', address: { street_address_1: '1 Quay Street', city: 'Auckland', country: 'NZ' },
    }) as { id: string };
    await call(ws.admin.key, 'PUT', `/v1/projects/${harbour.id}/members/${user.id}`);
    const old = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Old Depot' });
    await call(ws.admin.key, 'PUT', `/v1/projects/${old.id}/members/${user.id}`);
    await call(ws.admin.key, 'POST', `/v1/projects/${old.id}/archive`);
    await uploadPhoto(ws.admin.key, harbour.id, '2026-03-02T14:00:00Z', 'Deck poured');
    await uploadPhoto(ws.admin.key, harbour.id, '2026-03-02T09:00:00Z', 'Formwork');
    await uploadPhoto(ws.admin.key, harbour.id, '2026-03-01T12:00:00Z', 'Site cleared');
    await t.runJobs();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const newPage = (viewport: { width: number; height: number }) => openPage(browser, origin, viewport, null);

  it('on a desktop: signs in with the form, searches, filters, loads more, opens a project, signs out', async () => {
    const { context, page, errors } = await newPage(VIEWPORTS.desktop);
    await page.goto(`${origin}/`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
    assert.ok(await page.getByRole('banner').getByText('Rosa Crew').isVisible(), 'the header names the user');
    assert.ok(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).isVisible());
    const list = page.getByRole('list', { name: 'Projects' });
    const items = list.getByRole('listitem');
    await items.nth(29).waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-projects-desktop') });

    // More on scrolling to the end (or "Load more"): all 34 active projects, the archived one not among them.
    await page.keyboard.press('End');
    await items.nth(33).waitFor();
    assert.equal(await items.count(), 34);
    assert.equal(await list.getByRole('link', { name: /Old Depot/ }).count(), 0);

    await page.getByLabel('Status').selectOption({ label: 'Archived' });
    await list.getByRole('link', { name: /Old Depot/ }).waitFor();
    assert.equal(await items.count(), 1);
    await page.getByLabel('Status').selectOption({ label: 'Active' });
    await page.getByLabel('Search projects').fill('harbour');
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Projects"] > li').length === 1);
    assert.match(await items.innerText(), /Harbour Bridge Retrofit/);
    assert.match(page.url(), /\/projects\?q=harbour$/, 'the search is in the address');

    await page.getByRole('link', { name: /Harbour Bridge Retrofit/ }).click();
    await page.getByRole('heading', { name: 'Harbour Bridge Retrofit', level: 1 }).waitFor();
    assert.match(page.url(), new RegExp(`/projects/${harbour.id}$`));
    assert.ok(await page.getByText('1 Quay Street, Auckland, NZ').isVisible());
    // The timeline: newest day first, each day's photos newest first, thumbnails loaded.
    const days = page.getByRole('region', { name: /2026/ });
    await days.nth(1).waitFor();
    assert.deepEqual(await page.getByRole('heading', { level: 3 }).allInnerTexts(), ['Monday, March 2, 2026', 'Sunday, March 1, 2026']);
    assert.deepEqual(await days.nth(0).getByRole('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).alt)), ['Deck poured', 'Formwork']);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-project-desktop') });

    // Back to the list: the search is still there.
    await page.goBack();
    await page.getByRole('link', { name: /Harbour Bridge Retrofit/ }).waitFor();
    assert.equal(await page.getByLabel('Search projects').inputValue(), 'harbour');
    assert.equal(await items.count(), 1);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Jobsite' }).waitFor();
    const current = await page.evaluate(async () => (await fetch('/v1/sessions/current', { credentials: 'same-origin' })).status);
    assert.equal(current, 401, 'signed out for the server too');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a session from POST /v1/sessions opens a project\'s page directly', async () => {
    const { context, page, errors } = await newPage(VIEWPORTS.phone);
    await signInByApi(context, email);
    await page.goto(`${origin}/projects`);
    await page.getByRole('list', { name: 'Projects' }).getByRole('listitem').nth(9).waitFor();
    await page.screenshot({ path: screenshotPath('web-projects-phone') });
    await page.goto(`${origin}/projects/${harbour.id}`);
    await page.getByRole('heading', { name: 'Harbour Bridge Retrofit', level: 1 }).waitFor();
    await page.getByRole('img', { name: 'Site cleared' }).waitFor();
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    // Nothing wider than the phone: no sideways scrolling.
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-project-phone') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('shows an unknown project in words', async () => {
    const { context, page } = await newPage(VIEWPORTS.phone);
    await signInByApi(context, email);
    await page.goto(`${origin}/projects/prj_00000000000000000000000000`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /not found/i);
    await context.close();
  });
});
