/**
 * Creating and editing projects in the web app, in Chromium: "New project" → the form → the new
 * project's page; "Edit project" (PATCH with If-Match; a 412 in words); Archive and Restore; the
 * coordinates checked before sending; the API's field errors next to their fields; axe-core on the form.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, TEST_PASSWORD, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = !chromiumPath() ? NO_CHROMIUM : false;
after(async () => t.close());

const PASSWORD = TEST_PASSWORD;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

const signInByApi = (context: BrowserContext, email: string) => sessionCookieFor(origin, context, email);

describe('creating and editing projects in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `rosa-${Date.now()}@example.test`;

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, email);
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function signedInPage(viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[]; writes: Array<{ method: string; url: string; ifMatch?: string }> }> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    await signInByApi(context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    const writes: Array<{ method: string; url: string; ifMatch?: string }> = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('request', (req) => {
      if (req.method() !== 'GET' && req.url().includes('/v1/projects')) writes.push({ method: req.method(), url: req.url(), ifMatch: req.headers()['if-match'] });
    });
    return { context, page, errors, writes };
  }

  it('on a desktop: creates a project with the form, edits its city, archives and restores it; a 412 is shown in words', async () => {
    const { context, page, errors, writes } = await signedInPage(VIEWPORTS.desktop);
    await page.goto(`${origin}/projects`);
    await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByRole('form', { name: 'New project' });
    await form.waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);

    // Nothing typed: refused in words before sending.
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText('Enter a name.').waitFor();
    assert.equal(await form.getByLabel('Name').getAttribute('aria-invalid'), 'true');
    assert.equal(writes.length, 0, 'nothing sent');

    // The API's own field errors (a 201-character name) show next to the field.
    await form.getByLabel('Name').fill('x'.repeat(201));
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText(/^Name must NOT have more than 200 characters/).waitFor();
    assert.equal(writes.length, 1);

    await form.getByLabel('Name').fill('Riverside Clinic');
    assert.equal(await form.getByLabel('Name').getAttribute('aria-invalid'), null, 'the problem goes once the field changes');
    await form.getByLabel('Street').fill('12 Mill Road');
    await form.getByLabel('City').fill('Hamilton');
    await form.getByLabel('State').fill('Waikato');
    await form.getByLabel('Postal code').fill('3204');
    await form.getByLabel('Country').fill('NZ');
    await page.screenshot({ path: screenshotPath('web-project-new-desktop') });
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Riverside Clinic', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    assert.match(id, /^prj_/);
    assert.ok(await page.getByText('12 Mill Road, Hamilton, Waikato 3204, NZ').isVisible());
    const created = await call(ws.admin.key, 'GET', `/v1/projects/${id}`);
    assert.equal(created.coordinates, null);
    assert.equal(created.address.city, 'Hamilton');

    // Edit the city: pre-filled, sent as a PATCH with If-Match.
    await page.getByRole('button', { name: 'Edit project' }).click();
    const edit = page.getByRole('form', { name: 'Edit project' });
    assert.equal(await edit.getByLabel('Name').inputValue(), 'Riverside Clinic');
    assert.equal(await edit.getByLabel('Street').inputValue(), '12 Mill Road');
    await edit.getByLabel('City').fill('Cambridge');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('12 Mill Road, Cambridge, Waikato 3204, NZ').waitFor();
    await page.getByText('Your changes are saved.').waitFor();
    const patch = writes.find((w) => w.method === 'PATCH')!;
    assert.match(patch.ifMatch ?? '', /^".+"$/, 'the PATCH carries If-Match');
    assert.equal((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).address.city, 'Cambridge');

    // Someone else changes it while the form is open: 412 in words, nothing overwritten; Reload shows theirs.
    await page.getByRole('button', { name: 'Edit project' }).click();
    await edit.getByLabel('City').fill('Te Awamutu');
    await call(ws.admin.key, 'PATCH', `/v1/projects/${id}`, { address: { city: 'Ohaupo' } });
    await edit.getByRole('button', { name: 'Save changes' }).click();
    const alert = edit.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /Someone else changed this project; reload/);
    assert.equal((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).address.city, 'Ohaupo');
    await alert.getByRole('button', { name: 'Reload' }).click();
    await page.waitForFunction(() => (document.querySelector('input[name="city"]') as HTMLInputElement | null)?.value === 'Ohaupo');
    await edit.getByLabel('City').fill('Te Awamutu');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('12 Mill Road, Te Awamutu, Waikato 3204, NZ').waitFor();

    // Archive, then restore.
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('The project is archived.').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).status, 'archived');
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('The project is restored.').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).status, 'active');
    await page.getByRole('button', { name: 'Archive' }).waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a bad latitude is refused in words before sending; one with coordinates is created', async () => {
    const { context, page, errors, writes } = await signedInPage(VIEWPORTS.phone);
    await page.goto(`${origin}/projects`);
    await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByRole('form', { name: 'New project' });
    await form.getByLabel('Name').fill('Summit Hut');
    await form.getByLabel('Latitude').fill('95');
    await form.getByLabel('Longitude').fill('170.1');
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText('Latitude must be a number from -90 to 90.').waitFor();
    assert.equal(await form.getByLabel('Latitude').getAttribute('aria-invalid'), 'true');
    assert.ok(await page.evaluate(() => document.activeElement?.getAttribute('name') === 'lat'), 'focus on the latitude');
    // Only one of the two: refused as well.
    await form.getByLabel('Latitude').fill('');
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText('Enter a latitude too, or clear the longitude.').waitFor();
    assert.equal(writes.length, 0, 'nothing sent');
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
    await page.screenshot({ path: screenshotPath('web-project-new-phone') });

    await form.getByLabel('Latitude').fill('-43.595');
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Summit Hut', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    assert.deepEqual((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).coordinates, { lat: -43.595, lon: 170.1 });
    assert.ok(await page.getByText('-43.595, 170.1').isVisible());
    assert.deepEqual(errors, []);
    await context.close();
  });
});
