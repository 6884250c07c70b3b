/**
 * The projects page's tag filter and map, in Chromium. The map is Leaflet, loaded only when the
 * map is opened; its tiles come from JOBSITE_MAP_TILES — here a tiny tile server of the test's own
 * that counts what it is asked for — or, with `off`, there are none and the pins show all the same.
 * Pins are buttons named after their project: a click or Enter opens it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { newWorkspace, startTestApp, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, freePort, listeningTestApp, sessionCookieFor, userWithPassword } from './web-server.ts';

/** A tile server: a 256 px PNG for any /{z}/{x}/{y}.png, and the paths it was asked for. */
const tilePng = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#cfe3c8' } }).png().toBuffer();
const tileRequests: string[] = [];
const tileServer = http.createServer((req, res) => {
  tileRequests.push(req.url ?? '');
  if (/^\/\d+\/-?\d+\/-?\d+\.png$/.test(req.url ?? '')) res.writeHead(200, { 'content-type': 'image/png' }).end(tilePng);
  else res.writeHead(404).end();
});
await new Promise<void>((resolve) => tileServer.listen(0, '127.0.0.1', resolve));
const tileOrigin = `http://127.0.0.1:${(tileServer.address() as net.AddressInfo).port}`;

// The app with tiles from the tile server, and a second API process on the same database with tiles off.
const { t, origin } = await listeningTestApp({ JOBSITE_MAP_TILES: `${tileOrigin}/{z}/{x}/{y}.png` });
const offPort = await freePort();
const offOrigin = `http://127.0.0.1:${offPort}`;
const tOff = await startTestApp({ JOBSITE_PUBLIC_URL: offOrigin, JOBSITE_MAP_TILES: 'off' }, { databaseUrl: t.url });
await tOff.app.listen({ port: offPort, host: '127.0.0.1' });
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => {
  await tOff.close();
  await t.close();
  await new Promise((resolve) => tileServer.close(resolve));
});

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

