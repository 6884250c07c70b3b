import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif, png } from './fixtures/images.ts';
import { multipart } from './multipart.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

type Who = { key: string };

async function project(ws: TestWorkspace, who: Who = ws.admin): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}` });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function uploadPhoto(who: Who, projectId: string, fields: Record<string, string> = {}, data?: Buffer, ctx: TestContext = t) {
  const { payload, headers } = multipart(fields, { data: data ?? await jpegWithExif() });
  const res = await ctx.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

async function fetchSigned(url: string, ctx: TestContext = t) {
  return ctx.app.inject({ method: 'GET', url: url.slice(ctx.config.publicUrl.length) });
}

function assertProblem(res: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((p) => p.id);

describe('photo list', () => {
  it('filters by project, capture time, creator and bounding box, and sorts by capture time', async () => {
    const ws = await newWorkspace(t);
    const a = await project(ws);
    const b = await project(ws);
    const standard = await newUser(t, ws, 'standard');
    const p1 = await uploadPhoto(ws.admin, a, { captured_at: '2026-01-10T08:00:00Z', lat: '40.7128', lon: '-74.006' });
    const p2 = await uploadPhoto(standard, a, { captured_at: '2026-01-12T08:00:00Z', lat: '51.5072', lon: '-0.1276' });
    const p3 = await uploadPhoto(ws.admin, b, { captured_at: '2026-01-11T08:00:00Z', lat: '-36.8485', lon: '174.7633' });
    const p4 = await uploadPhoto(ws.admin, b, { captured_at: '2026-01-09T08:00:00Z', lat: '64.1466', lon: '-179.5' });

    assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/photos')), [p4.id, p3.id, p2.id, p1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/photos?sort=captured_at')), [p2.id, p3.id, p1.id, p4.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?project_id=${a}`)), [p2.id, p1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects/${b}/photos`)), [p4.id, p3.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/photos?captured_after=2026-01-10T08:00:00Z&captured_before=2026-01-12T08:00:00Z&sort=captured_at')), [p3.id, p1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?creator_id=${standard.id}`)), [p2.id]);
    // Europe and the US east coast.
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/photos?bbox=-80,35,5,55')), [p2.id, p1.id]);
    // Across the antimeridian: 170°E to 175°W.
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/photos?bbox=170,-90,-175,90')), [p4.id, p3.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?tag_id=tag_${'0'.repeat(26)}`)), []);
  });

  it('pages with a cursor in either sort, without repeats or gaps', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await uploadPhoto(ws.admin, prj, { captured_at: `2026-02-0${(i % 3) + 1}T00:00:00Z` })).id);
    for (const sort of ['created_at', 'captured_at']) {
      const seen: string[] = [];
      let url = `/v1/photos?limit=3&sort=${sort}`;
      for (;;) {
        const res = await api(t, ws.admin, 'GET', url);
        assert.equal(res.statusCode, 200, res.body);
        seen.push(...ids(res));
        const next = res.json().next_cursor;
        if (!next) break;
        url = `/v1/photos?limit=3&sort=${sort}&cursor=${encodeURIComponent(next)}`;
      }
      assert.deepEqual([...seen].sort(), [...made].sort(), sort);
    }
  });

  it('refuses a malformed bbox or time with 400 naming the parameter', async () => {
    const ws = await newWorkspace(t);
    for (const [query, param] of [['bbox=1,2,3', 'query.bbox'], ['bbox=0,10,5,-10', 'query.bbox'], ['bbox=0,0,200,1', 'query.bbox'], ['captured_after=yesterday', 'query.captured_after'], ['sort=size', 'query.sort']]) {
      const res = await api(t, ws.admin, 'GET', `/v1/photos?${query}`);
      assertProblem(res, 400, 'validation_failed');
      assert.equal(res.json().errors[0].path, param, query);
    }
  });

  it('shows restricted users only the photos of projects they can see; other workspaces see nothing', async () => {
    const ws = await newWorkspace(t);
    const open = await project(ws);
    const restricted = await newUser(t, ws, 'restricted');
    const own = await project(ws, restricted);
    const hidden = await uploadPhoto(ws.admin, open);
    const mine = await uploadPhoto(restricted, own);
    assert.deepEqual(ids(await api(t, restricted, 'GET', '/v1/photos')), [mine.id]);
    assertProblem(await api(t, restricted, 'GET', `/v1/photos/${hidden.id}`), 404, 'not_found');
    assertProblem(await api(t, restricted, 'GET', `/v1/projects/${open}/photos`), 404, 'not_found');
    const other = await newWorkspace(t);
    assert.deepEqual(ids(await api(t, other.admin, 'GET', '/v1/photos')), []);
    assertProblem(await api(t, other.admin, 'GET', `/v1/photos/${mine.id}`), 404, 'not_found');
    assertProblem(await api(t, other.admin, 'PATCH', `/v1/photos/${mine.id}`, { caption: 'x' }), 404, 'not_found');
    assertProblem(await api(t, other.admin, 'DELETE', `/v1/photos/${mine.id}`), 404, 'not_found');
  });
});

