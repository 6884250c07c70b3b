/**
 * The web app as the API process serves it (issue 14): caching headers, CSP, the client-route
 * fallback next to the API's own 404s, the first screen's weight, and the sign-in screen in a
 * real Chromium on a desktop and a phone (labels, keyboard, axe-core, screenshots for the docs).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { firstScreenScripts, FIRST_SCREEN_JS_BUDGET } from '../scripts/web-size.ts';
import { ConfigError, DEFAULT_MAP_TILES, loadConfig } from '../src/config.ts';
import { webContentSecurityPolicy, withPageSettings } from '../src/http/web-app.ts';
import { startTestApp, type TestContext } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';

let t: TestContext;
let origin: string;

before(async () => {
  t = await startTestApp();
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => t?.close());

function assertAppPage(res: Response, body: string) {
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /(^|; )script-src 'self'(;|$)/, 'scripts only from our own files: no unsafe-inline');
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.match(body, /<div id="root"><\/div>/);
  assert.doesNotMatch(body, /<script(?![^>]*\ssrc=)[^>]*>/, 'no inline script in index.html');
}

describe('serving the web app', () => {
  it('serves index.html at / and at client routes, revalidated on every load, with a CSP', async () => {
    for (const path of ['/', '/projects/prj_01JABCDEFGHJKMNPQRSTVWXYZ0', '/invite/some-token', '/reset/other-token']) {
      const res = await fetch(`${origin}${path}`);
      assertAppPage(res, await res.text());
    }
    const head = await fetch(`${origin}/reset/other-token`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('cache-control'), 'no-cache');
    assert.match(head.headers.get('content-type') ?? '', /^text\/html/);
  });

  it('serves the hashed assets as immutable, and a missing asset is a 404, not the page', async () => {
    const html = await (await fetch(`${origin}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.some((a) => a.endsWith('.js')) && assets.some((a) => a.endsWith('.css')), `assets in index.html: ${assets.join(', ')}`);
    for (const asset of assets) {
      const res = await fetch(`${origin}${asset}`);
      assert.equal(res.status, 200, asset);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable', asset);
      assert.match(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : /text\/css/);
      await res.arrayBuffer();
    }
    const missing = await fetch(`${origin}/assets/index-nothere.js`);
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get('content-type') ?? '', /application\/problem\+json/);
  });

  it('leaves the API, the reference and the probes as they were', async () => {
    const unknown = await fetch(`${origin}/v1/nope`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /application\/problem\+json/);
    assert.equal((await unknown.json() as { code: string }).code, 'route_not_found');
    const post = await fetch(`${origin}/projects`, { method: 'POST' });
    assert.equal(post.status, 404, 'only GET and HEAD fall back to the page');
    assert.match(post.headers.get('content-type') ?? '', /application\/problem\+json/);
    const health = await fetch(`${origin}/healthz`);
    assert.deepEqual(await health.json(), { status: 'ok' });
    const docs = await fetch(`${origin}/docs/`);
    assert.equal(docs.status, 200);
    assert.doesNotMatch(await docs.text(), /<div id="root"><\/div>/, '/docs is the API reference, not the app');
    const spec = await fetch(`${origin}/v1/openapi.json`);
    assert.equal((await spec.json() as { openapi: string }).openapi.slice(0, 2), '3.');
  });

  it('keeps the first screen\'s JavaScript within 150 KB gzipped', () => {
    const size = firstScreenScripts();
    console.log(`# first screen JavaScript: ${(size.gzipped / 1024).toFixed(1)} KiB gzipped (${size.files.map((f) => f.file).join(', ')})`);
    assert.ok(size.files.length > 0);
    assert.ok(size.gzipped <= FIRST_SCREEN_JS_BUDGET, `${size.gzipped} bytes gzipped > ${FIRST_SCREEN_JS_BUDGET}`);
  });
});

describe('the map tiles setting (JOBSITE_MAP_TILES) in the page and the CSP', () => {
  const config = (tiles?: string) => loadConfig({ JOBSITE_PUBLIC_URL: 'https://jobsite.example', ...(tiles === undefined ? {} : { JOBSITE_MAP_TILES: tiles }) });
  const html = '<html><head><title>Jobsite</title></head><body></body></html>';
  const imgSrc = (tiles?: string) => webContentSecurityPolicy(config(tiles)).split('; ').find((d) => d.startsWith('img-src '))!;

  it('defaults to OpenStreetMap; `off` and empty turn the tiles off; a bad value stops start-up', () => {
    assert.equal(config().mapTiles, DEFAULT_MAP_TILES);
    assert.equal(config('off').mapTiles, null);
    assert.equal(config('').mapTiles, null);
    assert.equal(config(' https://tiles.example/{z}/{x}/{y}.png ').mapTiles, 'https://tiles.example/{z}/{x}/{y}.png');
    assert.throws(() => config('ftp://tiles.example/{z}/{x}/{y}.png'), ConfigError);
    assert.throws(() => config('https://tiles.example/tile.png'), /JOBSITE_MAP_TILES must be an http\(s\) URL template/);
  });

  it('puts the setting in a <meta> of index.html, escaped, before </head>', () => {
    assert.match(withPageSettings(html, config()), /<meta name="jobsite-map-tiles" content="https:\/\/tile\.openstreetmap\.org\/\{z\}\/\{x\}\/\{y\}\.png" \/>\s*<\/head>/);
    assert.match(withPageSettings(html, config('off')), /<meta name="jobsite-map-tiles" content="off" \/>/);
    const tricky = withPageSettings(html, config('https://tiles.example/{z}/{x}/{y}.png?a="><script>alert(1)</script>&b=\'$&'));
    assert.match(tricky, /content="https:\/\/tiles\.example\/\{z\}\/\{x\}\/\{y\}\.png\?a=&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;&amp;b=&#39;\$&amp;"/);
    assert.doesNotMatch(tricky, /<script>/);
    assert.equal(tricky.match(/<\/head>/g)?.length, 1);
  });

  it('adds a plain-http tile server to img-src (https is allowed already)', () => {
    assert.doesNotMatch(imgSrc(), /openstreetmap/, 'https tiles need no entry of their own');
    assert.match(imgSrc(), / https:( |$)/);
    assert.match(imgSrc('http://tiles.internal:8080/{z}/{x}/{y}.png'), / http:\/\/tiles\.internal:8080( |$)/);
    assert.match(imgSrc('http://{s}.tiles.internal/{z}/{x}/{y}.png'), / http:\/\/\*\.tiles\.internal( |$)/);
    assert.doesNotMatch(imgSrc('off'), /tiles/);
  });
});

describe('the sign-in screen in Chromium', { skip: chromiumPath() ? false : NO_CHROMIUM }, () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  for (const [name, viewport] of Object.entries(VIEWPORTS)) {
    it(`on a ${name} (${viewport.width}×${viewport.height}): labelled fields, keyboard, no serious axe violations`, async () => {
      const context = await browser.newContext({ viewport, locale: 'en-US' });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      page.on('console', (msg) => {
        // The 401/404 of "who is signed in?" is logged by Chromium as a failed resource; anything else is a fault.
        if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) errors.push(msg.text());
      });
      await page.goto(`${origin}/projects/prj_01JABCDEFGHJKMNPQRSTVWXYZ0`);

      await page.getByRole('heading', { name: 'Sign in to Jobsite' }).waitFor();
      const email = page.getByLabel('E-mail');
      const password = page.getByLabel('Password');
      const submit = page.getByRole('button', { name: 'Sign in' });
      assert.equal(await email.getAttribute('type'), 'email');
      assert.equal(await email.getAttribute('autocomplete'), 'username');
      assert.equal(await password.getAttribute('type'), 'password');

      // The keyboard alone: the e-mail field has focus, Tab moves to the password, then to the button.
      assert.ok(await email.evaluate((el) => el === document.activeElement), 'the e-mail field has focus on load');
      await page.keyboard.type('crew@example.test');
      await page.keyboard.press('Tab');
      assert.ok(await password.evaluate((el) => el === document.activeElement), 'Tab moves to the password');
      await page.keyboard.type('not-the-password');
      await page.keyboard.press('Tab');
      assert.ok(await submit.evaluate((el) => el === document.activeElement), 'Tab moves to the Sign in button');
      // The focused button shows it: an outline the CSS draws for :focus-visible.
      const outline = await submit.evaluate((el) => getComputedStyle(el).outlineStyle);
      assert.equal(outline, 'solid', 'focus is visible');
      assert.equal(await email.inputValue(), 'crew@example.test');

      const violations = await seriousAxeViolations(page);
      assert.deepEqual(violations, [], JSON.stringify(violations, null, 2));
      // Fill the form with something a person would see (the typed values stay as typed).
      await email.fill('');
      await password.fill('');
      await email.focus();
      await page.screenshot({ path: screenshotPath(`web-sign-in-${name}`) });
      assert.deepEqual(errors, []);
      await context.close();
    });
  }

  it('shows a failed sign-in in words, not a blank page', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.phone });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.getByLabel('E-mail').fill('crew@example.test');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // Without the sign-in API the server answers 404 route_not_found; with it, 401 invalid_credentials: either way, words.
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.innerText(), /\w+.*\w+/);
    assert.ok(await page.getByLabel('E-mail').isVisible(), 'the form stays to try again');
    await context.close();
  });
});