describe('the projects map and tag filter in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const email = `rosa-${Date.now()}@example.test`;
  const ids: Record<string, string> = {};
  let marine: string;

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, email);
    marine = (await call(ws.admin.key, 'POST', '/v1/tags', { name: 'Marine' })).id;
    const projects = [
      { name: 'North Yard', coordinates: { lat: -36.8485, lon: 174.7633 } },
      { name: 'South Pier', coordinates: { lat: -41.2865, lon: 174.7762 } },
      { name: 'Lake Lodge', coordinates: { lat: -38.6857, lon: 176.0702 } },
      { name: 'Nowhere Depot', coordinates: null },
    ];
    for (const p of projects) ids[p.name] = (await call(ws.admin.key, 'POST', '/v1/projects', p)).id;
    await call(ws.admin.key, 'PUT', `/v1/projects/${ids['South Pier']}/tags/${marine}`);
    await call(ws.admin.key, 'PUT', `/v1/projects/${ids['Nowhere Depot']}/tags/${marine}`);
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function signedInPage(viewport: { width: number; height: number }, at: string): Promise<{ context: BrowserContext; page: Page; errors: string[]; requests: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    await sessionCookieFor(at, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('request', (req) => requests.push(req.url()));
    return { context, page, errors, requests };
  }

  /** Every pin's box lies inside the map's: the map fitted their bounds. */
  async function pinsInsideMap(page: Page, names: string[]): Promise<void> {
    const map = (await page.getByRole('region', { name: /^Map/ }).boundingBox())!;
    for (const name of names) {
      const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!;
      assert.ok(box.x >= map.x && box.y >= map.y && box.x + box.width <= map.x + map.width && box.y + box.height <= map.y + map.height, `${name}'s pin is inside the map`);
    }
  }

  it('on a desktop: the tag filter in the address; the map loads Leaflet only when opened, fetches tiles, fits the pins, and a pin opens its project by click or Enter', async () => {
    const { context, page, errors, requests } = await signedInPage(VIEWPORTS.desktop, origin);
    await page.goto(`${origin}/projects`);
    await page.getByRole('link', { name: /North Yard/ }).waitFor();

    // The tag filter: kept in the address, and a reload keeps it.
    await page.getByLabel('Tag').selectOption({ label: 'Marine' });
    await page.waitForURL((url) => url.searchParams.get('tag_id') === marine);
    await page.getByRole('link', { name: /North Yard/ }).waitFor({ state: 'detached' });
    // The old list may go before the new one arrives: wait for the filtered list itself.
    await page.getByRole('link', { name: /South Pier/ }).waitFor();
    // Each link's first line is the project's name (the address follows).
    const names = async () => (await page.getByRole('list', { name: 'Projects' }).getByRole('link').allInnerTexts()).map((text) => text.split('\n')[0]!.trim()).sort();
    assert.deepEqual(await names(), ['Nowhere Depot', 'South Pier']);
    await page.reload();
    await page.getByRole('link', { name: /South Pier/ }).waitFor();
    assert.deepEqual(await names(), ['Nowhere Depot', 'South Pier']);
    assert.equal(await page.getByLabel('Tag').inputValue(), marine);
    await page.getByLabel('Tag').selectOption({ label: 'All tags' });
    await page.getByRole('link', { name: /North Yard/ }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('tag_id'), null);
    assert.ok(!requests.some((url) => /ProjectsMap|leaflet/i.test(url)), 'no map code on the list');
    assert.equal(tileRequests.length, 0);

    // The map.
    await page.getByRole('button', { name: 'Map' }).click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'map');
    assert.equal(await page.getByRole('button', { name: 'Map' }).getAttribute('aria-pressed'), 'true');
    for (const name of ['North Yard', 'South Pier', 'Lake Lodge']) await page.getByRole('button', { name, exact: true }).waitFor();
    assert.ok(requests.some((url) => /\/assets\/ProjectsMap-[^/]+\.js$/.test(url)), 'the map\'s chunk is loaded now');
    // Tiles from the tile server are in the page, loaded.
    await page.waitForFunction((from) => [...document.images].some((img) => img.src.startsWith(from) && img.complete && img.naturalWidth === 256), tileOrigin);
    assert.ok(tileRequests.some((path) => /^\/\d+\/\d+\/\d+\.png$/.test(path)), `tiles asked from JOBSITE_MAP_TILES: ${tileRequests.slice(0, 3).join(', ')}`);
    await pinsInsideMap(page, ['North Yard', 'South Pier', 'Lake Lodge']);
    const status = page.getByRole('status').filter({ hasText: 'on the map' });
    assert.match(await status.innerText(), /3 projects on the map\. 1 project has no coordinates: see the list\./);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.getByRole('button', { name: 'Lake Lodge', exact: true }).focus();
    await page.getByRole('tooltip').filter({ hasText: 'Lake Lodge' }).waitFor();
    await page.screenshot({ path: screenshotPath('web-projects-map-desktop'), fullPage: true });

    // A click on a pin opens its project; Back returns to the map.
    await page.getByRole('button', { name: 'North Yard', exact: true }).click();
    await page.getByRole('heading', { name: 'North Yard', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/projects/${ids['North Yard']}`);
    await page.goBack();
    await page.getByRole('button', { name: 'South Pier', exact: true }).waitFor();
    assert.equal(new URL(page.url()).searchParams.get('view'), 'map');
    // Enter on a pin reached with the keyboard.
    await page.getByRole('button', { name: 'South Pier', exact: true }).focus();
    assert.ok(await page.evaluate(() => document.activeElement?.getAttribute('alt') === 'South Pier'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'South Pier', level: 1 }).waitFor();
    await page.goBack();

    // The tag filter applies to the map too; "see the list" goes to the list with the same filter.
    await page.getByLabel('Tag').selectOption({ label: 'Marine' });
    await page.getByRole('button', { name: 'North Yard', exact: true }).waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'South Pier', exact: true }).waitFor();
    await page.getByRole('link', { name: 'see the list' }).click();
    await page.getByRole('link', { name: /Nowhere Depot/ }).waitFor();
    const url = new URL(page.url());
    assert.equal(url.searchParams.get('view'), null);
    assert.equal(url.searchParams.get('tag_id'), marine);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone with JOBSITE_MAP_TILES=off: the pins show on a plain background, no tile is asked for, and Enter on a pin opens its project', async () => {
    const { context, page, errors, requests } = await signedInPage(VIEWPORTS.phone, offOrigin);
    const before = tileRequests.length;
    await page.goto(`${offOrigin}/projects?view=map`);
    assert.equal(await page.locator('meta[name="jobsite-map-tiles"]').getAttribute('content'), 'off');
    for (const name of ['North Yard', 'South Pier', 'Lake Lodge']) await page.getByRole('button', { name, exact: true }).waitFor();
    await page.getByText('Map tiles are turned off on this server').waitFor();
    await pinsInsideMap(page, ['North Yard', 'South Pier', 'Lake Lodge']);
    assert.equal(await page.evaluate(() => [...document.images].filter((img) => !img.src.startsWith(location.origin)).length), 0, 'no tile images');
    assert.equal(tileRequests.length, before, 'no tile requests');
    assert.deepEqual(requests.filter((url) => !url.startsWith(offOrigin) && !url.startsWith('data:')), [], 'nothing asked from another server');
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-projects-map-phone'), fullPage: true });

    // Tab reaches the pins (after the map itself); Enter opens the project.
    await page.getByRole('region', { name: /^Map/ }).focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('alt'));
    assert.ok(focused && ['North Yard', 'South Pier', 'Lake Lodge'].includes(focused), `a pin has the focus (${focused})`);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: focused, level: 1 }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
