/**
 * The public share page (/s/{token}) in a real Chromium, as a client opens it on a phone without
 * an account (and on a desktop): no sideways scrolling, every thumbnail drawn (the page's CSP lets its signed images
 * and its own stylesheet in, and nothing was refused), full size on click, no serious axe-core
 * violations. The screenshot goes to docs/images/share-link-phone.png (README, docs/share-links.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { newWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;

async function upload(key: string, projectId: string, caption: string, capturedAt: string, color: string, width: number, height: number): Promise<string> {
  const form = new FormData();
  form.set('caption', caption);
  form.set('captured_at', capturedAt);
  form.set('file', new Blob([new Uint8Array(await jpegWithExif({}, width, height, color))], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/projects/${projectId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json() as Json).id;
}

describe('the public share page in Chromium', { skip: SKIP }, () => {
  let browser: Browser;
  let link: Json;
  let adminKey: string;

  before(async () => {
    browser = await launchChromium();
    const ws = await newWorkspace(t);
    adminKey = ws.admin.key;
    const project = await callApi(origin, ws.admin.key, 'POST', '/v1/projects', { name: 'Maple St. remodel — kitchen and rear wall' });
    const photos = [
      await upload(ws.admin.key, project.id, 'North wall after the new sill plate', '2026-11-20T15:04:00.000Z', '#8e44ad', 1200, 900),
      await upload(ws.admin.key, project.id, 'Kitchen rough-in: plumbing and electrical before drywall, ready for the inspector', '2026-11-21T09:30:00.000Z', '#16a085', 900, 1200),
      await upload(ws.admin.key, project.id, 'Rear deck footings', '2026-11-22T16:45:00.000Z', '#d35400', 1600, 900),
    ];
    await t.runJobs();
    link = await callApi(origin, ws.admin.key, 'POST', `/v1/projects/${project.id}/share-links`, { photo_ids: photos, allow_download: true });
  });
  after(async () => browser?.close());

  for (const [name, viewport] of Object.entries(VIEWPORTS)) it(`on a ${name}: fits the width, draws every thumbnail, opens full size, passes axe-core`, async () => {
    const phone = viewport === VIEWPORTS.phone;
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC', hasTouch: phone });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (m) => { if (/Content Security Policy|Refused/i.test(m.text())) refused.push(m.text()); });
    const res = await page.goto(link.url);
    assert.equal(res?.status(), 200);
    await page.getByRole('heading', { level: 1, name: 'Maple St. remodel — kitchen and rear wall' }).waitFor();
    const images = page.getByRole('img');
    assert.equal(await images.count(), 3);
    for (let i = 0; i < 3; i++) {
      await images.nth(i).scrollIntoViewIfNeeded();
      await page.waitForFunction((n) => { const img = document.querySelectorAll('img')[n]; return img?.complete && img.naturalWidth > 0; }, i);
    }
    assert.ok(await page.getByRole('img', { name: 'Rear deck footings' }).isVisible());
    assert.equal(await page.getByRole('link', { name: 'Download original' }).count(), 3);
    // A finger-sized target (it was a 21 px line of small text).
    assert.ok((await page.getByRole('link', { name: 'Download original' }).first().boundingBox())!.height >= 44);
    const sideways = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(sideways <= 0, `scrolls sideways by ${sideways}px`);
    // The stylesheet applied (its CSP hash matches): the grid is one column on a phone, several on a desktop.
    const columns = await page.evaluate(() => getComputedStyle(document.querySelector('ul')!).gridTemplateColumns.split(' ').length);
    if (phone) assert.equal(columns, 1);
    else assert.ok(columns >= 3, `${columns} columns`);
    assert.deepEqual(refused, []);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.evaluate(() => window.scrollTo(0, 0));
    if (phone) await page.screenshot({ path: 'docs/images/share-link-phone.png', fullPage: false });

    // Full size on click: the large variant, served from its signed URL.
    const [full] = await Promise.all([page.waitForResponse((r) => r.url().includes('/v1/files/')), page.getByRole('link', { name: 'North wall after the new sill plate' }).click()]);
    assert.equal(full.status(), 200);
    assert.match(full.headers()['content-type'] ?? '', /^image\/jpeg/);
    await context.close();
  });

  it('a revoked link shows the 410 page, in words', async () => {
    await callApi(origin, adminKey, 'DELETE', `/v1/share-links/${link.id}`);
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    const res = await page.goto(link.url);
    assert.equal(res?.status(), 410);
    assert.ok(await page.getByRole('heading', { level: 1, name: 'This link has been turned off' }).isVisible());
    assert.equal(await page.getByRole('img').count(), 0);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await context.close();
  });
});
