/**
 * What the browser tests share on the server side: the app listening on a real port whose address
 * is also its public URL (so signed thumbnail URLs point where the browser is), API calls with a
 * key, and a user who has accepted an invitation with a password.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A test app listening on 127.0.0.1, with JOBSITE_PUBLIC_URL its own address. */
export async function listeningTestApp(env: Record<string, string> = {}): Promise<{ t: TestContext; origin: string }> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const t = await startTestApp({ JOBSITE_PUBLIC_URL: origin, ...env });
  await t.app.listen({ port, host: '127.0.0.1' });
  return { t, origin };
}

/** A request with an API key that must succeed; its JSON body (null for 204). */
export async function callApi(origin: string, key: string, method: string, path: string, body?: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${origin}${path}`, {
    method, headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = res.status === 204 ? null : await res.json() as Record<string, any>;
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json!;
}

export const TEST_PASSWORD = 'correct horse battery staple';

/** A user "Rosa Crew" (standard unless `role` says) with TEST_PASSWORD: invited by the admin (invite_url), the invitation accepted. Returns the user as POST /v1/users made it. */
export async function userWithPassword(origin: string, ws: TestWorkspace, email: string, role = 'standard', name = { first_name: 'Rosa', last_name: 'Crew' }): Promise<Record<string, any>> {
  const user = await callApi(origin, ws.admin.key, 'POST', '/v1/users', { email, ...name, role });
  assert.ok(typeof user.invite_url === 'string', `POST /v1/users returns invite_url: ${JSON.stringify(user)}`);
  const token = decodeURIComponent(new URL(user.invite_url).pathname.split('/').pop()!);
  await callApi(origin, ws.admin.key, 'POST', `/v1/invitations/${encodeURIComponent(token)}`, { password: TEST_PASSWORD });
  return user;
}

/** A real photo upload (multipart over HTTP with the API key): a JPEG of `color` with that caption and capture time. */
export async function uploadPhoto(origin: string, key: string, projectId: string, caption: string, capturedAt: string, color: string): Promise<Record<string, any>> {
  const form = new FormData();
  form.set('caption', caption);
  form.set('captured_at', capturedAt);
  form.set('file', new Blob([new Uint8Array(await jpegWithExif({}, 480, 360, color))], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/projects/${projectId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Record<string, any>;
}

/** Signs `email` in with TEST_PASSWORD (POST /v1/sessions) and puts the session cookie into the browser's context as the API set it. */
export async function sessionCookieFor(origin: string, context: BrowserContext, email: string): Promise<void> {
  const res = await fetch(`${origin}/v1/sessions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: TEST_PASSWORD }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('jobsite_session='));
  assert.ok(cookie, 'POST /v1/sessions sets the jobsite_session cookie');
  const value = cookie.split(';')[0]!.slice('jobsite_session='.length);
  await context.addCookies([{ name: 'jobsite_session', value, url: origin, httpOnly: true, sameSite: 'Lax' }]);
}

/** A browser page and its context, with the page's uncaught script errors (a test expects none). */
export interface OpenPage {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/**
 * A new context (en-US, UTC, the viewport) and page on `origin`, signed in as `email` (its session
 * cookie) unless null; `options` adds to the context's (hasTouch, permissions…).
 */
export async function openPage(browser: Browser, origin: string, viewport: { width: number; height: number }, email: string | null, options: BrowserContextOptions = {}): Promise<OpenPage> {
  const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC', ...options });
  if (email) await sessionCookieFor(origin, context, email);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}
