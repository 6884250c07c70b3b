/**
 * A project's Activity section in Chromium (issue 15): real activity made through the API by four
 * people (a crew change, three photos uploaded, a task created for someone and completed, a
 * comment on a photo), then the page lists it in words, newest first, with the right names, links
 * and times; the three photos make one line with their thumbnails; "Show older" reads the next
 * page; a restricted user off the crew gets words (and the activity once on it); on a desktop and
 * a phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** A real upload: multipart over HTTP with the API key, as a client would send it. */
async function upload(key: string, projectId: string, file: Buffer, caption?: string): Promise<Json> {
  const form = new FormData();
  if (caption) form.set('caption', caption);
  form.set('file', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/projects/${projectId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Json;
}

/** How many project.updated events come before the real activity: enough that the first page (50) does not reach the project's creation. */
const FILLER = 50;

describe('a project\'s activity in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const email = (name: string) => `${name}-${stamp}@example.test`;
  const people: Record<'rosa' | 'dana' | 'ada' | 'rex', { id: string; key: string }> = {} as never;
  let project: Json;
  let photos: Json[];
  let task: Json;
  let comment: Json;

  before(async () => {
    ws = await newWorkspace(t);
    await call(ws.admin.key, 'PATCH', `/v1/users/${ws.admin.id}`, { first_name: 'Sam', last_name: 'Lee' });
    const made: Array<[keyof typeof people, string, string, string]> = [
      ['rosa', 'standard', 'Rosa', 'Crew'], ['dana', 'standard', 'Dana', 'Reyes'], ['ada', 'manager', 'Ada', 'Foreman'], ['rex', 'restricted', 'Rex', 'Outsider'],
    ];
    const users = new Map<string, Json>();
    for (const [who, role, first, last] of made) {
      await userWithPassword(origin, ws, email(who), role, { first_name: first, last_name: last });
    }
    for (const u of (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data as Json[]) users.set(u.email, u);
    for (const [who] of made) {
      const id = users.get(email(who))!.id as string;
      // Each acts through the API with a key of their own, made for them by the admin.
      const key = (await call(ws.admin.key, 'POST', '/v1/api-keys', { name: 'activity test', user_id: id })).key as string;
      people[who] = { id, key };
    }

    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    for (let i = 0; i < FILLER; i++) await call(ws.admin.key, 'PATCH', `/v1/projects/${project.id}`, { description: `Revision ${i + 1}` });
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${people.rosa.id}`);
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${people.dana.id}`);
    photos = [];
    for (const [i, color] of ['#557799', '#887755', '#778855'].entries()) {
      photos.push(await upload(people.rosa.key, project.id, await jpegWithExif({}, 640, 480, color), `Pier ${i + 1}`));
    }
    await t.runJobs(); // photo.created is emitted once each photo is processed
    task = await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/tasks`, { title: 'Frame north wall', assignee_id: people.dana.id });
    await call(people.dana.key, 'POST', `/v1/tasks/${task.id}/complete`);
    comment = await call(people.ada.key, 'POST', `/v1/photos/${photos[0]!.id}/comments`, { body: 'Rebar looks good.' });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function signedIn(who: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    await sessionCookieFor(origin, context, email(who));
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    return { context, page, errors };
  }

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const activity = (page: Page) => page.getByRole('list', { name: 'Activity' });
  /** The lines' sentences (their first link), top to bottom. */
  const sentences = (page: Page) => activity(page).locator(':scope > li > a').allInnerTexts();

  const NEWEST = [
    'Ada Foreman commented on a photo',
    'Dana Reyes completed “Frame north wall”',
    'Sam Lee assigned the task “Frame north wall” to Dana Reyes',
    'Sam Lee created the task “Frame north wall”',
    'Rosa Crew uploaded 3 photos',
    'Dana Reyes was added to the crew',
    'Rosa Crew was added to the crew',
    'The project’s description was changed',
  ];

  /** The lines as expected, with their links and times, checked against the API's events. */
  async function checkLines(page: Page) {
    await activity(page).waitFor();
    assert.deepEqual((await sentences(page)).slice(0, NEWEST.length), NEWEST, 'in words, newest first');
    const link = (name: string) => activity(page).getByRole('link', { name, exact: true });
    assert.equal(await link(NEWEST[0]!).getAttribute('href'), `/photos/${photos[0]!.id}#comment-${comment.id}`);
    assert.equal(await link(NEWEST[1]!).getAttribute('href'), `/projects/${project.id}/tasks/${task.id}`);
    assert.equal(await link(NEWEST[2]!).getAttribute('href'), `/projects/${project.id}/tasks/${task.id}`);
    assert.equal(await link(NEWEST[4]!).getAttribute('href'), `/projects/${project.id}`);
    assert.equal(await link(NEWEST[5]!).getAttribute('href'), `/projects/${project.id}`);

    // The three photos: one line, a thumbnail for each, newest first, each linking to its photo.
    const group = activity(page).getByRole('listitem').filter({ has: page.getByRole('link', { name: 'Rosa Crew uploaded 3 photos', exact: true }) });
    const thumbs = group.getByRole('img');
    assert.deepEqual(await thumbs.evaluateAll((imgs) => imgs.map((i) => i.getAttribute('alt'))), ['Pier 3', 'Pier 2', 'Pier 1']);
    assert.deepEqual(await group.getByRole('link', { name: /^Pier/ }).evaluateAll((as) => as.map((a) => a.getAttribute('href'))),
      [...photos].reverse().map((p) => `/photos/${p.id}`));
    await page.waitForFunction(() => [...document.querySelectorAll('ol[aria-label="Activity"] img')].every((i) => (i as HTMLImageElement).naturalWidth > 0));

    // The times: relative in words, exact in the title and the dateTime, the event's own time.
    const events = (await call(ws.admin.key, 'GET', `/v1/events?project_id=${project.id}&limit=100`)).data as Json[];
    const commented = events.find((e) => e.event === 'comment.created')!;
    assert.equal(events[0]!.event, 'comment.created', 'the API lists the comment as the newest event');
    const time = activity(page).getByRole('listitem').first().locator('time');
    assert.equal(await time.getAttribute('datetime'), commented.created_at);
    assert.match(await time.innerText(), /^(just now|\d+ minutes? ago)$/);
    assert.match((await time.getAttribute('title'))!, /\d{4}.*\d{1,2}:\d{2}/);
  }

  async function showOlder(page: Page) {
    const creation = activity(page).getByRole('link', { name: 'Sam Lee created the project “Harbour Bridge Retrofit”' });
    assert.equal(await creation.count(), 0, 'the project\'s creation is not on the first page');
    const lines = (await sentences(page)).length;
    await page.getByRole('button', { name: 'Show older' }).click();
    await creation.waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show older' }).count(), 0, 'nothing older');
    const all = await sentences(page);
    assert.ok(all.length > lines);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), all[lines], 'focus on the first older line');
    assert.equal(all.at(-1), 'Sam Lee created the project “Harbour Bridge Retrofit”', 'the oldest last');
    assert.equal(all.filter((s) => s === 'The project’s description was changed').length, FILLER);
  }

  it('on a desktop: the Activity tab lists what happened in words, newest first, with names, links, times, grouped photos and Show older', async () => {
    const { context, page, errors } = await signedIn('rosa', VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/activity`);
    assert.equal(await page.getByRole('link', { name: 'Activity' }).getAttribute('aria-current'), 'page');
    await page.getByRole('heading', { name: 'Activity', level: 2 }).waitFor();
    await checkLines(page);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.getByRole('heading', { name: 'Activity', level: 2 }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: screenshotPath('web-activity-desktop') });

    // A line leads to what it is about: the task's address.
    await activity(page).getByRole('link', { name: 'Dana Reyes completed “Frame north wall”' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/tasks/${task.id}`);
    await page.goBack();
    await activity(page).waitFor();
    await showOlder(page);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: the same lines, thumbnails, Show older, and no sideways scrolling', async () => {
    const { context, page, errors } = await signedIn('ada', VIEWPORTS.phone);
    await page.goto(`${origin}/projects/${project.id}/activity`);
    await checkLines(page);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await activity(page).getByRole('link', { name: 'Sam Lee created the task “Frame north wall”' }).evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: screenshotPath('web-activity-phone') });
    await showOlder(page);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling with every line');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a restricted user off the crew gets words, not a blank page; on the crew, the activity', async () => {
    for (const viewport of [VIEWPORTS.phone, VIEWPORTS.desktop]) {
      const { context, page, errors } = await signedIn('rex', viewport);
      await page.goto(`${origin}/projects/${project.id}/activity`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      assert.match(await alert.innerText(), /not found/i);
      assert.equal(await activity(page).count(), 0);
      // The API agrees: the project's events are not the restricted user's to read.
      const res = await fetch(`${origin}/v1/events?project_id=${project.id}`, { headers: { authorization: `Bearer ${people.rex.key}` } });
      assert.deepEqual(((await res.json()) as Json).data, []);
      assert.deepEqual(await seriousAxeViolations(page), []);
      if (viewport === VIEWPORTS.phone) assert.ok(await noSidewaysScroll(page));
      assert.deepEqual(errors, []);
      await context.close();
    }

    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${people.rex.id}`);
    const { context, page, errors } = await signedIn('rex', VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}/activity`);
    await activity(page).waitFor();
    assert.equal((await sentences(page))[0], 'Rex Outsider was added to the crew');
    assert.deepEqual((await sentences(page)).slice(1, NEWEST.length), NEWEST.slice(0, -1));
    assert.deepEqual(errors, []);
    await context.close();
  });
});
