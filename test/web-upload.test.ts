/**
 * Uploading photos and videos on a project's page, and its timeline, in Chromium (issue 14): real
 * files (JPEGs made with sharp, an MP4 made with ffmpeg) chosen with the file input and dropped on
 * the drop zone; progress, three at a time, Cancel and Retry on a throttled connection; the API's
 * refusals in words; "Processing…" until the real worker code has run, then the thumbnail; the tag
 * and date filters in the address; a phone with the camera control.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import sharp from 'sharp';
import { jpegWithExif } from './fixtures/images.ts';
import { androidMp4, ffmpegPath } from './fixtures/videos.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, userWithPassword } from './web-server.ts';

/** Small enough that a noisy 400 × 400 JPEG is over it: the 413 is the real one. */
const PHOTO_MAX_BYTES = 250_000;
const { t, origin } = await listeningTestApp({ JOBSITE_PHOTO_MAX_BYTES: String(PHOTO_MAX_BYTES) });
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** A JPEG of random pixels: JPEG cannot shrink noise, so it is as large as asked (about 2 bytes a pixel). */
const noisyJpeg = (side: number) => sharp(crypto.randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();

async function uploadByApi(key: string, projectId: string, kind: 'photos' | 'videos', fields: Record<string, string>, data: Buffer, filename: string) {
  const { payload, headers } = multipart(fields, { data, filename });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/${kind}`, payload, headers: { ...headers, authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string };
}

describe('uploads and the timeline in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `uploader-${Date.now()}@example.test`;
  let project: { id: string };
  const tags: Record<string, string> = {};

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, email);
    const user = (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data.find((u: { email: string }) => u.email === email);
    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Pier 4 Deck', address: { city: 'Wellington' } }) as { id: string };
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${user.id}`);
    for (const name of ['Rebar', 'Pour']) tags[name] = (await call(ws.admin.key, 'POST', '/v1/tags', { name })).id;
    const photo = await jpegWithExif();
    await uploadByApi(ws.admin.key, project.id, 'photos', { captured_at: '2026-03-02T14:00:00Z', caption: 'Rebar tied', tag_ids: tags.Rebar! }, photo, 'a.jpg');
    await uploadByApi(ws.admin.key, project.id, 'photos', { captured_at: '2026-03-01T09:00:00Z', caption: 'Slab poured', tag_ids: tags.Pour! }, photo, 'b.jpg');
    await uploadByApi(ws.admin.key, project.id, 'photos', { captured_at: '2026-02-20T12:00:00Z', caption: 'Site fence' }, photo, 'c.jpg');
    if (ffmpegPath) await uploadByApi(ws.admin.key, project.id, 'videos', { captured_at: '2026-03-01T12:00:00Z', caption: 'Crane lift' }, await androidMp4(), 'lift.mp4');
    await t.runJobs();
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function openProject(viewport: { width: number; height: number }, search = '', options: { hasTouch?: boolean } = {}) {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC', ...options });
    await sessionCookieFor(origin, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${origin}/projects/${project.id}${search}`);
    await page.getByRole('heading', { name: 'Pier 4 Deck', level: 1 }).waitFor();
    return { context, page, errors };
  }

  const uploadRows = (page: Page) => page.getByRole('list', { name: 'Uploads' }).getByRole('listitem');
  const rowOf = (page: Page, name: string) => uploadRows(page).filter({ hasText: name });
  const progressOf = (page: Page, name: string) => page.getByRole('progressbar', { name: `Upload of ${name}` });
  const dayHeadings = (page: Page) => page.getByRole('heading', { level: 3 }).allInnerTexts();
  const apiPhotos = async (query = '') => (await call(ws.admin.key, 'GET', `/v1/photos?project_id=${project.id}&limit=100${query}`)).data as Array<Record<string, any>>;

  /** Waits until `check` holds (the page changes on its own: uploads, polling). */
  async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The progress bar's value has reached its max (the whole file was sent). */
  async function progressDone(bar: Locator): Promise<boolean> {
    return bar.evaluate((el) => (el as HTMLProgressElement).value === (el as HTMLProgressElement).max && (el as HTMLProgressElement).max > 0);
  }

  it('on a desktop: filters by tag and date in the address; uploads chosen and dropped files with progress; Processing… then thumbnails; refusals in words', async () => {
    const { context, page, errors } = await openProject(VIEWPORTS.desktop);
    const timeline = page.getByRole('region', { name: 'Photos and videos' });
    await timeline.getByRole('img', { name: 'Site fence' }).waitFor();
    assert.deepEqual(await dayHeadings(page), ['Monday, March 2, 2026', 'Sunday, March 1, 2026', 'Friday, February 20, 2026']);
    // Photos and videos in one timeline: the video sits between the two photos of March 1 and 2.
    const names = () => timeline.getByRole('link').evaluateAll((links) => links.map((a) => (a.querySelector('img') as HTMLImageElement | null)?.alt ?? a.textContent));
    if (ffmpegPath) assert.deepEqual(await names(), ['Rebar tied', 'Video: Crane lift, 0:02', 'Slab poured', 'Site fence']);
    const rebar = timeline.getByRole('link', { name: 'Rebar tied' });
    const rebarId = (await apiPhotos()).find((p) => p.caption === 'Rebar tied')!.id;
    assert.equal(await rebar.getAttribute('href'), `/photos/${rebarId}`, 'a photo links to its page');

    // The tag filter: only the tagged photo, the tag in the address; no videos (they carry no tags).
    await page.getByLabel('Tag', { exact: true }).selectOption({ label: 'Rebar' });
    await until('only the tagged photo shows', async () => (await names()).join() === 'Rebar tied');
    assert.equal(new URL(page.url()).searchParams.get('tag'), tags.Rebar);
    assert.ok(await page.getByText('Only photos: videos carry no tags.').isVisible());
    // Dates: From and To are whole local days, both included.
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.getByLabel('From', { exact: true }).fill('2026-03-01');
    await page.getByLabel('To', { exact: true }).fill('2026-03-01');
    await until('only March 1 shows', async () => (await dayHeadings(page)).join() === 'Sunday, March 1, 2026');
    assert.deepEqual(await names(), ffmpegPath ? ['Video: Crane lift, 0:02', 'Slab poured'] : ['Slab poured']);
    const url = new URL(page.url());
    assert.deepEqual([url.searchParams.get('from'), url.searchParams.get('to')], ['2026-03-01', '2026-03-01']);
    // The address alone brings the filters back (a reload, a shared link).
    await page.goto(`${origin}/projects/${project.id}?tag=${tags.Pour}&from=2026-02-01`);
    await timeline.getByRole('img', { name: 'Slab poured' }).waitFor();
    assert.deepEqual(await names(), ['Slab poured']);
    assert.equal(await page.getByLabel('From', { exact: true }).inputValue(), '2026-02-01');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await timeline.getByRole('img', { name: 'Site fence' }).waitFor();
    assert.equal(new URL(page.url()).search, '');

    // The file button is reached with Tab after the project's section tabs, its focus visible on the label that looks like a button.
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link').last().focus();
    await page.keyboard.press('Tab');
    const chooser = page.getByLabel('Choose photos and videos');
    assert.ok(await chooser.evaluate((el) => el === document.activeElement), 'Tab reaches the file input');
    assert.equal(await chooser.evaluate((el) => getComputedStyle(el.parentElement!).outlineStyle), 'solid', 'its focus is visible');
    assert.ok(!(await page.getByText('Take photo').isVisible()), 'no camera control on a desktop');

    // Choose files: a JPEG with EXIF, one without, a video, a text file and a photo over the limit.
    const withExif = await jpegWithExif({ dateTimeOriginal: '2026:03:02 10:00:00', offsetTimeOriginal: '+00:00' }, 640, 480, '#aa3322');
    const withoutExif = await sharp({ create: { width: 480, height: 640, channels: 3, background: '#228844' } }).jpeg().toBuffer();
    const tooLarge = await noisyJpeg(700);
    assert.ok(tooLarge.length > PHOTO_MAX_BYTES);
    const files = [
      { name: 'pour-exif.jpg', mimeType: 'image/jpeg', buffer: withExif },
      { name: 'no-exif.jpg', mimeType: 'image/jpeg', buffer: withoutExif },
      ...(ffmpegPath ? [{ name: 'walkthrough.mp4', mimeType: 'video/mp4', buffer: await androidMp4() }] : []),
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('Not a photo.\n') },
      { name: 'huge.jpg', mimeType: 'image/jpeg', buffer: tooLarge },
    ];
    const before = (await apiPhotos()).length;
    await page.getByLabel('Choose photos and videos').setInputFiles(files);
    assert.equal(await uploadRows(page).count(), files.length, 'a row for each file');
    const uploaded = files.filter((f) => !['notes.txt', 'huge.jpg'].includes(f.name));
    for (const f of uploaded) {
      await rowOf(page, f.name).getByText('Uploaded').waitFor();
      assert.ok(await progressDone(progressOf(page, f.name)), `${f.name}: the progress bar is full`);
    }
    // The refusals, in the API's words, with Retry.
    const txt = rowOf(page, 'notes.txt');
    await txt.getByRole('alert').waitFor();
    assert.match(await txt.getByRole('alert').innerText(), /Unsupported media type.*not a JPEG, PNG, HEIC\/HEIF or WebP image/s);
    assert.ok(await txt.getByRole('button', { name: 'Retry notes.txt' }).isVisible());
    const huge = rowOf(page, 'huge.jpg');
    await huge.getByRole('alert').waitFor();
    assert.match(await huge.getByRole('alert').innerText(), /Payload too large.*larger than the limit/s);
    await page.getByRole('status').filter({ hasText: /uploaded, 2 not uploaded\.$/ }).waitFor();

    // At once in the timeline as "Processing…" (today, the upload time, until EXIF is read).
    const processing = timeline.getByText('Processing…');
    await until('every upload shows Processing…', async () => (await processing.count()) === uploaded.length);
    const pending = (await apiPhotos()).filter((p) => p.processing_status === 'pending');
    assert.equal(pending.length, 2, 'the two photos are on the server, pending');
    assert.equal((await apiPhotos()).length, before + 2, 'nothing made of the refused files');
    await page.screenshot({ path: screenshotPath('web-upload-desktop'), fullPage: true });
    assert.deepEqual(await seriousAxeViolations(page), []);

    // The worker runs: the page, polling, swaps in the thumbnails; the EXIF photo moves to March 2 at 10:00.
    await t.runJobs();
    await timeline.getByRole('img', { name: 'Photo taken at 10:00 AM' }).waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => !document.body.textContent?.includes('Processing…'), null, { timeout: 20_000 });
    const march2 = page.getByRole('region', { name: 'Monday, March 2, 2026' });
    assert.equal(await march2.getByRole('img', { name: 'Photo taken at 10:00 AM' }).count(), 1);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    if (ffmpegPath) assert.equal(await timeline.getByRole('img', { name: /^Video recorded at .*, 0:02$/ }).count(), 1, 'the new video shows its poster');

    // A synthetic drop of a file made in the page.
    const dropped = await jpegWithExif({}, 320, 240, '#884400');
    const dataTransfer = await page.evaluateHandle(({ base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'dropped.jpg', { type: 'image/jpeg' }));
      return transfer;
    }, { base64: dropped.toString('base64') });
    const zone = page.getByRole('group', { name: 'Upload photos and videos' });
    await zone.dispatchEvent('dragenter', { dataTransfer });
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
    await rowOf(page, 'dropped.jpg').getByText('Uploaded').waitFor();
    assert.ok(await progressDone(progressOf(page, 'dropped.jpg')));
    await timeline.getByText('Processing…').waitFor();
    const droppedPhoto = (await apiPhotos()).find((p) => p.byte_size === dropped.length);
    assert.ok(droppedPhoto, 'the dropped file is on the server with its bytes');
    await t.runJobs();
    await page.waitForFunction(() => !document.body.textContent?.includes('Processing…'), null, { timeout: 20_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop with a slow connection: three at a time, progress as it goes, Cancel sends nothing, Retry sends it; a lost answer retried makes one photo', async () => {
    const { context, page, errors } = await openProject(VIEWPORTS.desktop);
    await page.getByRole('img', { name: 'Site fence' }).waitFor();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: -1, uploadThroughput: 60 * 1024 });
    const files = await Promise.all([1, 2, 3, 4].map(async (n) => ({ name: `slow-${n}.jpg`, mimeType: 'image/jpeg', buffer: await noisyJpeg(350) })));
    assert.ok(files.every((f) => f.buffer.length < PHOTO_MAX_BYTES && f.buffer.length > 80_000), files.map((f) => f.buffer.length).join());
    const before = (await apiPhotos()).length;
    await page.getByLabel('Choose photos and videos').setInputFiles(files);

    // Three travel, the fourth waits.
    await until('three upload at once', async () => (await uploadRows(page).filter({ hasText: 'Uploading' }).count()) === 3);
    assert.equal(await uploadRows(page).filter({ hasText: 'Waiting' }).count(), 1);
    await rowOf(page, 'slow-4.jpg').getByText('Waiting').waitFor();
    // Progress moves before the end.
    await until('a progress bar is part-way', async () => (await page.getByRole('progressbar').evaluateAll((bars) => bars.some((b) => {
      const p = b as HTMLProgressElement;
      return p.value > 0 && p.value < p.max;
    }))));
    await page.screenshot({ path: screenshotPath('web-upload-progress-desktop') });

    // Cancel one on its way and the waiting one.
    await rowOf(page, 'slow-1.jpg').getByRole('button', { name: 'Cancel slow-1.jpg' }).click();
    await rowOf(page, 'slow-4.jpg').getByRole('button', { name: 'Cancel slow-4.jpg' }).click();
    await rowOf(page, 'slow-1.jpg').getByText('Cancelled').waitFor();
    await rowOf(page, 'slow-4.jpg').getByText('Cancelled').waitFor();
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    for (const n of [2, 3]) await rowOf(page, `slow-${n}.jpg`).getByText('Uploaded').waitFor({ timeout: 30_000 });
    const sizes = (list: Array<Record<string, any>>) => list.map((p) => p.byte_size as number);
    const onServer = sizes(await apiPhotos());
    assert.equal(onServer.length, before + 2, 'the cancelled files were not stored');
    assert.ok(!onServer.includes(files[0]!.buffer.length) && !onServer.includes(files[3]!.buffer.length));

    // Retry sends a cancelled file again (with a new Idempotency-Key: the old one may hold the cut-off request's answer).
    await rowOf(page, 'slow-1.jpg').getByRole('button', { name: 'Retry slow-1.jpg' }).click();
    await rowOf(page, 'slow-1.jpg').getByText('Uploaded').waitFor();
    assert.ok(await progressDone(progressOf(page, 'slow-1.jpg')));
    assert.ok(sizes(await apiPhotos()).includes(files[0]!.buffer.length), 'retried: on the server');
    await page.getByRole('button', { name: 'Clear list' }).click();
    assert.equal(await uploadRows(page).count(), 0);

    // The answer is lost on the way back (the server made the photo, the connection broke): the row
    // says so in words; Retry sends the same Idempotency-Key, the server replays its answer, and the
    // photo exists once.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    const lost = { name: 'lost.jpg', mimeType: 'image/jpeg', buffer: await jpegWithExif({}, 200, 150, '#123456') };
    const count = (await apiPhotos()).length;
    const keys: string[] = [];
    await page.route('**/v1/projects/*/photos', async (route) => {
      keys.push(route.request().headers()['idempotency-key']!);
      assert.equal((await route.fetch()).status(), 201, 'the server took it');
      await route.abort('connectionreset');
    }, { times: 1 });
    await page.getByLabel('Choose photos and videos').setInputFiles(lost);
    await rowOf(page, 'lost.jpg').getByRole('alert').waitFor();
    assert.match(await rowOf(page, 'lost.jpg').getByRole('alert').innerText(), /Upload interrupted.*retry/s);
    assert.equal((await apiPhotos()).length, count + 1, 'the server has it already');
    const replayed = page.waitForResponse((r) => /\/v1\/projects\/[^/]+\/photos$/.test(r.url()));
    await rowOf(page, 'lost.jpg').getByRole('button', { name: 'Retry lost.jpg' }).click();
    const answer = await replayed;
    assert.equal(answer.request().headers()['idempotency-key'], keys[0], 'the retry carries the same key');
    assert.equal(answer.headers()['idempotent-replayed'], 'true');
    await rowOf(page, 'lost.jpg').getByText('Uploaded').waitFor();
    const afterRetry = await apiPhotos();
    assert.equal(afterRetry.length, count + 1, 'still one photo');
    assert.equal(afterRetry.filter((p) => p.byte_size === lost.buffer.length).length, 1, 'stored once');
    await t.runJobs();
    await page.waitForFunction(() => !document.body.textContent?.includes('Processing…'), null, { timeout: 20_000 });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a long timeline: photos and videos merged across pages, each shown only once everything newer is loaded', async () => {
    const quay = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Quay Wall' }) as { id: string };
    const user = (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data.find((u: { email: string }) => u.email === email);
    await call(ws.admin.key, 'PUT', `/v1/projects/${quay.id}/members/${user.id}`);
    const photo = await jpegWithExif({}, 64, 48);
    const hour = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 3_600_000).toISOString();
    // 65 photos an hour apart from 1 January 00:00: the first page (60) reaches back to 05:00.
    for (let i = 0; i < 65; i++) await uploadByApi(ws.admin.key, quay.id, 'photos', { captured_at: hour(i), caption: `Photo ${i}` }, photo, `${i}.jpg`);
    const video = ffmpegPath ? await androidMp4() : null;
    if (video) {
      await uploadByApi(ws.admin.key, quay.id, 'videos', { captured_at: hour(24 * 9), caption: 'Newest' }, video, 'new.mp4');
      await uploadByApi(ws.admin.key, quay.id, 'videos', { captured_at: hour(2.5), caption: 'Between 2 and 3' }, video, 'mid.mp4');
      await uploadByApi(ws.admin.key, quay.id, 'videos', { captured_at: hour(-12), caption: 'Oldest' }, video, 'old.mp4');
    }
    await t.runJobs();

    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-US', timezoneId: 'UTC' });
    await sessionCookieFor(origin, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${origin}/projects/${quay.id}`);
    const timeline = page.getByRole('region', { name: 'Photos and videos' });
    await timeline.getByRole('img', { name: 'Photo 5', exact: true }).waitFor();
    const names = () => timeline.getByRole('link').evaluateAll((links) => links.map((a) => (a.querySelector('img') as HTMLImageElement | null)?.alt ?? a.textContent));
    const photos = (from: number, to: number) => Array.from({ length: from - to + 1 }, (_, k) => `Photo ${from - k}`);
    const v = (caption: string) => (video ? [`Video: ${caption}, 0:02`] : []);
    const all = [...v('Newest'), ...photos(64, 3), ...v('Between 2 and 3'), ...photos(2, 0), ...v('Oldest')];
    // The first pages: the newest video, photos 64..5; the older videos wait for the photos before
    // them. (On a slow machine the thumbnails may not have laid out yet, leaving "Load more" in
    // view, so a further page may already be in: what is shown is always the start of the whole.)
    const first = await names();
    assert.deepEqual(first.slice(0, v('x').length + 60), [...v('Newest'), ...photos(64, 5)]);
    assert.deepEqual(first, all.slice(0, first.length), 'never an older item before a newer one is loaded');
    // Scrolling to the end loads the rest, each in its place.
    if (await page.getByRole('button', { name: 'Load more' }).count()) await page.getByRole('button', { name: 'Load more' }).scrollIntoViewIfNeeded();
    await until('everything is loaded', async () => (await names()).length === 65 + v('x').length * 3);
    assert.deepEqual(await names(), all);
    assert.equal(await page.getByRole('button', { name: 'Load more' }).count(), 0, 'nothing more to load');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: the camera control, an upload, Processing… then the thumbnail, filters, no sideways scrolling', async () => {
    const { context, page, errors } = await openProject(VIEWPORTS.phone, '', { hasTouch: true });
    const timeline = page.getByRole('region', { name: 'Photos and videos' });
    await timeline.getByRole('img', { name: 'Site fence' }).waitFor();
    const camera = page.getByLabel('Take photo');
    assert.ok(await page.getByText('Take photo').isVisible(), 'the camera control shows on a phone');
    assert.equal(await camera.getAttribute('capture'), 'environment');
    assert.equal(await camera.getAttribute('accept'), 'image/*,video/*');
    assert.equal(await page.getByLabel('Choose photos and videos').getAttribute('multiple'), '');

    const shot = await jpegWithExif({ dateTimeOriginal: '2026:03:01 16:45:00', offsetTimeOriginal: '+00:00' }, 480, 640, '#5566aa');
    await camera.setInputFiles({ name: 'image.jpg', mimeType: 'image/jpeg', buffer: shot });
    await rowOf(page, 'image.jpg').getByText('Uploaded').waitFor();
    assert.ok(await progressDone(progressOf(page, 'image.jpg')));
    await timeline.getByText('Processing…').waitFor();
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling while uploading');
    assert.deepEqual(await seriousAxeViolations(page), []);
    const reads: string[] = [];
    page.on('request', (r) => {
      if (/\/v1\/(photos|videos)\/[a-z]{3}_/.test(r.url())) reads.push(r.url());
    });
    await t.runJobs();
    const taken = timeline.getByRole('region', { name: 'Sunday, March 1, 2026' }).getByRole('img', { name: 'Photo taken at 04:45 PM' });
    await taken.waitFor({ timeout: 20_000 });
    assert.equal((await apiPhotos()).filter((p) => p.captured_at === '2026-03-01T16:45:00.000Z').length, 1);
    assert.ok(reads.length >= 1, 'the page read the pending photo again');
    // Nothing pending any more: the page stops asking.
    const asked = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(reads.length, asked, 'no reads once nothing is pending');

    await page.getByLabel('From', { exact: true }).fill('2026-03-01');
    await page.getByLabel('To', { exact: true }).fill('2026-03-02');
    await until('two days show', async () => (await dayHeadings(page)).length === 2);
    assert.deepEqual(await dayHeadings(page), ['Monday, March 2, 2026', 'Sunday, March 1, 2026']);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-project-timeline-phone'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });
});
