/**
 * Search in the web app (issue 17), in Chromium: the header's box on any page → /search with the
 * best hits across projects, photo captions, tasks, comments and documents (a text file's words,
 * found once the extraction job ran), the matched words marked; "Look in" narrows to one kind; a
 * hit opens its page (a task in its project, a comment on its photo); accents and case do not
 * matter; a phrase and an exclusion; a restricted user on a phone sees only her project's hits.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, uploadPhoto, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;

describe('search in the web app', { skip: SKIP, timeout: 120_000 }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const admin = `ada-${stamp}@example.test`;
  const rex = `rex-${stamp}@example.test`;
  let harbour: Json;
  let cafe: Json;
  let photo: Json;
  let task: Json;
  let comment: Json;
  let notes: Json;
  let cafeTask: Json;
  const call = (method: string, path: string, body?: unknown) => callApi(origin, ws.admin.key, method, path, body);

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, admin, 'admin', { first_name: 'Ada', last_name: 'Office' });
    const rexUser = await userWithPassword(origin, ws, rex, 'restricted', { first_name: 'Rex', last_name: 'Helper' });
    harbour = await call('POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    cafe = await call('POST', '/v1/projects', { name: 'Café Müller Fit-out' });
    await call('PUT', `/v1/projects/${harbour.id}/members/${rexUser.id}`);
    photo = await uploadPhoto(origin, ws.admin.key, harbour.id, 'Rebar spacing at the north pier', '2026-03-03T09:00:00Z', '#557799');
    task = await call('POST', `/v1/projects/${harbour.id}/tasks`, { title: 'Inspect rebar cover before the pour' });
    comment = await call('POST', `/v1/photos/${photo.id}/comments`, { body: 'The rebar looks short by the south abutment' });
    cafeTask = await call('POST', `/v1/projects/${cafe.id}/tasks`, { title: 'Order rebar for the café counter' });
    const form = new FormData();
    form.set('file', new Blob(['Pour schedule\nDay 3: tie the rebar mats, then the inspector signs off.\n'], { type: 'text/plain' }), 'site notes.txt');
    const res = await fetch(`${origin}/v1/projects/${harbour.id}/documents`, { method: 'POST', headers: { authorization: `Bearer ${ws.admin.key}` }, body: form });
    assert.equal(res.status, 201, await res.clone().text());
    notes = await res.json() as Json;
    await t.runJobs(); // the photo's variants and the text file's words
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const results = (page: Page) => page.getByRole('list', { name: 'Results' }).getByRole('listitem');
  const hitTitles = async (page: Page) => (await results(page).locator('a').allInnerTexts()).map((s) => s.trim());
  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  it('the header box finds everything an admin can see, marks the words, narrows by kind and opens each hit', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, admin);
    await page.goto(`${origin}/projects`);
    await page.getByRole('search', { name: 'Search' }).getByLabel('Search everything').fill('REBAR');
    await page.getByRole('search', { name: 'Search' }).getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.pathname === '/search' && url.searchParams.get('q') === 'REBAR');
    await page.getByRole('heading', { name: 'Search', level: 1 }).waitFor();
    await results(page).first().waitFor();
    const titles = await hitTitles(page);
    for (const expected of [photo.caption, task.title, 'The rebar looks short by the south abutment', notes.name, cafeTask.title]) {
      assert.ok(titles.includes(expected), `${expected} among ${JSON.stringify(titles)}`);
    }
    assert.equal(titles.length, 5, JSON.stringify(titles));
    // Each hit says what it is and where; the matched word is marked, whatever its case.
    const taskHit = results(page).filter({ has: page.getByRole('link', { name: task.title }) });
    await taskHit.getByText('Task', { exact: true }).waitFor();
    await taskHit.getByText('in Harbour Bridge Retrofit').waitFor();
    assert.deepEqual((await taskHit.locator('mark').allInnerTexts()).map((s) => s.toLowerCase()), ['rebar']);
    const noteHit = results(page).filter({ has: page.getByRole('link', { name: notes.name }) });
    assert.match(await noteHit.innerText(), /tie the rebar mats/);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-search'), fullPage: true });

    // Look in: Tasks → only the two tasks; the address keeps it.
    await page.getByLabel('Look in').selectOption({ label: 'Tasks' });
    await page.waitForURL((url) => url.searchParams.get('type') === 'task');
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Results"] li').length === 2);
    assert.deepEqual((await hitTitles(page)).sort(), [task.title, cafeTask.title].sort());
    await page.getByRole('link', { name: task.title }).click();
    await page.waitForURL(`${origin}/projects/${harbour.id}/tasks/${task.id}`);
    await page.getByRole('heading', { name: task.title }).waitFor();

    // Back to the search; a comment opens on its photo's page.
    await page.goBack();
    await page.getByLabel('Look in').selectOption({ label: 'Comments' });
    await page.getByRole('link', { name: 'The rebar looks short by the south abutment' }).click();
    await page.waitForURL(`${origin}/photos/${photo.id}`);
    await page.getByText('The rebar looks short by the south abutment').first().waitFor();

    // A project's own box searches that project only.
    await page.goto(`${origin}/projects/${harbour.id}`);
    await page.getByLabel('Search this project').fill('rebar');
    await page.getByLabel('Search this project').press('Enter');
    await page.waitForURL((url) => url.pathname === '/search' && url.searchParams.get('project_id') === harbour.id);
    await page.getByRole('heading', { name: 'Search in Harbour Bridge Retrofit' }).waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Results"] li').length === 4);
    assert.ok(!(await hitTitles(page)).includes(cafeTask.title));
    await page.getByRole('link', { name: 'Search all projects instead' }).click();
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Results"] li').length === 5);

    // Accents and case do not matter; a phrase; an exclusion; nothing found says so.
    await page.goto(`${origin}/search?q=${encodeURIComponent('cafe muller')}`);
    await results(page).first().waitFor();
    assert.deepEqual(await hitTitles(page), [cafe.name]);
    await page.getByLabel('Words').fill('"north pier"');
    await page.getByRole('search', { name: 'Search everything' }).getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === '"north pier"');
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Results"] li').length === 1);
    assert.deepEqual(await hitTitles(page), [photo.caption]);
    await page.goto(`${origin}/search?q=${encodeURIComponent('rebar -pier -abutment -café')}`);
    await results(page).first().waitFor();
    assert.deepEqual((await hitTitles(page)).sort(), [task.title, notes.name].sort());
    await page.goto(`${origin}/search?q=${encodeURIComponent('xylophone')}`);
    await page.getByText('Nothing matches “xylophone”.').waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a restricted user on a phone sees only her project\'s hits, and no other workspace\'s', async () => {
    const other = await newWorkspace(t);
    const otherProject = await callApi(origin, other.admin.key, 'POST', '/v1/projects', { name: 'Rebar yard (other company)' });
    await callApi(origin, other.admin.key, 'POST', `/v1/projects/${otherProject.id}/tasks`, { title: 'Count the rebar' });
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.phone, rex, { hasTouch: true });
    await page.goto(`${origin}/tasks`);
    await page.getByLabel('Search everything').fill('rebar');
    await page.getByLabel('Search everything').press('Enter');
    await page.waitForURL((url) => url.pathname === '/search');
    await results(page).first().waitFor();
    const titles = await hitTitles(page);
    assert.deepEqual(titles.sort(), [photo.caption, task.title, 'The rebar looks short by the south abutment', notes.name].sort());
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on a phone');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-search-phone'), fullPage: true });
    // A project she cannot see, asked for by address, is the API's 404 in words, not hits.
    await page.goto(`${origin}/search?q=rebar&project_id=${cafe.id}`);
    await page.getByRole('alert').waitFor();
    assert.equal(await results(page).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
