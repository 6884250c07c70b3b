/**
 * Share links (issue 17), over real HTTP: made for photos and for a finished report, the public
 * page /s/{token} (its words, its images served 200 from their signed URLs, downloads only when
 * allowed, its headers), view counts, revoking and expiry (410 at once), unknown tokens (404),
 * bad input, who may see, make and revoke links, and the events, delivered by a real webhook.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { newUser, newWorkspace, type TestUser, type TestWorkspace } from './helpers.ts';
import { eventually, Receiver } from './webhook-receiver.ts';
import { listeningTestApp } from './web-server.ts';

type Json = Record<string, any>;
type Who = { key: string };

const { t, origin } = await listeningTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
const receiver = await Receiver.start();
const dispatcher = new WebhookDispatcher(
  { db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }), clock: { now: () => new Date() } },
  { timeoutMs: 2000, random: () => 0.5 },
);
after(async () => {
  await dispatcher.stop();
  await receiver.close();
  await t.close();
});

async function call(who: Who | null, method: string, path: string, body?: unknown): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: { ...(who ? { authorization: `Bearer ${who.key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) as Json : {}, headers: res.headers };
}

async function ok(who: Who, method: string, path: string, body?: unknown, status = 200): Promise<Json> {
  const res = await call(who, method, path, body);
  assert.equal(res.status, status, `${method} ${path}: ${JSON.stringify(res.json)}`);
  return res.json;
}

function problem(res: { status: number; json: Json }, status: number, code: string): Json {
  assert.equal(res.status, status, JSON.stringify(res.json));
  assert.equal(res.json.code, code, JSON.stringify(res.json));
  return res.json;
}

async function upload(who: Who, projectId: string, caption: string, color: string): Promise<string> {
  const form = new FormData();
  form.set('caption', caption);
  form.set('captured_at', '2026-11-20T15:04:00.000Z');
  form.set('file', new Blob([new Uint8Array(await jpegWithExif({}, 480, 360, color))], { type: 'image/jpeg' }), 'photo.jpg');
  const res = await fetch(`${origin}/v1/projects/${projectId}/photos`, { method: 'POST', headers: { authorization: `Bearer ${who.key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return (await res.json() as Json).id;
}

/** The public page as a browser gets it: status, headers, HTML. */
async function page(url: string, method = 'GET') {
  const res = await fetch(url, { method, redirect: 'manual' });
  return { status: res.status, headers: res.headers, html: await res.text() };
}

const srcs = (html: string, tag: 'img' | 'a') => [...html.matchAll(tag === 'img' ? /<img [^>]*src="([^"]+)"/g : /<a [^>]*href="([^"]+)"/g)]
  .map((m) => m[1]!.replace(/&amp;/g, '&'));

let ws: TestWorkspace;
let manager: TestUser;
let standard: TestUser;
let other: TestUser;
let rita: TestUser;
let projectId: string;
let hiddenProjectId: string;
let photos: string[];
let hiddenPhoto: string;

before(async () => {
  await dispatcher.start();
  ws = await newWorkspace(t);
  manager = await newUser(t, ws, 'manager');
  standard = await newUser(t, ws, 'standard');
  other = await newUser(t, ws, 'standard');
  rita = await newUser(t, ws, 'restricted');
  projectId = (await ok(manager, 'POST', '/v1/projects', { name: 'Maple St. <remodel> & annex' }, 201)).id;
  hiddenProjectId = (await ok(manager, 'POST', '/v1/projects', { name: 'Depot roof' }, 201)).id;
  await ok(manager, 'PUT', `/v1/projects/${projectId}/members/${rita.id}`);
  photos = [
    await upload(manager, projectId, 'North wall after the new sill plate', '#8e44ad'),
    await upload(manager, projectId, 'Kitchen rough-in', '#16a085'),
    await upload(manager, projectId, 'Rear deck footings', '#d35400'),
  ];
  hiddenPhoto = await upload(manager, hiddenProjectId, 'Depot gutter', '#2c3e50');
  await t.runJobs();
});

