/**
 * Photo reports in the web app (issue 15), in Chromium: two photos selected in the timeline (one
 * by keyboard) → "Make a report" → the form (the workspace's time zone by default) → queued, then
 * finished once the worker's jobs run, the PDF opened and downloaded and read back; a report from
 * a tag and day filter carried over from the timeline (checked through the API's `selection`); the
 * API's 422 in words; a report that fails, with its reason; paging; and the role rules: Delete
 * only where report.delete allows, and the API's 403 in words for a manager demoted meanwhile.
 * Desktop and phone; axe-core on each screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { parsePdf } from './pdf.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, uploadPhoto, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;

const upload = (key: string, projectId: string, caption: string, capturedAt: string, color: string) => uploadPhoto(origin, key, projectId, caption, capturedAt, color);

describe('photo reports in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const rosa = `rosa-${stamp}@example.test`;
  const mia = `mia-${stamp}@example.test`;
  let miaId: string;
  let project: Json;
  const photo = {} as Record<'north' | 'south' | 'roof' | 'slab' | 'gable', Json>;
  const tag = {} as Record<'Roof' | 'Slab' | 'Old', Json>;
  const call = (method: string, path: string, body?: unknown) => callApi(origin, ws.admin.key, method, path, body);
  const reports = async (projectId = project.id) => (await call('GET', `/v1/projects/${projectId}/reports?limit=100`)).data as Json[];
  const named = async (title: string) => (await reports()).find((r) => r.title === title)!;

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, rosa);
    await userWithPassword(origin, ws, mia, 'manager', { first_name: 'Mia', last_name: 'Manager' });
    miaId = (await call('GET', '/v1/users?limit=100')).data.find((u: Json) => u.email === mia).id;
    await call('PATCH', '/v1/workspace', { time_zone: 'America/Chicago' });
    project = await call('POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    photo.north = await upload(ws.admin.key, project.id, 'North wall', '2026-03-02T15:00:00Z', '#557799');
    photo.south = await upload(ws.admin.key, project.id, 'South wall', '2026-03-03T15:00:00Z', '#887755');
    photo.roof = await upload(ws.admin.key, project.id, 'Roof deck', '2026-03-05T15:00:00Z', '#778855');
    photo.slab = await upload(ws.admin.key, project.id, 'Slab pour', '2026-03-06T15:00:00Z', '#995544');
    photo.gable = await upload(ws.admin.key, project.id, 'Gable end', '2026-02-01T15:00:00Z', '#445566');
    for (const name of ['Roof', 'Slab', 'Old'] as const) tag[name] = await call('POST', '/v1/tags', { name });
    await call('PUT', `/v1/photos/${photo.roof.id}/tags/${tag.Roof.id}`);
    await call('PUT', `/v1/photos/${photo.slab.id}/tags/${tag.Slab.id}`);
    await call('PUT', `/v1/photos/${photo.north.id}/tags/${tag.Slab.id}`); // tagged, but before the days asked for
    await t.runJobs();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const rowOf = (page: Page, title: string) => page.getByRole('list', { name: 'Reports' }).getByRole('listitem').filter({ has: page.getByRole('heading', { name: title, exact: true }) });

  it('on a desktop: two photos selected in the timeline → the form → queued → finished; opened and downloaded, a real PDF', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, rosa);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('link', { name: 'North wall' }).waitFor();
    await page.getByRole('button', { name: 'Select' }).click();
    const selection = page.getByRole('group', { name: 'Selection' });
    await selection.getByRole('status').filter({ hasText: 'No photo selected' }).waitFor();
    assert.equal(await selection.getByRole('button', { name: 'Make a report' }).isDisabled(), true);
    // A tile is now a checkbox named after the photo, not a link; one ticked by mouse, one by keyboard.
    assert.equal(await page.getByRole('link', { name: 'North wall' }).count(), 0);
    await page.getByRole('checkbox', { name: 'North wall' }).check();
    await selection.getByRole('status').filter({ hasText: '1 photo selected' }).waitFor();
    await page.getByRole('checkbox', { name: 'South wall' }).focus();
    await page.keyboard.press('Space');
    await selection.getByRole('status').filter({ hasText: '2 photos selected' }).waitFor();
    assert.equal(await page.getByRole('checkbox', { name: 'South wall' }).isChecked(), true);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.evaluate(() => window.scrollTo(0, 0)); // the selection bar in its place, not where the last scroll left it
    await page.screenshot({ path: screenshotPath('web-reports-select-desktop'), fullPage: true });

    await selection.getByRole('button', { name: 'Make a report' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/reports/new`);
    const form = page.getByRole('form', { name: 'New report' });
    await form.getByText('2 photos chosen in the timeline.').waitFor();
    const zone = form.getByRole('combobox', { name: 'Time zone' });
    await zone.getByRole('option', { name: 'America/Chicago (the workspace’s)' }).waitFor({ state: 'attached' });
    await page.waitForFunction(() => [...document.querySelectorAll('select')].some((s) => s.value === 'America/Chicago'));
    // A blank title is refused before sending.
    await form.getByRole('textbox', { name: 'Title' }).fill('   ');
    await form.getByRole('button', { name: 'Make the report' }).click();
    await form.getByText('Give the report a title.').waitFor();
    assert.equal(await form.getByRole('textbox', { name: 'Title' }).getAttribute('aria-invalid'), 'true');
    await form.getByRole('textbox', { name: 'Title' }).fill('Walls, week 10');
    await form.getByRole('radio', { name: '1 photo per page' }).check();
    await form.getByRole('combobox', { name: 'Page size' }).selectOption({ label: 'A4' });
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-reports-form-desktop'), fullPage: true });
    await form.getByRole('button', { name: 'Make the report' }).click();

    await page.waitForURL(`${origin}/projects/${project.id}/reports`);
    await page.getByRole('status').filter({ hasText: 'The report “Walls, week 10” is queued' }).waitFor();
    const row = rowOf(page, 'Walls, week 10');
    await row.getByText('Queued: waiting to be made').waitFor();
    assert.match(await row.innerText(), /2 photos chosen · Requested by you/);
    assert.equal(await row.getByRole('link', { name: /Open/ }).count(), 0, 'nothing to open yet');
    const asked = await named('Walls, week 10');
    assert.equal(asked.status, 'queued');
    assert.deepEqual([...asked.selection.photo_ids].sort(), [photo.north.id, photo.south.id].sort());
    assert.deepEqual(asked.options, { layout: 1, page_size: 'a4', time_zone: 'America/Chicago', include_annotations: true, include_tasks: false, include_comments: false });

    // The worker renders it (processing, then finished: too quick to catch in between); the page sees it by itself.
    await t.runJobs();
    await row.getByText('Finished', { exact: true }).waitFor();
    await page.getByRole('status').filter({ hasText: 'The report “Walls, week 10”: Finished.' }).waitFor();
    const done = await named('Walls, week 10');
    assert.equal(done.status, 'finished');
    // Finished: no more polling (checked at the end of this test, seconds later).
    const polls: string[] = [];
    page.on('request', (req) => req.url().endsWith(`/v1/reports/${done.id}`) && polls.push(req.url()));
    assert.equal(done.photo_count, 2);
    assert.match(await row.innerText(), new RegExp(`2 photos · ${done.page_count} pages · \\d+ KB`));

    // Open: the signed URL in a new tab, shown inline.
    const open = row.getByRole('link', { name: 'Open “Walls, week 10” (opens in a new tab)' });
    assert.equal(await open.getAttribute('href'), done.url);
    assert.equal(await open.getAttribute('target'), '_blank');
    const inline = await page.request.get(done.url);
    assert.equal(inline.status(), 200);
    assert.equal(inline.headers()['content-type'], 'application/pdf');
    assert.match(inline.headers()['content-disposition']!, /^inline; filename="Walls, week 10\.pdf"/);

    // Download: the download endpoint, with the session cookie; the file is the PDF asked for.
    const [download] = await Promise.all([page.waitForEvent('download'), row.getByRole('link', { name: 'Download “Walls, week 10”' }).click()]);
    assert.equal(download.suggestedFilename(), 'Walls, week 10.pdf');
    const pdf = await parsePdf(fs.readFileSync((await download.path())!));
    assert.equal(pdf.pageCount, done.page_count);
    assert.equal(pdf.title, 'Walls, week 10');
    assert.match(pdf.pages.join(' '), /North wall/);
    assert.match(pdf.pages.join(' '), /South wall/);
    assert.doesNotMatch(pdf.pages.join(' '), /Roof deck/);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-reports-list-desktop'), fullPage: true });
    assert.deepEqual(polls, [], 'a finished report is not read again');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: a report from the timeline\'s tag and day filter, the API\'s 422 in words, and one that fails with its reason', async () => {
    // The admin asks for one the worker cannot render: a photo's image is gone from storage.
    const row0 = await t.db.selectFrom('photos').select('variants').where('id', '=', photo.gable.id).executeTakeFirstOrThrow();
    await t.app.blobs.delete(row0.variants.large!.key);
    const broken = await call('POST', `/v1/projects/${project.id}/reports`, { title: 'Gable survey', photo_ids: [photo.gable.id] });

    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, rosa);
    await page.goto(`${origin}/projects/${project.id}?tag=${tag.Roof.id}&from=2026-03-04`);
    await page.getByRole('link', { name: 'Roof deck' }).waitFor();
    await page.getByRole('button', { name: 'Make a report from this filter' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/reports/new?tag=${tag.Roof.id}&from=2026-03-04`);
    const form = page.getByRole('form', { name: 'New report' });
    await form.getByRole('checkbox', { name: 'Roof' }).waitFor();
    assert.equal(await form.getByRole('checkbox', { name: 'Roof' }).isChecked(), true, 'the timeline\'s tag carried over');
    assert.equal(await form.getByLabel('From', { exact: true }).inputValue(), '2026-03-04');
    await form.getByRole('checkbox', { name: 'Slab' }).check();
    await form.getByLabel('To', { exact: true }).fill('2026-03-06');
    await form.getByRole('textbox', { name: 'Title' }).fill('Roof and slab');
    await form.getByRole('combobox', { name: 'Time zone' }).selectOption({ value: '' });
    await form.getByRole('button', { name: 'Make the report' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/reports`);
    const asked = await named('Roof and slab');
    assert.deepEqual(asked.selection, {
      photo_ids: null, captured_after: '2026-03-04T00:00:00.000Z', captured_before: '2026-03-07T00:00:00.000Z', tag_ids: [tag.Roof.id, tag.Slab.id],
    });
    assert.equal(asked.options.time_zone, null, 'each photo in its own zone');

    // Someone else's report: listed with who asked, but a standard user may not delete it.
    const gable = rowOf(page, 'Gable survey');
    await gable.getByText('Queued: waiting to be made').waitFor();
    assert.match(await gable.innerText(), new RegExp(`Requested by @${ws.admin.handle}`));
    assert.equal(await gable.getByRole('button', { name: /Delete/ }).count(), 0);
    await rowOf(page, 'Roof and slab').getByRole('button', { name: 'Delete “Roof and slab”' }).waitFor();

    await t.runJobs();
    await rowOf(page, 'Roof and slab').getByText('Finished', { exact: true }).waitFor();
    assert.equal((await named('Roof and slab')).photo_count, 2, 'Roof deck and Slab pour, not North wall (tagged, too early)');
    await gable.getByText(new RegExp(`^Failed: .*${photo.gable.id}.*missing from storage`)).waitFor();
    assert.equal(await gable.getByRole('link').count(), 0, 'no PDF to open');
    assert.equal((await call('GET', `/v1/reports/${broken.id}`)).status, 'failed');

    // A tag deleted while the form is open: the API's 422, in its words; nothing is asked for.
    const before = (await reports()).length;
    await page.getByRole('button', { name: 'New report' }).click();
    await form.getByRole('checkbox', { name: 'Old' }).check();
    await call('DELETE', `/v1/tags/${tag.Old.id}`);
    await form.getByRole('button', { name: 'Make the report' }).click();
    await form.getByRole('alert').filter({ hasText: `No tag "${tag.Old.id}" in this workspace.` }).waitFor();
    assert.equal((await reports()).length, before);
    assert.equal(page.url(), `${origin}/projects/${project.id}/reports/new`, 'the form stays, as filled in');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Cancel' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/reports`);
    await gable.waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-reports-failed-desktop'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: select and make a report, no sideways scrolling; a manager deletes, and gets the API\'s 403 in words once demoted', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.phone, mia, { hasTouch: true });
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('button', { name: 'Select' }).click();
    await page.getByRole('checkbox', { name: 'Slab pour' }).check();
    await page.getByRole('group', { name: 'Selection' }).getByRole('status').filter({ hasText: '1 photo selected' }).waitFor();
    assert.ok(await noSidewaysScroll(page));
    await page.screenshot({ path: screenshotPath('web-reports-select-phone') });
    await page.getByRole('button', { name: 'Make a report' }).click();
    const form = page.getByRole('form', { name: 'New report' });
    await form.getByText('1 photo chosen in the timeline.').waitFor();
    await form.getByRole('textbox', { name: 'Title' }).fill('Slab pour, day 1');
    assert.ok(await noSidewaysScroll(page));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await form.getByRole('button', { name: 'Make the report' }).click();
    const mine = rowOf(page, 'Slab pour, day 1');
    await mine.getByText('Queued: waiting to be made').waitFor();
    await t.runJobs();
    await mine.getByText('Finished', { exact: true }).waitFor();
    assert.ok(await noSidewaysScroll(page));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-reports-list-phone'), fullPage: true });

    // A manager may delete anyone's report: Rosa's shows Delete. Demoted meanwhile, she gets the API's 403.
    const rosas = rowOf(page, 'Roof and slab');
    await rosas.getByRole('button', { name: 'Delete “Roof and slab”' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete the report “Roof and slab”?' });
    await dialog.waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await rosas.getByRole('button', { name: 'Delete “Roof and slab”' }).evaluate((el) => el === document.activeElement), 'focus back on Delete');
    await call('PATCH', `/v1/users/${miaId}`, { role: 'standard' });
    await rosas.getByRole('button', { name: 'Delete “Roof and slab”' }).click();
    await dialog.getByRole('button', { name: 'Delete report' }).click();
    await rosas.getByRole('alert').filter({ hasText: 'Forbidden' }).waitFor();
    assert.match(await rosas.getByRole('alert').innerText(), /standard/);
    assert.equal((await named('Roof and slab')).status, 'finished', 'still there');
    await page.reload();
    await rowOf(page, 'Slab pour, day 1').waitFor();
    assert.equal(await rowOf(page, 'Roof and slab').getByRole('button', { name: /Delete/ }).count(), 0, 'a standard user: not on others\' reports');

    // Her own she may delete.
    const own = await named('Slab pour, day 1');
    await rowOf(page, 'Slab pour, day 1').getByRole('button', { name: 'Delete “Slab pour, day 1”' }).click();
    await page.getByRole('dialog', { name: 'Delete the report “Slab pour, day 1”?' }).getByRole('button', { name: 'Delete report' }).click();
    await page.getByRole('status').filter({ hasText: 'The report “Slab pour, day 1” is deleted.' }).waitFor();
    assert.equal(await rowOf(page, 'Slab pour, day 1').count(), 0);
    const gone = await fetch(`${origin}/v1/reports/${own.id}`, { headers: { authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(gone.status, 404);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('pages through a long list of past reports', async () => {
    const other = await call('POST', '/v1/projects', { name: 'Pier 9 Storage' });
    // Left queued (no job run): the list pages the same, and polls the unfinished ones meanwhile.
    for (let i = 1; i <= 21; i++) await call('POST', `/v1/projects/${other.id}/reports`, { title: `Weekly report ${String(i).padStart(2, '0')}` });
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, rosa);
    await page.goto(`${origin}/projects/${other.id}/reports`);
    const list = page.getByRole('list', { name: 'Reports' });
    await rowOf(page, 'Weekly report 21').waitFor();
    assert.equal(await list.getByRole('listitem').count(), 20);
    await page.getByRole('button', { name: 'Load more reports' }).click();
    await rowOf(page, 'Weekly report 01').waitFor();
    assert.equal(await list.getByRole('listitem').count(), 21);
    assert.equal(await page.getByRole('button', { name: 'Load more reports' }).count(), 0);
    // They are queued (no job ran): the page reads them again about every second at first…
    const polls: string[] = [];
    page.on('request', (req) => /\/v1\/reports\/rep_[0-9a-z]+$/.test(req.url()) && polls.push(req.url()));
    await page.waitForRequest((req) => /\/v1\/reports\/rep_[0-9a-z]+$/.test(req.url()));
    // …and not once the section is left (the next round was due within a second or two).
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Photos' }).click();
    await page.getByRole('heading', { name: 'Photos and videos' }).waitFor();
    const left = polls.length;
    await page.waitForTimeout(3000);
    assert.equal(polls.length, left, 'no report read after leaving the page');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