describe('photo changes', () => {
  it('PATCH changes caption, time and coordinates, emits photo.updated, and EXIF no longer overrides them', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj, {}, await jpegWithExif({ dateTimeOriginal: '2025:03:03 10:00:00', lat: 1, lon: 1 }));
    const got = await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`);
    const patched = await api(t, ws.admin, 'PATCH', `/v1/photos/${photo.id}`, { caption: 'Rebar before pour', captured_at: '2026-03-03T10:00:00+01:00', coordinates: { lat: 45.5, lon: -73.56 } }, { 'if-match': got.headers.etag as string });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.equal(patched.json().caption, 'Rebar before pour');
    assert.equal(patched.json().captured_at, '2026-03-03T09:00:00.000Z');
    assert.deepEqual(patched.json().coordinates, { lat: 45.5, lon: -73.56, altitude: null });
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/photos/${photo.id}`, { caption: 'late' }, { 'if-match': got.headers.etag as string }), 412, 'precondition_failed');
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.equal(done.processing_status, 'processed');
    assert.equal(done.captured_at, '2026-03-03T09:00:00.000Z');
    assert.equal(done.captured_at_source, 'client');
    assert.deepEqual(done.coordinates, { lat: 45.5, lon: -73.56, altitude: null });
    const events = (await api(t, ws.admin, 'GET', '/v1/events?event=photo.updated')).json().data;
    assert.equal(events.filter((e: { data: { id: string } }) => e.data.id === photo.id).length, 1);

    const cleared = await api(t, ws.admin, 'PATCH', `/v1/photos/${photo.id}`, { caption: null, coordinates: null });
    assert.equal(cleared.json().caption, null);
    assert.equal(cleared.json().coordinates, null);
    for (const body of [{ caption: 'x'.repeat(2001) }, { coordinates: { lat: 91, lon: 0 } }, { width: 10 }, { captured_at: null }]) {
      assertProblem(await api(t, ws.admin, 'PATCH', `/v1/photos/${photo.id}`, body), 400, 'validation_failed');
    }
  });

  it('restricted users change only their own photos; everyone who sees the project may upload', async () => {
    const ws = await newWorkspace(t);
    const restricted = await newUser(t, ws, 'restricted');
    const prj = await project(ws, restricted);
    const theirs = await uploadPhoto(restricted, prj);
    const admins = await uploadPhoto(ws.admin, prj);
    assert.equal((await api(t, restricted, 'PATCH', `/v1/photos/${theirs.id}`, { caption: 'mine' })).statusCode, 200);
    assertProblem(await api(t, restricted, 'PATCH', `/v1/photos/${admins.id}`, { caption: 'not mine' }), 403, 'forbidden');
    assertProblem(await api(t, restricted, 'DELETE', `/v1/photos/${admins.id}`), 403, 'forbidden');
    assertProblem(await api(t, restricted, 'PUT', `/v1/photos/${admins.id}/annotations`, { shapes: [] }), 403, 'forbidden');
    const standard = await newUser(t, ws, 'standard');
    assert.equal((await api(t, standard, 'PATCH', `/v1/photos/${theirs.id}`, { caption: 'fixed' })).statusCode, 200);
  });

  it('DELETE removes the photo, its original and variants (the URLs then 404), and emits photo.deleted', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    for (const url of [done.url, done.variants.large, done.variants.thumbnail]) assert.equal((await fetchSigned(url)).statusCode, 200);
    const res = await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}`);
    assert.equal(res.statusCode, 204);
    for (const url of [done.url, done.variants.large, done.variants.thumbnail]) assertProblem(await fetchSigned(url), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`), 404, 'not_found');
    const deleted = (await api(t, ws.admin, 'GET', '/v1/events?event=photo.deleted')).json().data;
    assert.equal(deleted[0].data.id, photo.id);
    assert.equal((await t.db.selectFrom('blob_garbage').selectAll().execute()).length, 0);
  });

  it('deleting a project deletes its photos\' files too (through the garbage job)', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${prj}`)).statusCode, 204);
    const garbage = await t.db.selectFrom('blob_garbage').selectAll().execute();
    assert.equal(garbage.length, 1);
    const { cleanupTasks } = await import('../src/jobs/cleanup.ts');
    await cleanupTasks(t.jobDeps()).collect_blob_garbage!(undefined, {} as never);
    assert.equal((await t.db.selectFrom('blob_garbage').selectAll().execute()).length, 0);
    for (const url of [done.url, done.variants.large]) assertProblem(await fetchSigned(url), 404, 'not_found');
  });
});

describe('annotations', () => {
  const shapes = [
    { type: 'arrow', x1: 0.1, y1: 0.1, x2: 0.5, y2: 0.5, color: '#ff0000', width: 0.01 },
    { type: 'rectangle', x: 0.6, y: 0.6, w: 0.3, h: 0.3, color: '#00ff00', width: 0.01 },
    { type: 'text', x: 0.05, y: 0.95, text: 'Crack <here>', color: '#ffff00', size: 0.05 },
    { type: 'path', points: [[0.1, 0.9], [0.2, 0.8], [0.3, 0.9]], color: '#0000ff', width: 0.005 },
  ];

  it('stores shapes, renders the annotated variant in a job, emits photo.updated when ready, and an empty list removes it', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj, {}, await jpegWithExif({}, 1000, 500, '#808080'));
    // Annotating a pending photo: the render waits for processing.
    const put = await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/annotations`, { shapes });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json().annotations, shapes);
    assert.equal(put.json().variants.annotated, undefined);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.ok(done.variants.annotated, JSON.stringify(done.variants));
    const img = await fetchSigned(done.variants.annotated);
    assert.equal(img.statusCode, 200);
    const { data, info } = await sharp(img.rawPayload).raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [1000, 500]);
    // The rectangle's edge at (0.6, 0.75) is green; the grey photo elsewhere.
    const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    const edge = px(600, 375);
    assert.ok(edge[1]! > 200 && edge[0]! < 80 && edge[2]! < 80, `edge ${edge}`);
    const plain = px(900, 100);
    assert.ok(Math.abs(plain[0]! - 128) < 12 && Math.abs(plain[1]! - 128) < 12, `plain ${plain}`);
    const updates = (await api(t, ws.admin, 'GET', '/v1/events?event=photo.updated')).json().data
      .filter((e: { data: { id: string } }) => e.data.id === photo.id);
    assert.equal(updates.length, 1);
    assert.ok(updates[0].data.variants.annotated);

    // Replacing them renders a new version and deletes the old one.
    const second = await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/annotations`, { shapes: shapes.slice(0, 1) });
    assert.equal(second.statusCode, 200);
    await t.runJobs();
    const redone = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.notEqual(redone.variants.annotated, done.variants.annotated);
    assertProblem(await fetchSigned(done.variants.annotated), 404, 'not_found');

    const cleared = await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/annotations`, { shapes: [] });
    assert.deepEqual(cleared.json().annotations, []);
    assert.equal(cleared.json().variants.annotated, undefined);
    assertProblem(await fetchSigned(redone.variants.annotated), 404, 'not_found');
  });

  it('validates shapes strictly', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj);
    const bad = [
      { shapes: [{ type: 'star', x: 0, y: 0 }] },
      { shapes: [{ type: 'line', x1: 0, y1: 0, x2: 1.5, y2: 0, color: '#ff0000', width: 0.01 }] },
      { shapes: [{ type: 'rectangle', x: 0, y: 0, w: 0.1, h: 0.1, color: 'red', width: 0.01 }] },
      { shapes: [{ type: 'path', points: [[0, 0]], color: '#ff0000', width: 0.01 }] },
      { shapes: [{ type: 'text', x: 0, y: 0, text: '', color: '#ff0000', size: 0.1 }] },
      { shapes: [{ type: 'arrow', x1: 0, y1: 0, x2: 1, y2: 1, color: '#ff0000', width: 0.01, extra: true }] },
      { shapes: 'none' },
      {},
    ];
    for (const body of bad) assertProblem(await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/annotations`, body), 400, 'validation_failed');
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json().annotations, []);
  });
});

describe('project cover photo', () => {
  it('sets a processed photo of the project as cover, with its signed thumbnail URL, and clears it when the photo goes', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const elsewhere = await project(ws);
    const photo = await uploadPhoto(ws.admin, prj);
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/projects/${prj}`, { cover_photo_id: photo.id }), 422, 'invalid_cover_photo');
    await t.runJobs();
    const foreign = await uploadPhoto(ws.admin, elsewhere);
    await t.runJobs();
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/projects/${prj}`, { cover_photo_id: foreign.id }), 422, 'invalid_cover_photo');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/projects/${prj}`, { cover_photo_id: 'pho_nope' }), 422, 'invalid_cover_photo');
    const set = await api(t, ws.admin, 'PATCH', `/v1/projects/${prj}`, { cover_photo_id: photo.id });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal(set.json().cover_photo_id, photo.id);
    assert.equal(set.json().cover_photo.id, photo.id);
    const thumb = await fetchSigned(set.json().cover_photo.thumbnail_url);
    assert.equal(thumb.statusCode, 200);
    assert.ok(Math.max((await sharp(thumb.rawPayload).metadata()).width!, (await sharp(thumb.rawPayload).metadata()).height!) <= 320);
    const listed = (await api(t, ws.admin, 'GET', '/v1/projects')).json().data.find((p: { id: string }) => p.id === prj);
    assert.equal(listed.cover_photo.id, photo.id);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}`)).statusCode, 204);
    const after = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}`)).json();
    assert.equal(after.cover_photo_id, null);
    assert.equal(after.cover_photo, null);
  });
});