describe('share links: photos', () => {
  let link: Json;

  it('a standard user shares two photos: 201 with Location, the url, a 30-day expiry by default, and share_link.created delivered by webhook', async () => {
    const hook = await ok(ws.admin, 'POST', '/v1/webhooks', { url: receiver.url('/share'), events: ['share_link.*'] }, 201);
    const res = await call(standard, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[1], photos[0]] });
    assert.equal(res.status, 201, JSON.stringify(res.json));
    link = res.json;
    assert.equal(res.headers.get('location'), `/v1/share-links/${link.id}`);
    assert.match(link.id, /^shl_[0-9a-z]{26}$/);
    assert.match(link.url, new RegExp(`^${origin}/s/[A-Za-z0-9_-]{43}$`));
    assert.deepEqual(link.photo_ids, [photos[1], photos[0]]);
    assert.equal(link.report_id, null);
    assert.equal(link.status, 'active');
    assert.equal(link.allow_download, false);
    assert.equal(link.view_count, 0);
    assert.equal(link.last_viewed_at, null);
    assert.equal(link.created_by, standard.id);
    const days = (Date.parse(link.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `expires in ${days} days`);
    // Only the token's hash is stored.
    const token = link.url.split('/s/')[1];
    const row = await t.db.selectFrom('share_links').selectAll().where('id', '=', link.id).executeTakeFirstOrThrow();
    assert.ok(!JSON.stringify(row).includes(token));
    assert.equal(row.token_hash.length, 32);
    // The same url on every read.
    assert.equal((await ok(manager, 'GET', `/v1/share-links/${link.id}`)).url, link.url);

    const delivered = await eventually('share_link.created', () => receiver.at('/share').map((r) => JSON.parse(r.body)).find((b) => b.event === 'share_link.created'));
    assert.equal(delivered.project_id, projectId);
    assert.deepEqual(delivered.data, link);
    assert.ok(hook.id);
  });

  it('the public page shows the project, the captions and times, thumbnails that load, full size on click, and no downloads', async () => {
    const res = await page(link.url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/html; charset=utf-8/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('x-robots-tag')!, /noindex/);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.match(res.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.ok(res.html.includes('<h1>Maple St. &lt;remodel&gt; &amp; annex</h1>'), 'the project name, escaped');
    assert.ok(res.html.indexOf('Kitchen rough-in') < res.html.indexOf('North wall after the new sill plate'), 'in the order given');
    assert.ok(!res.html.includes('Rear deck footings'), 'an unshared photo is not shown');
    assert.match(res.html, /Nov 20, 2026, 3:04 PM UTC/);
    assert.doesNotMatch(res.html, />Download|disposition=attachment| download>/, 'no download offered');
    const images = srcs(res.html, 'img');
    assert.equal(images.length, 2);
    for (const src of [...images, ...srcs(res.html, 'a')]) {
      const file = await fetch(src);
      assert.equal(file.status, 200, src);
      assert.match(file.headers.get('content-type')!, /^image\/jpeg/);
      assert.doesNotMatch(file.headers.get('content-disposition') ?? '', /attachment/);
    }
  });

  it('counts each view (GET, not HEAD) with its time', async () => {
    await page(link.url);
    assert.equal((await page(link.url, 'HEAD')).status, 200);
    const after = await ok(standard, 'GET', `/v1/share-links/${link.id}`);
    assert.equal(after.view_count, 2);
    assert.ok(Date.now() - Date.parse(after.last_viewed_at) < 60_000);
  });

  it('offers the originals as downloads when allow_download is set', async () => {
    const shared = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[2]], allow_download: true, expires_at: null }, 201);
    assert.equal(shared.expires_at, null);
    const res = await page(shared.url);
    const download = srcs(res.html, 'a').find((href) => href.includes('disposition=attachment'));
    assert.ok(download, 'a download link');
    assert.match(res.html, />Download original</);
    const file = await fetch(download);
    assert.equal(file.status, 200);
    assert.match(file.headers.get('content-disposition')!, /^attachment; filename="photo-2026-11-20-15-04-00\.jpg"/);
  });

  it('a photo deleted after sharing disappears from the page and from photo_ids', async () => {
    const doomed = await upload(manager, projectId, 'Temporary shoring', '#c0392b');
    await t.runJobs();
    const shared = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [doomed, photos[0]] }, 201);
    assert.ok((await page(shared.url)).html.includes('Temporary shoring'));
    assert.equal((await call(manager, 'DELETE', `/v1/photos/${doomed}`)).status, 204);
    const res = await page(shared.url);
    assert.equal(res.status, 200);
    assert.ok(!res.html.includes('Temporary shoring'));
    assert.equal(srcs(res.html, 'img').length, 1);
    assert.deepEqual((await ok(manager, 'GET', `/v1/share-links/${shared.id}`)).photo_ids, [photos[0]]);
  });

  it('revoking turns the page off at once (410), keeps the link listed as revoked, and emits share_link.revoked once', async () => {
    // Another standard user may not revoke it (own links only); the creator may.
    problem(await call(other, 'DELETE', `/v1/share-links/${link.id}`), 403, 'forbidden');
    assert.equal((await call(standard, 'DELETE', `/v1/share-links/${link.id}`)).status, 204);
    const res = await page(link.url);
    assert.equal(res.status, 410);
    assert.match(res.html, /This link has been turned off/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const revoked = await ok(standard, 'GET', `/v1/share-links/${link.id}`);
    assert.equal(revoked.status, 'revoked');
    assert.equal(revoked.revoked_by, standard.id);
    assert.equal(revoked.view_count, 2, 'a refused view is not counted');
    assert.equal((await call(standard, 'DELETE', `/v1/share-links/${link.id}`)).status, 204);
    const events = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', ws.id).where('event', '=', 'share_link.revoked').execute();
    assert.equal(events.length, 1);
    const delivered = await eventually('share_link.revoked', () => receiver.at('/share').map((r) => JSON.parse(r.body)).find((b) => b.event === 'share_link.revoked'));
    assert.deepEqual(delivered.data, revoked);
    const listed = await ok(manager, 'GET', `/v1/share-links?status=revoked&project_id=${projectId}`);
    assert.deepEqual(listed.data.map((l: Json) => l.id), [link.id]);
  });

  it('managers revoke anyone\'s link', async () => {
    const shared = await ok(other, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[0]] }, 201);
    assert.equal((await call(manager, 'DELETE', `/v1/share-links/${shared.id}`)).status, 204);
    assert.equal((await page(shared.url)).status, 410);
  });

  it('an expired link answers 410 "expired" and lists as expired', async () => {
    const shared = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[0]], expires_at: new Date(Date.now() + 3_600_000).toISOString() }, 201);
    assert.equal((await page(shared.url)).status, 200);
    // The hour passes (the database's clock decides, as for the page).
    await t.db.updateTable('share_links').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', shared.id).execute();
    const res = await page(shared.url);
    assert.equal(res.status, 410);
    assert.match(res.html, /This link has expired/);
    assert.equal((await ok(manager, 'GET', `/v1/share-links/${shared.id}`)).status, 'expired');
    const expired = await ok(manager, 'GET', '/v1/share-links?status=expired');
    assert.ok(expired.data.some((l: Json) => l.id === shared.id));
    assert.ok(!(await ok(manager, 'GET', '/v1/share-links?status=active')).data.some((l: Json) => l.id === shared.id));
  });

  it('an unknown or malformed token is a 404 page; /s/ paths are never the web app', async () => {
    for (const path of ['/s/q7Vd2kR9xW4mT1bN8cH5fJ3gL6pS0aE2uZ4yB7nK9oM', '/s/nope', `/s/${'x'.repeat(150)}`]) {
      const res = await page(`${origin}${path}`);
      assert.equal(res.status, 404, path);
      assert.match(res.html, /This link does not exist/);
      assert.equal(res.headers.get('x-robots-tag'), 'noindex, nofollow');
    }
    const nested = await fetch(`${origin}/s/a/b`);
    assert.equal(nested.status, 404);
    assert.match(nested.headers.get('content-type')!, /problem\+json/);
  });
});

