/**
 * Photos that file themselves, in the web app (Chromium): the "Unfiled photos" inbox lists
 * `GET /v1/photos?project_id=none` and moves a photo with its labelled "Move to project" choice;
 * the project form sets a geofence radius (and refuses one without coordinates, in words).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { ensureWebBuilt } from './web-build.ts';
import { callApi, listeningTestApp, openPage, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = !chromiumPath() ? NO_CHROMIUM : false;
after(async () => t.close());

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** A real upload without a project (POST /v1/photos): a JPEG without GPS, so it stays unfiled. */
async function uploadUnfiled(key: string, caption: string, color: string): Promise<Record<string, any>> {
  const form = new FormData();
  form.set('caption', caption);
  form.set('file', new Blob([new Uint8Array(await jpegWithExif({}, 480, 360, color))], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Record<string, any>;
}

describe('unfiled photos in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `rosa-${Date.now()}@example.test`;
  let maple: Record<string, any>;
  let oak: Record<string, any>;

  before(async () => {
    ensureWebBuilt();
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, email);
    maple = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Maple St.', coordinates: { lat: 39.7817, lon: -89.6501 } });
    oak = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Oak Ave.', coordinates: { lat: 39.79, lon: -89.64 } });
    await uploadUnfiled(ws.admin.key, 'North fence', '#886644');
    await uploadUnfiled(ws.admin.key, 'Gate post', '#446688');
    await uploadUnfiled(ws.admin.key, 'Shed roof', '#668844');
    await t.runJobs();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  it('on a phone: lists the unfiled photos and moves one to a project', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.phone, email);
    await page.goto(`${origin}/projects`);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Unfiled photos' }).click();
    await page.getByRole('heading', { name: 'Unfiled photos', level: 1 }).waitFor();
    const list = page.getByRole('list', { name: 'Photos waiting for a project' });
    const fence = list.getByRole('listitem', { name: 'North fence' });
    await fence.waitFor();
    assert.equal(await list.getByRole('listitem').count(), 3);
    await fence.getByRole('img', { name: 'North fence' }).waitFor();
    const choice = fence.getByLabel('Move to project');
    await page.waitForFunction(() => document.querySelectorAll('option').length > 2);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.ok(await fence.getByRole('button', { name: 'Move' }).isDisabled(), 'nothing chosen yet');
    await choice.selectOption({ label: 'Maple St.' });
    await fence.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('status').filter({ hasText: 'Moved “North fence” to Maple St.' }).waitFor();
    await fence.waitFor({ state: 'detached' });
    assert.equal(await list.getByRole('listitem').count(), 2);
    await page.screenshot({ path: screenshotPath('web-unfiled-photos-phone') });
    const unfiled = await call(ws.admin.key, 'GET', '/v1/photos?project_id=none');
    assert.deepEqual(unfiled.data.map((p: Record<string, any>) => p.caption).sort(), ['Gate post', 'Shed roof']);
    const moved = await call(ws.admin.key, 'GET', `/v1/photos?project_id=${maple.id}`);
    assert.deepEqual(moved.data.map((p: Record<string, any>) => p.caption), ['North fence']);
    // The photo page of an unfiled photo leads back to the inbox, and moves it too.
    await list.getByRole('link', { name: 'Gate post' }).click();
    await page.getByRole('link', { name: '← Unfiled photos' }).waitFor();
    const filing = page.getByRole('region', { name: 'Not filed under a project' });
    await page.waitForFunction(() => document.querySelectorAll('option').length > 2);
    await filing.getByLabel('Move to project').selectOption({ label: 'Oak Ave.' });
    await filing.getByRole('button', { name: 'Move' }).click();
    await page.getByText('The photo is now in Oak Ave.').waitFor();
    await page.getByRole('link', { name: '← Oak Ave.' }).waitFor();
    assert.deepEqual((await call(ws.admin.key, 'GET', '/v1/photos?project_id=none')).data.map((p: Record<string, any>) => p.caption), ['Shed roof']);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('finds a project beyond the 100 most recently changed by name, to file into it', async () => {
    const depot = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Zephyr Depot' });
    for (let i = 0; i < 100; i++) await call(ws.admin.key, 'POST', '/v1/projects', { name: `Lot ${i}` });
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, email);
    await page.goto(`${origin}/photos/unfiled`);
    const shed = page.getByRole('list', { name: 'Photos waiting for a project' }).getByRole('listitem', { name: 'Shed roof' });
    await shed.waitFor();
    const choice = shed.getByLabel('Move to project');
    await page.waitForFunction(() => document.querySelectorAll('option').length > 100);
    assert.equal(await choice.locator('option', { hasText: 'Zephyr Depot' }).count(), 0, 'not among the 100 most recent');
    await page.getByLabel('Find a project').fill('zephyr');
    await page.getByText('1 active project matches “zephyr”.').waitFor();
    assert.deepEqual(await choice.locator('option').allTextContents(), ['Choose a project…', 'Zephyr Depot']);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await choice.selectOption({ label: 'Zephyr Depot' });
    await shed.getByRole('button', { name: 'Move' }).click();
    await page.getByRole('status').filter({ hasText: 'Moved “Shed roof” to Zephyr Depot' }).waitFor();
    assert.deepEqual((await call(ws.admin.key, 'GET', `/v1/photos?project_id=${depot.id}`)).data.map((p: Record<string, any>) => p.caption), ['Shed roof']);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: the project form sets a geofence radius, and refuses one without coordinates', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, email);
    await page.goto(`${origin}/projects/${oak.id}`);
    await page.getByRole('button', { name: 'Edit project' }).click();
    const edit = page.getByRole('form', { name: 'Edit project' });
    await edit.getByLabel('Geofence radius in metres').fill('250');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your changes are saved.').waitFor();
    assert.deepEqual((await call(ws.admin.key, 'GET', `/v1/projects/${oak.id}`)).geofence, { radius_m: 250 });

    await page.goto(`${origin}/projects`);
    await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByRole('form', { name: 'New project' });
    await form.getByLabel('Name').fill('Hilltop');
    await form.getByLabel('Geofence radius in metres').fill('100');
    await form.getByRole('button', { name: 'Create project' }).click();
    await form.getByText('A radius is drawn around the coordinates: enter them too, or clear the radius.').waitFor();
    assert.equal(await form.getByLabel('Geofence radius in metres').getAttribute('aria-invalid'), 'true');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