describe('import by URL', () => {
  let server: http.Server;
  let base: string;
  let jpeg: Buffer;
  let allowed: TestContext;
  before(async () => {
    jpeg = await jpegWithExif({ dateTimeOriginal: '2026:04:01 12:00:00' }, 800, 600);
    const pngBytes = await png();
    server = http.createServer((req, res) => {
      if (req.url === '/site.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
      if (req.url === '/moved') return void res.writeHead(302, { location: '/site.png' }).end();
      if (req.url === '/site.png') return void res.writeHead(200).end(pngBytes);
      if (req.url === '/notes.txt') return void res.writeHead(200).end('just text, not a photo');
      if (req.url === '/huge') return void res.writeHead(200, { 'content-length': String(200 * 1024 * 1024) }).end();
      if (req.url === '/slow') return; // never answers
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    allowed = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32', JOBSITE_IMPORT_TIMEOUT_SECONDS: '1' });
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await allowed?.close();
  });

  it('fetches the photo, stores it like an upload and records the source', async () => {
    const ws = await newWorkspace(allowed);
    const prj = (await api(allowed, ws.admin, 'POST', '/v1/projects', { name: 'Imported' })).json().id;
    const res = await api(allowed, ws.admin, 'POST', `/v1/projects/${prj}/photos`, { source_url: `${base}/site.jpg`, caption: 'From the drone' });
    assert.equal(res.statusCode, 201, res.body);
    const photo = res.json();
    assert.equal(photo.source_url, `${base}/site.jpg`);
    assert.equal(photo.caption, 'From the drone');
    assert.equal(photo.sha256, crypto.createHash('sha256').update(jpeg).digest('hex'));
    await allowed.runJobs();
    const done = (await api(allowed, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.equal(done.processing_status, 'processed');
    assert.equal(done.captured_at, '2026-04-01T12:00:00.000Z');
    const redirected = await api(allowed, ws.admin, 'POST', `/v1/projects/${prj}/photos`, { source_url: `${base}/moved` });
    assert.equal(redirected.statusCode, 201, redirected.body);
    assert.equal(redirected.json().content_type, 'image/png');
  });

  it('refuses private addresses by default, failed fetches, non-images, oversize files and timeouts with 422 import_failed', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const refused = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/photos`, { source_url: `${base}/site.jpg` });
    assertProblem(refused, 422, 'import_failed');
    assert.match(refused.json().detail, /not public|private|loopback|not allowed/i);
    const ws2 = await newWorkspace(allowed);
    const prj2 = (await api(allowed, ws2.admin, 'POST', '/v1/projects', { name: 'Imports' })).json().id;
    for (const [pathname, pattern] of [['/missing', /404/], ['/notes.txt', /JPEG|image/], ['/huge', /limit/], ['/slow', /within|time/i]] as const) {
      const res = await api(allowed, ws2.admin, 'POST', `/v1/projects/${prj2}/photos`, { source_url: `${base}${pathname}` });
      assertProblem(res, 422, 'import_failed');
      assert.match(res.json().detail, pattern, pathname);
    }
    for (const body of [{ source_url: 'ftp://example.com/a.jpg' }, { source_url: 'file:///etc/passwd' }]) {
      assertProblem(await api(allowed, ws2.admin, 'POST', `/v1/projects/${prj2}/photos`, body), 422, 'import_failed');
    }
    assertProblem(await api(allowed, ws2.admin, 'POST', `/v1/projects/${prj2}/photos`, { caption: 'no url' }), 400, 'validation_failed');
    assertProblem(await api(allowed, ws2.admin, 'POST', `/v1/projects/${prj2}/photos`), 400, 'bad_request');
    assert.equal((await api(allowed, ws2.admin, 'GET', `/v1/projects/${prj2}/photos`)).json().data.length, 0);
    // Nothing refused was kept: the only objects are those of the photos the other test imported.
    const kept = (await fs.readdir(path.join(allowed.config.dataDir, 'blobs'), { recursive: true }).catch(() => [] as string[]))
      .map(String).filter((f) => /photos\/\d{4}\/\d{2}\/[a-z2-7]{26}$/.test(f));
    const rows = await allowed.db.selectFrom('photos').select('blob_key').execute();
    assert.deepEqual(kept.sort(), rows.map((r) => r.blob_key).sort());
  });
});

describe('the OpenAPI document', () => {
  it('documents the upload as multipart/form-data and as JSON', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const content = doc.paths['/v1/projects/{id}/photos'].post.requestBody.content;
    assert.ok(content['multipart/form-data'].schema.properties.file, JSON.stringify(content));
    assert.ok(content['application/json'].schema, JSON.stringify(content));
    assert.ok(doc.webhooks['photo.created'].post.requestBody.content['application/json'].schema.properties.data.$ref.endsWith('/Photo'));
  });
});