describe('share links: a report', () => {
  it('refuses a report that is not finished (409), then shares the finished one: title, open link, a download only when allowed', async () => {
    const report = await ok(manager, 'POST', `/v1/projects/${projectId}/reports`, { title: 'Week 47 progress', photo_ids: [photos[0]] }, 202);
    problem(await call(manager, 'POST', `/v1/projects/${projectId}/share-links`, { report_id: report.id }), 409, 'report_not_ready');
    await t.runJobs();
    assert.equal((await ok(manager, 'GET', `/v1/reports/${report.id}`)).status, 'finished');

    const shared = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { report_id: report.id }, 201);
    assert.equal(shared.report_id, report.id);
    assert.deepEqual(shared.photo_ids, []);
    const res = await page(shared.url);
    assert.equal(res.status, 200);
    assert.match(res.html, /<h2 id="report-title">Week 47 progress<\/h2>/);
    assert.match(res.html, />Open the report</);
    assert.doesNotMatch(res.html, /Download the PDF/);
    const links = srcs(res.html, 'a');
    assert.equal(links.length, 1);
    const pdf = await fetch(links[0]!);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    assert.match(pdf.headers.get('content-disposition')!, /^inline/);
    assert.equal((await pdf.arrayBuffer()).byteLength > 1000, true);

    const downloadable = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { report_id: report.id, allow_download: true }, 201);
    const html = (await page(downloadable.url)).html;
    const download = srcs(html, 'a').find((href) => href.includes('disposition=attachment'));
    assert.ok(download && html.includes('Download the PDF'));
    assert.match((await fetch(download)).headers.get('content-disposition')!, /^attachment; filename="Week 47 progress\.pdf"/);

    // The report deleted: the page says so instead of breaking.
    assert.equal((await call(manager, 'DELETE', `/v1/reports/${report.id}`)).status, 204);
    const gone = await page(shared.url);
    assert.equal(gone.status, 200);
    assert.match(gone.html, /The report shared here is no longer available/);
    assert.equal((await ok(manager, 'GET', `/v1/share-links/${shared.id}`)).report_id, null);
  });
});

