/**
 * Share links and photo exports in the web app (issue 17's field APIs, for people), in Chromium:
 * two photos selected in the timeline → Share with downloads allowed → the link copied → opened in
 * a fresh browser (no cookie): exactly those two photos → revoked in the Share links section → the
 * page answers 410; a finished report shared from the Reports section; an export of the selection
 * polled to "Download ZIP", downloaded through the link and read back (`unzip`: the originals byte
 * for byte and the manifests); an export from the timeline's tag filter; a failed export in words.
 * A restricted crew member (who may share, and revoke only their own links, but not export) on a
 * phone is not offered what the API would refuse. axe-core on every screen.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, uploadPhoto, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;
const DAY_MS = 86_400_000;

describe('share links and exports in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const rosa = `rosa-${stamp}@example.test`;
  const rex = `rex-${stamp}@example.test`;
  let project: Json;
  let report: Json;
  let roofTag: Json;
  const photo = {} as Record<'north' | 'south' | 'roof' | 'gable' | 'scaffold', Json>;
  const call = (method: string, path: string, body?: unknown) => callApi(origin, ws.admin.key, method, path, body);
  const links = async () => (await call('GET', `/v1/share-links?project_id=${project.id}&limit=100`)).data as Json[];
  const exportsOf = async () => (await call('GET', `/v1/projects/${project.id}/exports?limit=100`)).data as Json[];

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, rosa);
    const rexUser = await userWithPassword(origin, ws, rex, 'restricted', { first_name: 'Rex', last_name: 'Outsider' });
    project = await call('POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    await call('PUT', `/v1/projects/${project.id}/members/${rexUser.id}`);
    photo.north = await uploadPhoto(origin, ws.admin.key, project.id, 'North wall', '2026-03-02T15:00:00Z', '#557799');
    photo.south = await uploadPhoto(origin, ws.admin.key, project.id, 'South wall', '2026-03-03T15:00:00Z', '#887755');
    photo.roof = await uploadPhoto(origin, ws.admin.key, project.id, 'Roof deck', '2026-03-05T15:00:00Z', '#778855');
    photo.gable = await uploadPhoto(origin, ws.admin.key, project.id, 'Gable end', '2026-02-01T15:00:00Z', '#445566');
    photo.scaffold = await uploadPhoto(origin, ws.admin.key, project.id, 'Scaffold', '2026-03-04T15:00:00Z', '#665544');
    roofTag = await call('POST', '/v1/tags', { name: 'Roof' });
    await call('PUT', `/v1/photos/${photo.roof.id}/tags/${roofTag.id}`);
    report = await call('POST', `/v1/projects/${project.id}/reports`, { title: 'Walls, week 10', photo_ids: [photo.north.id, photo.south.id] });
    await t.runJobs();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const linkRow = (page: Page, what: string) => page.getByRole('list', { name: 'Share links' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: what, exact: true }) });

  it('on a desktop: two photos shared with downloads, the copied link opened without an account, then revoked (410)', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, rosa, { permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('link', { name: 'North wall' }).waitFor();
    await page.getByRole('button', { name: 'Select' }).click();
    const selection = page.getByRole('group', { name: 'Selection' });
    assert.equal(await selection.getByRole('button', { name: 'Share' }).isDisabled(), true, 'nothing to share yet');
    await page.getByRole('checkbox', { name: 'North wall' }).check();
    await page.getByRole('checkbox', { name: 'South wall' }).check();
    await selection.getByRole('status').filter({ hasText: '2 photos selected' }).waitFor();
    await selection.getByRole('button', { name: 'Share' }).click();

    const dialog = page.getByRole('dialog', { name: 'Share 2 photos' });
    await dialog.waitFor();
    // Keyboard: the focus starts on the chosen expiry (30 days, the API's default); arrows move it.
    assert.equal(await dialog.getByRole('radio', { name: 'For 30 days' }).evaluate((el) => el === document.activeElement), true);
    await page.keyboard.press('ArrowUp');
    assert.equal(await dialog.getByRole('radio', { name: 'For 7 days' }).isChecked(), true);
    // "Until a date" asks for the day; an empty one is refused before sending.
    await dialog.getByRole('radio', { name: 'Until a date' }).check();
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.getByText('Choose the last day the link works.').waitFor();
    assert.equal(await dialog.getByLabel('Last day it works').getAttribute('aria-invalid'), 'true');
    assert.equal((await links()).length, 0, 'nothing was sent');
    await dialog.getByRole('radio', { name: 'For 7 days' }).check();
    await dialog.getByRole('checkbox', { name: 'Allow downloads' }).check();
    assert.deepEqual(await seriousAxeViolations(page), []);
    const asked = Date.now();
    await dialog.getByRole('button', { name: 'Create link' }).click();

    // The same dialog now shows the link (and is named after it).
    const ready = page.getByRole('dialog', { name: 'Link ready' });
    await ready.waitFor();
    assert.equal(await ready.getByRole('heading', { name: 'Link ready' }).evaluate((el) => el === document.activeElement), true, 'focus on the result');
    const [made] = await links();
    assert.ok(made);
    assert.deepEqual([...made.photo_ids].sort(), [photo.north.id, photo.south.id].sort());
    assert.equal(made.allow_download, true);
    assert.ok(Math.abs(Date.parse(made.expires_at) - (asked + 7 * DAY_MS)) < 60_000, `7 days on: ${made.expires_at}`);
    const field = ready.getByRole('textbox', { name: 'Share link' });
    assert.equal(await field.inputValue(), made.url);
    assert.equal(await field.getAttribute('readonly'), '');
    await ready.getByRole('button', { name: 'Copy link' }).click();
    await ready.getByRole('status').filter({ hasText: 'The link is copied.' }).waitFor();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    assert.equal(copied, made.url);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath('web-share') });
    await ready.getByRole('button', { name: 'Done' }).click();
    assert.equal(await ready.isVisible(), false);
    assert.equal(await selection.getByRole('button', { name: 'Share' }).evaluate((el) => el === document.activeElement), true, 'focus back on Share');

    // The copied address in a browser with no session: exactly the two photos, downloads offered.
    const stranger = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-US', timezoneId: 'UTC' });
    const outside = await stranger.newPage();
    assert.equal((await outside.goto(copied))?.status(), 200);
    await outside.getByRole('heading', { level: 1, name: 'Harbour Bridge Retrofit' }).waitFor();
    assert.deepEqual((await outside.getByRole('img').evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).alt))).sort(), ['North wall', 'South wall']);
    assert.equal(await outside.getByRole('link', { name: 'Download original' }).count(), 2);
    assert.equal(await outside.getByText('Roof deck').count(), 0);

    // The Share links section: what it shares, who, expiry, views; Revoke asks first.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Share links' }).click();
    const row = linkRow(page, '2 photos');
    await row.getByText('Opened 1 time').waitFor();
    assert.match(await row.innerText(), /Active[\s\S]*Made by you[\s\S]*Downloads allowed[\s\S]*Works until/);
    assert.equal(await row.getByRole('textbox', { name: 'Link to 2 photos' }).inputValue(), made.url);
    await row.getByRole('button', { name: 'Revoke the link to 2 photos' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke the link to 2 photos?' });
    await confirm.waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.keyboard.press('Escape');
    assert.equal((await call('GET', `/v1/share-links/${made.id}`)).status, 'active', 'Escape keeps it');
    assert.equal(await row.getByRole('button', { name: 'Revoke the link to 2 photos' }).evaluate((el) => el === document.activeElement), true);
    await row.getByRole('button', { name: 'Revoke the link to 2 photos' }).click();
    await confirm.getByRole('button', { name: 'Revoke link' }).click();
    await page.getByRole('status').filter({ hasText: 'The link to 2 photos is revoked' }).waitFor();
    await row.getByText('Revoked', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button', { name: /Revoke/ }).count(), 0);
    assert.equal(await row.getByRole('textbox').count(), 0, 'no address to copy any more');
    const revoked = await call('GET', `/v1/share-links/${made.id}`);
    assert.equal(revoked.status, 'revoked');
    const gone = await outside.goto(copied);
    assert.equal(gone?.status(), 410);
    await outside.getByRole('heading', { level: 1, name: 'This link has been turned off' }).waitFor();
    assert.equal(await outside.getByRole('img').count(), 0);
    await stranger.close();

    // A finished report, shared from the Reports section, until turned off.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('button', { name: 'Share “Walls, week 10”' }).click();
    const reportDialog = page.getByRole('dialog', { name: 'Share the report “Walls, week 10”' });
    await reportDialog.getByRole('radio', { name: 'Until I turn it off' }).check();
    await reportDialog.getByRole('button', { name: 'Create link' }).click();
    const reportReady = page.getByRole('dialog', { name: 'Link ready' });
    await reportReady.waitFor();
    const reportLink = (await links()).find((l) => l.report_id === report.id)!;
    assert.equal(reportLink.expires_at, null);
    assert.equal(reportLink.allow_download, false);
    await reportReady.getByText('Works until turned off').waitFor();
    await reportReady.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Share links' }).click();
    await linkRow(page, 'Report “Walls, week 10”').getByText('Not opened yet').waitFor();
    // The status filter is the API's.
    await page.getByRole('combobox', { name: 'Show' }).selectOption({ label: 'Revoked' });
    await linkRow(page, '2 photos').waitFor();
    assert.equal(await linkRow(page, 'Report “Walls, week 10”').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: the selection exported, polled to "Download ZIP", the ZIP holds the originals; a filter export; a failure in words', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, rosa);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('link', { name: 'North wall' }).waitFor();
    await page.getByRole('button', { name: 'Select' }).click();
    await page.getByRole('checkbox', { name: 'North wall' }).check();
    await page.getByRole('checkbox', { name: 'Roof deck' }).check();
    await page.getByRole('group', { name: 'Selection' }).getByRole('button', { name: 'Export selected (ZIP)' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/exports/new`);
    const form = page.getByRole('form', { name: 'Export photos (ZIP)' });
    await form.getByText('2 photos chosen in the timeline.').waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Start export' }).click();

    await page.waitForURL(`${origin}/projects/${project.id}/exports`);
    await page.getByRole('status').filter({ hasText: 'is queued' }).waitFor();
    const asked = (await exportsOf())[0]!;
    assert.equal(asked.status, 'queued');
    assert.deepEqual([...asked.selection.photo_ids].sort(), [photo.north.id, photo.roof.id].sort());
    const row = page.getByRole('list', { name: 'Exports' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: asked.file_name }) });
    await row.getByText('Queued: waiting to start').waitFor();
    assert.equal(await row.getByRole('link', { name: /Download ZIP/ }).count(), 0);
    const polls: string[] = [];
    page.on('request', (req) => req.url().endsWith(`/v1/exports/${asked.id}`) && polls.push(req.url()));

    await t.runJobs();
    const download = row.getByRole('link', { name: `Download ZIP “${asked.file_name}”` });
    await download.waitFor();
    await page.getByRole('status').filter({ hasText: `The export “${asked.file_name}”: Finished.` }).waitFor();
    assert.match(await row.innerText(), /2 photos · \d+ KB · Requested by you/);
    assert.match(await row.innerText(), /Kept until \w/, 'when the server will delete it');
    assert.ok(polls.length >= 1, 'the page asked about it by itself');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-export') });

    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    assert.equal(file.suggestedFilename(), asked.file_name);
    const zip = (await file.path())!;
    const listed = spawnSync('unzip', ['-Z1', zip], { encoding: 'utf8' });
    assert.equal(listed.status, 0, `unzip -Z1: ${listed.stderr}`);
    const names = listed.stdout.trim().split('\n').sort();
    assert.deepEqual(names, ['2026-03-02 1500 North wall.jpg', '2026-03-05 1500 Roof deck.jpg', 'photos.csv', 'photos.json']);
    for (const [name, original] of [['2026-03-02 1500 North wall.jpg', photo.north], ['2026-03-05 1500 Roof deck.jpg', photo.roof]] as const) {
      const bytes = spawnSync('unzip', ['-p', zip, name]).stdout;
      assert.equal(crypto.createHash('sha256').update(bytes).digest('hex'), (await call('GET', `/v1/photos/${original.id}`)).sha256, `${name} is the original`);
    }
    const manifest = JSON.parse(spawnSync('unzip', ['-p', zip, 'photos.json'], { encoding: 'utf8' }).stdout);
    assert.equal(manifest.export.photo_count, 2);
    const pollsWhenDone = polls.length;

    // From the timeline's tag filter: "Export photos (ZIP)" carries it into the form.
    await page.goto(`${origin}/projects/${project.id}?tag=${roofTag.id}`);
    await page.getByRole('link', { name: 'Roof deck' }).waitFor();
    await page.getByRole('button', { name: 'Export photos (ZIP)' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/exports/new?tag=${roofTag.id}`);
    const filterForm = page.getByRole('form', { name: 'Export photos (ZIP)' });
    await filterForm.getByRole('checkbox', { name: 'Roof' }).waitFor();
    assert.equal(await filterForm.getByRole('checkbox', { name: 'Roof' }).isChecked(), true);
    await filterForm.getByLabel('Taken from').fill('2026-03-01');
    await filterForm.getByRole('button', { name: 'Start export' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/exports`);
    const filtered = (await exportsOf())[0]!;
    assert.deepEqual(filtered.selection, { photo_ids: null, captured_after: '2026-03-01T00:00:00.000Z', captured_before: null, tag_ids: [roofTag.id] });

    // One whose original is gone from storage fails, and the row says why.
    const blob = await t.db.selectFrom('photos').select('blob_key').where('id', '=', photo.gable.id).executeTakeFirstOrThrow();
    await t.app.blobs.delete(blob.blob_key);
    const broken = await call('POST', `/v1/projects/${project.id}/exports`, { photo_ids: [photo.gable.id] });
    await page.reload();
    const brokenRow = page.getByRole('list', { name: 'Exports' }).getByRole('listitem').nth(0);
    await brokenRow.getByText('Queued: waiting to start').waitFor();
    await t.runJobs();
    await brokenRow.getByText(`Failed: the original of photo ${photo.gable.id} is missing from storage`).waitFor();
    assert.equal(await brokenRow.getByRole('link').count(), 0, 'nothing to download');
    assert.equal((await call('GET', `/v1/exports/${broken.id}`)).status, 'failed');
    await page.getByRole('list', { name: 'Exports' }).getByRole('link', { name: /Download ZIP/ }).nth(1).waitFor(); // the filter export finished too
    // Nothing pending: no more polling, and none after the section is left.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Photos' }).click();
    await page.waitForTimeout(2500);
    assert.equal(polls.length, pollsWhenDone, 'no polling once finished');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a restricted crew member may share and revoke their own link, not export, and not revoke others\' links', async () => {
    // 375 px: the narrowest phone the app is made for.
    const { context, page, errors } = await openPage(browser, origin, { width: 375, height: 812 }, rex, {
      hasTouch: true,
      // A browser that refuses the clipboard: Copy link selects the address instead.
      permissions: [],
    });
    // (A string: tsx would wrap a function's inner functions in a helper the page does not have.)
    await page.addInitScript(`Object.defineProperty(navigator, 'clipboard', { value: { writeText: () => Promise.reject(new DOMException('Not allowed', 'NotAllowedError')) } });`);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('link', { name: 'South wall' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Export photos (ZIP)' }).count(), 0);
    await page.getByRole('button', { name: 'Select' }).tap();
    await page.getByRole('checkbox', { name: 'South wall' }).tap();
    await page.getByRole('checkbox', { name: 'Scaffold' }).tap();
    const selection = page.getByRole('group', { name: 'Selection' });
    await selection.getByRole('status').filter({ hasText: '2 photos selected' }).waitFor();
    assert.equal(await selection.getByRole('button', { name: /Export/ }).count(), 0);
    // One of them is deleted meanwhile: the API's 422 in words in the dialog, nothing made.
    await call('DELETE', `/v1/photos/${photo.scaffold.id}`);
    const before = (await links()).length;
    await selection.getByRole('button', { name: 'Share' }).tap();
    const two = page.getByRole('dialog', { name: 'Share 2 photos' });
    await two.getByRole('button', { name: 'Create link' }).tap();
    await two.getByRole('alert').filter({ hasText: `Photo "${photo.scaffold.id}" is not a photo of project` }).waitFor();
    assert.equal((await links()).length, before);
    await two.getByRole('button', { name: 'Cancel' }).tap();
    await page.getByRole('checkbox', { name: 'Scaffold' }).tap();
    await selection.getByRole('status').filter({ hasText: '1 photo selected' }).waitFor();
    await selection.getByRole('button', { name: 'Share' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Share 1 photo' });
    await dialog.getByRole('button', { name: 'Create link' }).tap();
    const ready = page.getByRole('dialog', { name: 'Link ready' });
    await ready.waitFor();
    const mine = (await links()).find((l) => l.photo_ids.length === 1 && l.photo_ids[0] === photo.south.id)!;
    assert.equal(mine.allow_download, false);
    assert.ok(Math.abs(Date.parse(mine.expires_at) - (Date.now() + 30 * DAY_MS)) < 120_000, 'the default: 30 days');
    assert.ok(await noSidewaysScroll(page), 'the dialog fits the phone');
    await ready.getByRole('button', { name: 'Copy link' }).tap();
    await ready.getByRole('status').filter({ hasText: 'The link is selected: press Ctrl+C' }).waitFor();
    assert.equal(await page.evaluate(() => String(window.getSelection()) || (document.activeElement as HTMLInputElement).value.slice(
      (document.activeElement as HTMLInputElement).selectionStart!, (document.activeElement as HTMLInputElement).selectionEnd!)), mine.url, 'the whole address selected');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await ready.getByRole('button', { name: 'Done' }).tap();

    // The public page of this link at phone width (docs/images/share-page-phone.png).
    const stranger = await browser.newContext({ viewport: VIEWPORTS.phone, locale: 'en-US', timezoneId: 'UTC', hasTouch: true });
    const outside = await stranger.newPage();
    assert.equal((await outside.goto(mine.url))?.status(), 200);
    await outside.getByRole('img', { name: 'South wall' }).waitFor();
    await outside.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    assert.equal(await outside.getByRole('link', { name: 'Download original' }).count(), 0, 'downloads not allowed');
    assert.ok(await noSidewaysScroll(outside));
    await outside.screenshot({ path: screenshotPath('share-page-phone') });
    await stranger.close();

    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Share links' }).tap();
    const own = linkRow(page, '1 photo');
    await own.getByText('Made by you').waitFor();
    await linkRow(page, 'Report “Walls, week 10”').getByText(/Made by Rosa Crew/).waitFor();
    assert.equal(await linkRow(page, 'Report “Walls, week 10”').getByRole('button', { name: /Revoke/ }).count(), 0, 'Rosa\'s link: not his to revoke');
    assert.ok(await noSidewaysScroll(page));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-share-links-phone'), fullPage: true });
    await own.getByRole('button', { name: 'Revoke the link to 1 photo' }).tap();
    await page.getByRole('dialog', { name: 'Revoke the link to 1 photo?' }).getByRole('button', { name: 'Revoke link' }).tap();
    await own.getByText('Revoked', { exact: true }).waitFor();
    assert.equal((await call('GET', `/v1/share-links/${mine.id}`)).status, 'revoked');

    // Exports: listed and downloadable, but no new ones (the API's 403 for restricted users).
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Exports' }).tap();
    await page.getByRole('list', { name: 'Exports' }).getByRole('link', { name: /Download ZIP/ }).first().waitFor();
    assert.equal(await page.getByRole('button', { name: 'Export photos (ZIP)' }).count(), 0);
    await page.getByText('Your role may download them, not make new ones.').waitFor();
    assert.ok(await noSidewaysScroll(page));
    await page.goto(`${origin}/projects/${project.id}/exports/new`);
    await page.getByText('Your role (restricted) may not export photos.').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Start export' }).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
