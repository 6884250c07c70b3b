import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif, png, pngBomb, rotatedJpeg, textFile, truncatedJpeg, webp } from './fixtures/images.ts';
import { multipart, type FilePart } from './multipart.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp({ JOBSITE_PHOTO_MAX_BYTES: String(2 * 1024 * 1024), JOBSITE_PHOTO_MAX_PIXELS: String(50_000_000) });
});
after(async () => t?.close());

type Who = { key: string };

function upload(who: Who, projectId: string, fields: Record<string, string | string[]>, file?: FilePart | FilePart[], options: { fileFirst?: boolean } = {}) {
  const { payload, headers } = multipart(fields, file, options);
  return t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
}

async function project(ws: TestWorkspace, who: Who = ws.admin): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}` });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** GETs a signed URL as a browser would: no Authorization. */
async function fetchSigned(url: string) {
  assert.ok(url.startsWith(`${t.config.publicUrl}/`), url);
  return t.app.inject({ method: 'GET', url: url.slice(t.config.publicUrl.length) });
}

function assertProblem(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

describe('photo upload (multipart)', () => {
  it('stores the bytes, answers 201 pending, and processing makes variants, EXIF and photo.created', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const bytes = await jpegWithExif({ dateTimeOriginal: '2026:05:04 09:30:15', offsetTimeOriginal: '+02:00', lat: 48.8584, lon: 2.2945, altitude: 35.5 }, 3000, 2000);
    const res = await upload(ws.admin, prj, { caption: 'North wall' }, { data: bytes, contentType: 'text/plain' });
    assert.equal(res.statusCode, 201, res.body);
    const photo = res.json();
    assert.match(photo.id, /^pho_/);
    assert.equal(res.headers.location, `/v1/photos/${photo.id}`);
    assert.equal(photo.processing_status, 'pending');
    assert.equal(photo.content_type, 'image/jpeg');
    assert.equal(photo.byte_size, bytes.length);
    assert.equal(photo.sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
    assert.equal(photo.caption, 'North wall');
    assert.equal(photo.captured_at_source, 'upload');
    assert.equal(photo.variants.large, null);
    assert.equal(photo.creator_id, ws.admin.id);

    const original = await fetchSigned(photo.url);
    assert.equal(original.statusCode, 200);
    assert.ok(original.rawPayload.equals(bytes));
    assert.equal(original.headers['content-type'], 'image/jpeg');

    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.equal(done.width, 3000);
    assert.equal(done.height, 2000);
    assert.equal(done.captured_at, '2026-05-04T07:30:15.000Z');
    assert.equal(done.captured_at_source, 'exif_offset');
    assert.equal(done.captured_at_time_zone, 'Europe/Paris'); // from the GPS position
    assert.deepEqual(done.coordinates, { lat: 48.8584, lon: 2.2945, altitude: 35.5 });
    assert.equal(done.coordinates_source, 'exif');
    for (const [name, side] of [['large', 2048], ['thumbnail', 320]] as const) {
      const v = await fetchSigned(done.variants[name]);
      assert.equal(v.statusCode, 200, name);
      const meta = await sharp(v.rawPayload).metadata();
      assert.equal(meta.format, 'jpeg');
      assert.equal(Math.max(meta.width!, meta.height!), side, name);
    }
    const events = (await api(t, ws.admin, 'GET', `/v1/events?event=photo.created`)).json();
    const created = events.data.find((e: { data: { id: string } }) => e.data.id === photo.id);
    assert.ok(created, JSON.stringify(events));
    assert.equal(created.project_id, prj);
    assert.equal(created.data.processing_status, 'processed');
    assert.match(created.data.url, /^http:\/\/jobsite\.test\/v1\/files\//);

    // Safe to run twice: a second run finds nothing pending and emits nothing more.
    await t.runJobs();
    const again = (await api(t, ws.admin, 'GET', `/v1/events?event=photo.created`)).json();
    assert.equal(again.data.filter((e: { data: { id: string } }) => e.data.id === photo.id).length, 1);
  });

  it('keeps the client\'s time and coordinates over EXIF, with the fields after the file', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const bytes = await jpegWithExif({ dateTimeOriginal: '2020:01:01 00:00:00', lat: 10, lon: 10 });
    const res = await upload(ws.admin, prj, { captured_at: '2026-06-01T12:00:00Z', lat: '-33.8568', lon: '151.2153', tag_ids: [] as never }, { data: bytes }, { fileFirst: true });
    assert.equal(res.statusCode, 201, res.body);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${res.json().id}`)).json();
    assert.equal(done.captured_at, '2026-06-01T12:00:00.000Z');
    assert.equal(done.captured_at_source, 'client');
    assert.deepEqual(done.coordinates, { lat: -33.8568, lon: 151.2153, altitude: null });
    assert.equal(done.coordinates_source, 'client');
  });

  it('auto-rotates: an EXIF orientation 6 photo is recorded and resized as displayed', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const res = await upload(ws.admin, prj, {}, { data: await rotatedJpeg(800, 400) });
    assert.equal(res.statusCode, 201, res.body);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${res.json().id}`)).json();
    assert.equal(done.processing_status, 'processed');
    assert.deepEqual([done.width, done.height], [400, 800]);
    const thumb = await sharp((await fetchSigned(done.variants.thumbnail)).rawPayload).metadata();
    assert.deepEqual([thumb.width, thumb.height], [160, 320]);
  });

  it('takes an iPhone-style HEIC: decoded upright, EXIF time and GPS read', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const heic = await fs.readFile(new URL('./fixtures/hevc-rotated-exif.heic', import.meta.url));
    const res = await upload(ws.admin, prj, {}, { data: heic, filename: 'IMG_0001.HEIC' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().content_type, 'image/heic');
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${res.json().id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.deepEqual([done.width, done.height], [480, 640]);
    assert.equal(done.captured_at, '2024-05-17T12:32:10.000Z');
    assert.equal(done.coordinates.lat, 48.8584);
    const large = await sharp((await fetchSigned(done.variants.large)).rawPayload).metadata();
    assert.deepEqual([large.format, large.width, large.height], ['jpeg', 480, 640]);
  });

  it('accepts PNG and WebP, sniffed from the bytes whatever the declared type', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    for (const [data, type] of [[await png(), 'image/png'], [await webp(), 'image/webp']] as const) {
      const res = await upload(ws.admin, prj, {}, { data, contentType: 'image/jpeg', filename: 'x.jpg' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().content_type, type);
    }
  });

  it('refuses what is not a photo with 415, and keeps nothing', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const before = await countObjects();
    assertProblem(await upload(ws.admin, prj, {}, { data: textFile(), contentType: 'image/jpeg', filename: 'evil.jpg' }), 415, 'unsupported_media_type');
    assertProblem(await upload(ws.admin, prj, {}, { data: Buffer.from('MZ\x90\x00 this is an executable', 'latin1') }), 415, 'unsupported_media_type');
    assert.equal(await countObjects(), before);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/photos`)).json().data.length, 0);
  });

  it('refuses a file over the size limit with 413 and a decompression bomb with 422, before decoding', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const before = await countObjects();
    const big = Buffer.concat([await jpegWithExif(), crypto.randomBytes(2 * 1024 * 1024)]);
    assertProblem(await upload(ws.admin, prj, {}, { data: big }), 413, 'payload_too_large');
    const bomb = pngBomb(10_000); // 100 MP declared, a few hundred KB on the wire
    assertProblem(await upload(ws.admin, prj, {}, { data: bomb }), 422, 'too_many_pixels');
    assert.equal(await countObjects(), before);
  });

  it('refuses an empty file, a missing file, unknown fields and bad field values with clear 400s', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const jpg = await jpegWithExif();
    assertProblem(await upload(ws.admin, prj, {}, { data: Buffer.alloc(0) }), 400, 'empty_file');
    assertProblem(await upload(ws.admin, prj, { caption: 'no file' }), 400, 'missing_file');
    const unknown = await upload(ws.admin, prj, { colour: 'red' }, { data: jpg });
    assertProblem(unknown, 400, 'validation_failed');
    assert.deepEqual(unknown.json().errors.map((e: { path: string }) => e.path), ['body.colour']);
    const bad = await upload(ws.admin, prj, { lat: '91', captured_at: 'yesterday', tag_ids: 'nope' }, { data: jpg });
    assertProblem(bad, 400, 'validation_failed');
    assert.deepEqual(bad.json().errors.map((e: { path: string }) => e.path).sort(), ['body.captured_at', 'body.lat', 'body.lon', 'body.tag_ids'].sort());
    assertProblem(await upload(ws.admin, prj, {}, [{ data: jpg }, { data: jpg }]), 400, 'bad_request');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/photos`)).json().data.length, 0);
  });

  it('marks a damaged image failed with a reason (never stuck pending) and still emits photo.created', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const res = await upload(ws.admin, prj, {}, { data: await truncatedJpeg() });
    assert.equal(res.statusCode, 201, res.body);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${res.json().id}`)).json();
    assert.equal(done.processing_status, 'failed');
    assert.match(done.processing_error, /damaged|incomplete|truncat/i);
    assert.equal(done.variants.large, null);
    const events = (await api(t, ws.admin, 'GET', '/v1/events?event=photo.created')).json().data;
    const created = events.find((e: { data: { id: string } }) => e.data.id === done.id);
    assert.equal(created?.data.processing_status, 'failed');
  });

  it('answers 404 for another workspace\'s project and for projects a restricted user cannot see', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const prj = await project(ws);
    const jpg = await jpegWithExif();
    assertProblem(await upload(other.admin, prj, {}, { data: jpg }), 404, 'not_found');
    const restricted = await newUser(t, ws, 'restricted');
    assertProblem(await upload(restricted, prj, {}, { data: jpg }), 404, 'not_found');
  });
});

async function countObjects(): Promise<number> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const dir = path.join(t.config.dataDir, 'blobs');
  const walk = async (d: string): Promise<number> => {
    let n = 0;
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      n += e.isDirectory() ? await walk(path.join(d, e.name)) : e.name.endsWith('.json') ? 0 : 1;
    }
    return n;
  };
  return walk(dir);
}