describe('share links: bad input', () => {
  const post = (body: unknown, who: Who = manager, project = projectId) => call(who, 'POST', `/v1/projects/${project}/share-links`, body);

  it('answers each mistake with its code', async () => {
    problem(await post({}), 422, 'share_link_content');
    problem(await post({ allow_download: true }), 422, 'share_link_content');
    const report = await ok(manager, 'POST', `/v1/projects/${hiddenProjectId}/reports`, { title: 'Depot' }, 202);
    problem(await post({ photo_ids: [photos[0]], report_id: report.id }), 422, 'share_link_content');
    const outside = problem(await post({ photo_ids: [photos[0], hiddenPhoto] }), 422, 'photo_not_in_project');
    assert.match(outside.detail, new RegExp(hiddenPhoto));
    assert.equal(outside.errors[0].path, 'body.photo_ids[1]');
    problem(await post({ photo_ids: ['pho_nope'] }), 422, 'photo_not_in_project');
    problem(await post({ report_id: report.id }), 422, 'report_not_in_project');
    problem(await post({ report_id: 'rep_nope' }), 422, 'report_not_in_project');
    const past = problem(await post({ photo_ids: [photos[0]], expires_at: '2020-01-01T00:00:00Z' }), 400, 'validation_failed');
    assert.equal(past.errors[0].path, 'body.expires_at');
    problem(await post({ photo_ids: [photos[0]], expires_at: 'tomorrow' }), 400, 'validation_failed');
    const many = Array.from({ length: 201 }, (_, i) => `pho_${String(i).padStart(26, '0')}`);
    problem(await post({ photo_ids: many }), 400, 'validation_failed');
    problem(await post({ photo_ids: [photos[0], photos[0]] }), 400, 'validation_failed');
    problem(await post({ photo_ids: [] }), 400, 'validation_failed');
    problem(await post({ photo_ids: [photos[0]], password: 'x' }), 400, 'validation_failed');
    problem(await post({ photo_ids: [photos[0]] }, manager, 'prj_01jdq7v3m4k8x2c9f5t6b1n0zr'), 404, 'not_found');
    problem(await call(manager, 'GET', '/v1/share-links/shl_01jdqn3q5s7v9w1x3y5z7a9b1d'), 404, 'not_found');
    problem(await call(manager, 'DELETE', '/v1/share-links/nope'), 404, 'not_found');
    problem(await call(manager, 'GET', '/v1/share-links?status=paused'), 400, 'validation_failed');
    problem(await call(null, 'GET', '/v1/share-links'), 401, 'missing_api_key');
  });
});

