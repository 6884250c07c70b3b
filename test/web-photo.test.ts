/**
 * The photo page in Chromium (issue 14): a photo at /photos/{id} with previous / next in the
 * project's timeline (links and arrow keys), capture time in the photo's zone, GPS, the uploader,
 * the caption and tags edited through the API, and annotations drawn, undone, saved (checked in
 * the API) and shown over the photo after a reload; a 412 in words; on a desktop and a phone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { jpegWithExif, PLACES } from './fixtures/images.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** A real upload: multipart over HTTP with the API key, as a client would send it. */
async function upload(key: string, projectId: string, file: Buffer, fields: Record<string, string>): Promise<Json> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  form.set('file', new Blob([new Uint8Array(file)], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/projects/${projectId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Json;
}

/** A drag across the drawing area, between fractions of its size. */
async function drag(page: Page, from: [number, number], to: [number, number], through: Array<[number, number]> = []) {
  const area = page.getByRole('img', { name: /^Drawing area/ });
  await area.evaluate((el) => el.scrollIntoView({ block: 'center' }));
  const box = (await area.boundingBox())!;
  const at = ([x, y]: [number, number]) => [box.x + x * box.width, box.y + y * box.height] as const;
  await page.mouse.move(...at(from));
  await page.mouse.down();
  for (const p of [...through, to]) await page.mouse.move(...at(p), { steps: 4 });
  await page.mouse.up();
}

const pick = (page: Page, name: string) => page.getByRole('radio', { name, exact: true }).check();

describe('the photo page in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `rosa-photo-${Date.now()}@example.test`;
  let project: Json;
  /** The timeline, newest first: newest (Chicago, EXIF with offset), tieLater and tieEarlier (same time), oldest. */
  let newest: Json, tieLater: Json, tieEarlier: Json, oldest: Json;
  let roof: Json, safety: Json;

  before(async () => {
    ws = await newWorkspace(t);
    await call(ws.admin.key, 'PATCH', `/v1/users/${ws.admin.id}`, { first_name: 'Ada', last_name: 'Foreman' });
    await userWithPassword(origin, ws, email);
    const user = (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data.find((u: Json) => u.email === email);
    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${user.id}`);
    roof = await call(ws.admin.key, 'POST', '/v1/tags', { name: 'Roof', color: '#aa3300' });
    safety = await call(ws.admin.key, 'POST', '/v1/tags', { name: 'Safety', color: '#0055aa' });
    // 8:00 on a Chicago phone (UTC-6): 14:00 UTC.
    newest = await upload(ws.admin.key, project.id, await jpegWithExif({ dateTimeOriginal: '2026:03:02 08:00:00', offsetTimeOriginal: '-06:00', ...PLACES.chicago }, 800, 600, '#557799'), { caption: 'Deck poured' });
    tieEarlier = await upload(ws.admin.key, project.id, await jpegWithExif({}, 640, 480, '#887755'), { caption: 'Formwork east', captured_at: '2026-03-02T09:00:00Z' });
    tieLater = await upload(ws.admin.key, project.id, await jpegWithExif({}, 480, 640, '#778855'), { caption: 'Formwork west', captured_at: '2026-03-02T09:00:00Z' });
    oldest = await upload(ws.admin.key, project.id, await jpegWithExif({}, 640, 480, '#666666'), { caption: 'Site cleared', captured_at: '2026-02-20T12:00:00Z' });
    await t.runJobs();
    const timeline = await call(ws.admin.key, 'GET', `/v1/photos?project_id=${project.id}&sort=captured_at`);
    assert.deepEqual(timeline.data.map((p: Json) => p.caption), ['Deck poured', 'Formwork west', 'Formwork east', 'Site cleared'], 'ties: the later upload first');
    assert.ok(timeline.data.every((p: Json) => p.variants.large), 'processed');
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function newPage(viewport: { width: number; height: number }, hasTouch = false): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport, hasTouch, isMobile: hasTouch, locale: 'en-US', timezoneId: 'UTC' });
    await sessionCookieFor(origin, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    return { context, page, errors };
  }
  const photoLoaded = (page: Page) => page.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0) && document.images.length > 0);
  const apiPhoto = (id: string) => call(ws.admin.key, 'GET', `/v1/photos/${id}`);

  it('on a desktop: pages through the timeline, edits caption and tags, draws and saves annotations', async () => {
    const { context, page, errors } = await newPage(VIEWPORTS.desktop);
    await page.goto(`${origin}/photos/${newest.id}`);
    await page.getByRole('heading', { name: 'Deck poured', level: 1 }).waitFor();
    await photoLoaded(page);
    const image = page.getByRole('img', { name: 'Deck poured' });
    assert.equal(await image.evaluate((img) => (img as HTMLImageElement).naturalWidth), 800, 'the large variant, full size');

    // When (in the photo's own zone, and where the time came from), where, who.
    const facts = await page.locator('dl').innerText();
    assert.match(facts, /Monday, March 2, 2026 at 8:00\s?AM \(GMT-6\)/);
    assert.match(facts, /America\/Chicago/);
    assert.match(facts, /from the camera, with its offset from UTC/);
    assert.match(facts, /41\.878100, -87\.629800/);
    assert.match(facts, /Uploaded by\s+Ada Foreman/);
    assert.match(await page.getByRole('link', { name: /Open in map/ }).getAttribute('href') ?? '', /^https:\/\/www\.openstreetmap\.org\/\?mlat=41\.8781/);
    assert.ok(await page.getByRole('link', { name: '← Harbour Bridge Retrofit' }).isVisible(), 'back to the project');

    // Previous / next in timeline order (ties included), by link and by arrow key.
    const nav = page.getByRole('navigation', { name: 'Photos of this project' });
    await nav.getByText('Newest photo').waitFor();
    const heading = () => page.getByRole('heading', { level: 1 }).innerText();
    // While a photo's neighbours are being found, the links of the one before stay (inert: aria-disabled).
    const neighboursKnown = () => nav.getByRole('link', { disabled: true }).first().waitFor({ state: 'detached' });
    for (const [photo, caption] of [[tieLater, 'Formwork west'], [tieEarlier, 'Formwork east'], [oldest, 'Site cleared']] as const) {
      await neighboursKnown();
      await nav.getByRole('link', { name: 'Next photo →' }).click();
      await page.getByRole('heading', { name: caption, level: 1 }).waitFor();
      assert.match(page.url(), new RegExp(`/photos/${photo.id}$`));
    }
    await nav.getByText('Oldest photo').waitFor();
    // By keyboard: Enter on the focused link; the focus stays on it as the next photo loads.
    await neighboursKnown();
    await nav.getByRole('link', { name: '← Previous photo' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Formwork east', level: 1 }).waitFor();
    await neighboursKnown();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), '← Previous photo', 'focus kept');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Site cleared', level: 1 }).waitFor();
    for (const caption of ['Formwork east', 'Formwork west', 'Deck poured']) {
      await neighboursKnown();
      await page.keyboard.press('ArrowLeft');
      await page.getByRole('heading', { name: caption, level: 1 }).waitFor();
    }
    await neighboursKnown();
    await page.keyboard.press('ArrowRight');
    await page.getByRole('heading', { name: 'Formwork west', level: 1 }).waitFor();
    await page.goto(`${origin}/photos/${newest.id}`);
    await page.getByRole('heading', { name: 'Deck poured', level: 1 }).waitFor();
    assert.equal(await heading(), 'Deck poured');

    // Tags: add two, remove one (the removal's 204 has no ETag: the page reads the photo again).
    await page.getByLabel('Add a tag').selectOption({ label: 'Roof' });
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Remove tag Roof' }).waitFor();
    await page.getByLabel('Add a tag').selectOption({ label: 'Safety' });
    await page.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('button', { name: 'Remove tag Safety' }).waitFor();
    assert.deepEqual((await apiPhoto(newest.id)).tags.map((tag: Json) => tag.id), [roof.id, safety.id]);
    await page.getByRole('button', { name: 'Remove tag Roof' }).click();
    await page.getByRole('status').filter({ hasText: 'Tag "Roof" removed.' }).waitFor();
    assert.deepEqual((await apiPhoto(newest.id)).tags.map((tag: Json) => tag.id), [safety.id]);
    assert.deepEqual(await page.getByRole('list', { name: 'Tags of this photo' }).getByRole('listitem').allInnerTexts().then((l) => l.map((s) => s.split('\n')[0]!.trim())), ['Safety']);

    // Caption (If-Match with the ETag read after the tag removal), then a 412 when someone else changed it.
    const caption = page.getByLabel('Caption');
    await caption.fill('Deck poured, north side');
    await page.getByRole('button', { name: 'Save caption' }).click();
    await page.getByRole('status').filter({ hasText: 'The caption is saved.' }).waitFor();
    assert.equal((await apiPhoto(newest.id)).caption, 'Deck poured, north side');
    await call(ws.admin.key, 'PATCH', `/v1/photos/${newest.id}`, { caption: 'Deck poured (Ada)' });
    await caption.fill('Deck poured, mine');
    await page.getByRole('button', { name: 'Save caption' }).click();
    const stale = page.getByRole('alert').filter({ hasText: 'Someone else changed this photo' });
    await stale.waitFor();
    assert.match(await stale.innerText(), /Nothing was saved/);
    assert.equal((await apiPhoto(newest.id)).caption, 'Deck poured (Ada)', 'nothing overwritten');
    await stale.getByRole('button', { name: 'Reload' }).click();
    await page.waitForFunction(() => (document.querySelector('textarea') as HTMLTextAreaElement | null)?.value === 'Deck poured (Ada)');
    await caption.fill('Deck poured, north side');
    await page.getByRole('button', { name: 'Save caption' }).click();
    await page.getByRole('status').filter({ hasText: 'The caption is saved.' }).waitFor();
    assert.equal((await apiPhoto(newest.id)).caption, 'Deck poured, north side');

    // Annotate: each tool, a colour change, undo of the last shape, save.
    await page.getByRole('button', { name: 'Annotate' }).click();
    await pick(page, 'Arrow');
    assert.ok(await page.getByRole('radio', { name: 'Red', exact: true }).isChecked(), 'red to start with');
    await drag(page, [0.1, 0.1], [0.4, 0.3]);
    await pick(page, 'Yellow');
    await pick(page, 'Rectangle');
    await drag(page, [0.5, 0.5], [0.8, 0.7]);
    await pick(page, 'Blue');
    await pick(page, 'Thick');
    await pick(page, 'Ellipse');
    await drag(page, [0.2, 0.6], [0.4, 0.9]);
    await pick(page, 'Freehand');
    await drag(page, [0.6, 0.1], [0.9, 0.2], [[0.65, 0.2], [0.7, 0.1], [0.8, 0.25]]);
    await pick(page, 'Text');
    await page.getByLabel('Text to place').fill('Crack here');
    const area = page.getByRole('img', { name: /^Drawing area/ });
    await area.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const box = (await area.boundingBox())!;
    await page.mouse.click(box.x + 0.55 * box.width, box.y + 0.45 * box.height);
    await pick(page, 'Line');
    await drag(page, [0.05, 0.95], [0.3, 0.95]);
    assert.match(await area.getAttribute('aria-label') ?? '', /1 arrow, 1 rectangle, 1 ellipse, 1 freehand line, 1 text, 1 line/);
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.match(await page.getByRole('status').filter({ hasText: 'Undone' }).innerText(), /1 text\.$/);
    assert.equal(await area.locator('[data-shape]').count(), 5, 'the line is gone');
    await page.getByRole('button', { name: 'Redo' }).click();
    assert.equal(await area.locator('[data-shape]').count(), 6);
    await page.getByRole('button', { name: 'Undo' }).click();
    assert.equal(await area.locator('[data-shape]').count(), 5);
    assert.deepEqual(await seriousAxeViolations(page), []);
    // Once each, however often the photo was read again (siblings with one key were once drawn twice).
    assert.equal(await page.getByRole('heading', { name: 'Tags' }).count(), 1, 'one Tags section');
    await page.screenshot({ path: screenshotPath('web-photo-annotate-desktop'), fullPage: true });
    await page.getByRole('button', { name: 'Save annotations' }).click();
    await page.getByRole('status').filter({ hasText: 'The annotations are saved.' }).waitFor();

    const saved = (await apiPhoto(newest.id)).annotations as Json[];
    assert.deepEqual(saved.map((s) => s.type), ['arrow', 'rectangle', 'ellipse', 'path', 'text']);
    assert.deepEqual(saved.map((s) => s.color), ['#e02020', '#ffd400', '#1f6feb', '#1f6feb', '#1f6feb']);
    const [arrow, rect, ellipse, path, text] = saved as [Json, Json, Json, Json, Json];
    const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 0.02, `${actual} ≈ ${expected}`);
    near(arrow.x1, 0.1); near(arrow.y1, 0.1); near(arrow.x2, 0.4); near(arrow.y2, 0.3);
    near(rect.x, 0.5); near(rect.y, 0.5); near(rect.w, 0.3); near(rect.h, 0.2);
    near(ellipse.x, 0.2); near(ellipse.y, 0.6); near(ellipse.w, 0.2); near(ellipse.h, 0.3);
    assert.ok(ellipse.width > rect.width, 'thick after medium');
    assert.ok(path.points.length >= 4);
    assert.ok(path.points.flat().every((v: number) => v >= 0 && v <= 1));
    assert.equal(text.text, 'Crack here');
    near(text.x, 0.55); near(text.y, 0.45);

    // The server renders the annotated variant; after a reload the shapes show over the photo.
    await t.runJobs();
    assert.ok((await apiPhoto(newest.id)).variants.annotated, 'the annotated variant');
    await page.reload();
    const overlay = page.getByRole('img', { name: /^Annotations:/ });
    await overlay.waitFor();
    assert.equal(await overlay.getAttribute('aria-label'), 'Annotations: 1 arrow, 1 rectangle, 1 ellipse, 1 freehand line, 1 text');
    assert.deepEqual(await overlay.locator('[data-shape]').evaluateAll((els) => els.map((e) => e.getAttribute('data-shape'))), ['arrow', 'rectangle', 'ellipse', 'path', 'text']);
    const [photoBox, overlayBox] = [await image.boundingBox(), await overlay.boundingBox()];
    assert.deepEqual(overlayBox, photoBox, 'the overlay covers the photo exactly');
    assert.ok(await page.getByRole('link', { name: 'Annotated image' }).isVisible());
    await photoLoaded(page);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-photo-desktop') });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone (touch): no sideways scrolling, draws, and says in words when someone else saved first', async () => {
    const { context, page, errors } = await newPage(VIEWPORTS.phone, true);
    await page.goto(`${origin}/photos/${tieLater.id}`);
    await page.getByRole('heading', { name: 'Formwork west', level: 1 }).waitFor();
    await photoLoaded(page);
    const nav = page.getByRole('navigation', { name: 'Photos of this project' });
    await nav.getByRole('link', { name: '← Previous photo' }).waitFor();
    await nav.getByRole('link', { name: 'Next photo →' }).waitFor();
    const noSideways = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
    assert.ok(await noSideways(), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);

    await page.getByRole('button', { name: 'Annotate' }).click();
    await pick(page, 'Green');
    await pick(page, 'Rectangle');
    await drag(page, [0.2, 0.2], [0.7, 0.5]);
    await pick(page, 'Text');
    await page.getByLabel('Text to place').fill('Level here');
    await page.getByRole('button', { name: 'Place text at the centre' }).click();
    // A finger's tap places a text too (pointer events from touch).
    await page.getByLabel('Text to place').fill('Tap');
    const area = page.getByRole('img', { name: /^Drawing area/ });
    await area.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    const box = (await area.boundingBox())!;
    await page.touchscreen.tap(box.x + 0.3 * box.width, box.y + 0.8 * box.height);
    assert.equal(await area.locator('[data-shape]').count(), 3);
    assert.ok(await noSideways(), 'no sideways scrolling while drawing');
    assert.equal(await area.evaluate((el) => getComputedStyle(el).touchAction), 'none');
    assert.deepEqual(await seriousAxeViolations(page), []);

    // Someone else changes the photo meanwhile: the save is refused (412) and says so in words.
    await call(ws.admin.key, 'PATCH', `/v1/photos/${tieLater.id}`, { caption: 'Formwork west, checked' });
    await page.getByRole('button', { name: 'Save annotations' }).click();
    const stale = page.getByRole('alert').filter({ hasText: 'Someone else changed this photo since you opened it.' });
    await stale.waitFor();
    assert.match(await stale.innerText(), /Nothing was saved/);
    assert.deepEqual((await apiPhoto(tieLater.id)).annotations, []);
    await stale.getByRole('button', { name: 'Save mine anyway' }).click();
    await page.getByRole('status').filter({ hasText: 'The annotations are saved.' }).waitFor();
    const saved = (await apiPhoto(tieLater.id)).annotations as Json[];
    assert.deepEqual(saved.map((s) => [s.type, s.color]), [['rectangle', '#1e9e3a'], ['text', '#1e9e3a'], ['text', '#1e9e3a']]);
    assert.deepEqual([saved[1]!.x, saved[1]!.y], [0.5, 0.5]);
    assert.ok(Math.abs(saved[2]!.x - 0.3) < 0.02 && Math.abs(saved[2]!.y - 0.8) < 0.02, JSON.stringify(saved[2]));
    await page.getByRole('img', { name: 'Annotations: 1 rectangle, 2 texts' }).waitFor();
    // Cancel leaves what was saved as it was.
    await page.getByRole('button', { name: 'Edit annotations' }).click();
    await page.getByRole('button', { name: 'Clear' }).click();
    assert.equal(await page.getByRole('img', { name: /^Drawing area/ }).locator('[data-shape]').count(), 0);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('img', { name: 'Annotations: 1 rectangle, 2 texts' }).waitFor();
    assert.equal((await apiPhoto(tieLater.id)).annotations.length, 3);
    assert.equal(await page.getByLabel('Caption').inputValue(), 'Formwork west, checked', 'the caption field follows the newer photo');
    assert.ok(await noSideways());
    await page.screenshot({ path: screenshotPath('web-photo-phone'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: comments on the photo, with an @mention that reaches the admin and leads back to the photo', async () => {
    const { context, page, errors } = await newPage(VIEWPORTS.desktop);
    await page.goto(`${origin}/photos/${oldest.id}`);
    await page.getByRole('heading', { name: 'Site cleared', level: 1 }).waitFor();
    const admin = await call(ws.admin.key, 'GET', '/v1/users/me');
    const box = page.getByRole('combobox', { name: 'Add a comment' });
    await box.fill(`Checked with @${admin.handle.slice(0, 3)}`);
    await page.getByRole('listbox', { name: 'People to mention' }).getByRole('option', { name: new RegExp(`@${admin.handle}`) }).click();
    await box.pressSequentially('before the pour.');
    await page.getByRole('button', { name: 'Post comment' }).click();
    await page.getByRole('region', { name: 'Comments' }).getByRole('listitem').getByText(/before the pour\./).waitFor();
    const comments = await call(ws.admin.key, 'GET', `/v1/photos/${oldest.id}/comments`);
    assert.equal(comments.data.length, 1);
    assert.equal(comments.data[0].body, `Checked with @${admin.handle} before the pour.`);
    const inbox = await call(ws.admin.key, 'GET', '/v1/notifications');
    const mention = inbox.data.find((n: Json) => n.comment_id === comments.data[0].id || n.data?.comment_id === comments.data[0].id || JSON.stringify(n).includes(comments.data[0].id));
    assert.ok(mention, `the admin is notified: ${JSON.stringify(inbox.data)}`);

    // The admin answers with a mention of Rosa: her inbox leads to the comment on this photo.
    const rosa = (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data.find((u: Json) => u.email === email);
    const answer = await call(ws.admin.key, 'POST', `/v1/photos/${oldest.id}/comments`, { body: `@${rosa.handle} thanks, noted.` });
    await page.goto(`${origin}/notifications`);
    await page.getByRole('link', { name: /mentioned you in a comment/ }).first().click();
    await page.waitForURL(`${origin}/photos/${oldest.id}#comment-${answer.id}`);
    await page.getByRole('heading', { name: 'Site cleared', level: 1 }).waitFor();
    await page.waitForFunction((id) => document.activeElement?.id === `comment-${id}`, answer.id);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('shows an unknown photo in words', async () => {
    const { context, page } = await newPage(VIEWPORTS.phone);
    await page.goto(`${origin}/photos/pho_00000000000000000000000000`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /not found/i);
    await context.close();
  });
});