describe('share links: who sees what', () => {
  it('a restricted user shares their project, but cannot share, list or read another project\'s links', async () => {
    const hidden = await ok(manager, 'POST', `/v1/projects/${hiddenProjectId}/share-links`, { photo_ids: [hiddenPhoto] }, 201);
    const own = await ok(rita, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[0]] }, 201);
    problem(await call(rita, 'POST', `/v1/projects/${hiddenProjectId}/share-links`, { photo_ids: [hiddenPhoto] }), 404, 'not_found');
    problem(await call(rita, 'GET', `/v1/share-links/${hidden.id}`), 404, 'not_found');
    problem(await call(rita, 'DELETE', `/v1/share-links/${hidden.id}`), 404, 'not_found');
    problem(await call(rita, 'GET', `/v1/share-links?project_id=${hiddenProjectId}`), 404, 'not_found');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const listed: Json = await ok(rita, 'GET', `/v1/share-links?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...listed.data.map((l: Json) => l.id));
      for (const l of listed.data) assert.equal(l.project_id, projectId);
      cursor = listed.next_cursor;
    } while (cursor);
    assert.ok(seen.includes(own.id));
    assert.ok(!seen.includes(hidden.id));
    assert.equal(new Set(seen).size, seen.length, 'pages neither skip nor repeat');
    // Managers see both projects' links.
    const all = await ok(manager, 'GET', '/v1/share-links?limit=100');
    assert.ok(all.data.some((l: Json) => l.id === hidden.id) && all.data.some((l: Json) => l.id === own.id));
    // Rita may turn off her own link, not the manager's on her project.
    const managers = await ok(manager, 'POST', `/v1/projects/${projectId}/share-links`, { photo_ids: [photos[0]] }, 201);
    problem(await call(rita, 'DELETE', `/v1/share-links/${managers.id}`), 403, 'forbidden');
    assert.equal((await call(rita, 'DELETE', `/v1/share-links/${own.id}`)).status, 204);
  });

  it('deleting the project takes its links with it (404)', async () => {
    const doomed = (await ok(manager, 'POST', '/v1/projects', { name: 'Short job' }, 201)).id;
    const photo = await upload(manager, doomed, 'Only photo', '#27ae60');
    await t.runJobs();
    const shared = await ok(manager, 'POST', `/v1/projects/${doomed}/share-links`, { photo_ids: [photo] }, 201);
    assert.equal((await call(manager, 'DELETE', `/v1/projects/${doomed}`)).status, 204);
    assert.equal((await page(shared.url)).status, 404);
  });
});

describe('share pages: one address opening too many', () => {
  it('past JOBSITE_SHARE_PAGE_VIEWS_PER_MINUTE a 429 page with Retry-After, not a view; other links the same', async () => {
    const limited = await listeningTestApp({ JOBSITE_SHARE_PAGE_VIEWS_PER_MINUTE: '3' });
    try {
      const own = await newWorkspace(limited.t);
      const send = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${limited.origin}${path}`, {
          method, headers: { authorization: `Bearer ${own.admin.key}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
        });
        return await res.json() as Json;
      };
      const prj = (await send('POST', '/v1/projects', { name: 'Quarry Rd.' })).id;
      const form = new FormData();
      form.set('file', new Blob([new Uint8Array(await jpegWithExif({}, 320, 240, '#336699'))], { type: 'image/jpeg' }), 'photo.jpg');
      const photo = await (await fetch(`${limited.origin}/v1/projects/${prj}/photos`, { method: 'POST', headers: { authorization: `Bearer ${own.admin.key}` }, body: form })).json() as Json;
      await limited.t.runJobs();
      const [one, two] = [await send('POST', `/v1/projects/${prj}/share-links`, { photo_ids: [photo.id] }), await send('POST', `/v1/projects/${prj}/share-links`, { photo_ids: [photo.id] })];

      for (let i = 0; i < 3; i++) assert.equal((await page(one.url)).status, 200);
      const busy = await page(one.url);
      assert.equal(busy.status, 429);
      assert.match(busy.html, /Too many pages opened/);
      assert.ok(Number(busy.headers.get('retry-after')) >= 1 && Number(busy.headers.get('retry-after')) <= 60, String(busy.headers.get('retry-after')));
      assert.equal(busy.headers.get('cache-control'), 'no-store');
      assert.equal((await page(two.url)).status, 429, 'counted per address, not per link');
      assert.equal((await send('GET', `/v1/share-links/${one.id}`)).view_count, 3, 'a refused open is not a view');
    } finally {
      await limited.t.close();
    }
  });
});
