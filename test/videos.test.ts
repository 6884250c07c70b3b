import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { parseCreationTime, parseIso6709 } from '../src/features/videos/videos.probe.ts';
import { sniffVideoType } from '../src/features/videos/videos.sniff.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif, textFile } from './fixtures/images.ts';
import { androidMp4, ffmpegPath, iphoneMov, matroska, truncatedMp4, webm } from './fixtures/videos.ts';
import { multipart, type FilePart } from './multipart.ts';

const MAX_BYTES = 256 * 1024;
const needsFfmpeg = { skip: ffmpegPath ? false : 'no ffmpeg (neither the npm package nor PATH)' };

let t: TestContext;
before(async () => {
  t = await startTestApp({ JOBSITE_VIDEO_MAX_BYTES: String(MAX_BYTES) });
});
after(async () => t?.close());

type Who = { key: string };
type Ctx = TestContext;

function upload(who: Who, projectId: string, fields: Record<string, string>, file?: FilePart, ctx: Ctx = t) {
  const { payload, headers } = multipart(fields, file && { filename: 'clip.mp4', ...file });
  return ctx.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/videos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
}

async function project(ws: TestWorkspace, ctx: Ctx = t): Promise<string> {
  const res = await api(ctx, ws.admin, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}` });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Uploads, processes, and returns the video as the API then shows it. */
async function uploaded(who: Who, projectId: string, data: Buffer, fields: Record<string, string> = {}, ctx: Ctx = t) {
  const res = await upload(who, projectId, fields, { data }, ctx);
  assert.equal(res.statusCode, 201, res.body);
  await ctx.runJobs();
  return (await api(ctx, who, 'GET', `/v1/videos/${res.json().id}`)).json();
}

/** GETs a signed URL as a browser would: no Authorization. */
function fetchSigned(url: string, headers: Record<string, string> = {}, ctx: Ctx = t) {
  assert.ok(url.startsWith(`${ctx.config.publicUrl}/`), url);
  return ctx.app.inject({ method: 'GET', url: url.slice(ctx.config.publicUrl.length), headers });
}

function assertProblem(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

async function eventsFor(who: Who, type: string, id: string) {
  const page = (await api(t, who, 'GET', `/v1/events?event=${type}`)).json();
  return page.data.filter((e: { data: { id: string } }) => e.data.id === id);
}

describe('video sniffing and metadata parsing', () => {
  const ftyp = (major: string, ...compatible: string[]) => {
    const b = Buffer.alloc(16 + 4 * compatible.length);
    b.writeUInt32BE(b.length, 0);
    b.write('ftyp', 4, 'latin1');
    b.write(major, 8, 'latin1');
    compatible.forEach((c, i) => b.write(c, 16 + 4 * i, 'latin1'));
    return b;
  };

  it('tells MP4 and QuickTime from HEIF, AVIF and audio by their brands', () => {
    assert.equal(sniffVideoType(ftyp('isom', 'isom', 'iso2', 'avc1', 'mp41')), 'video/mp4');
    assert.equal(sniffVideoType(ftyp('mp42', 'mp41')), 'video/mp4');
    assert.equal(sniffVideoType(ftyp('M4V ', 'M4V ', 'M4A ', 'mp42')), 'video/mp4');
    assert.equal(sniffVideoType(ftyp('qt  ', 'qt  ')), 'video/quicktime');
    assert.equal(sniffVideoType(ftyp('zzzz', 'qt  ')), 'video/quicktime');
    assert.equal(sniffVideoType(ftyp('heic', 'mif1', 'heic')), null);
    assert.equal(sniffVideoType(ftyp('mif1', 'mif1', 'heic', 'iso8')), null);
    assert.equal(sniffVideoType(ftyp('avif', 'avif', 'mif1', 'miaf')), null);
    assert.equal(sniffVideoType(ftyp('zzzz', 'mif1', 'isom')), null, 'an image brand among the compatible ones wins');
    assert.equal(sniffVideoType(ftyp('M4A ', 'M4A ', 'mp42', 'isom')), null);
    assert.equal(sniffVideoType(ftyp('zzzz', 'yyyy')), null);
  });

  it('parses ISO 6709 locations and container creation times', () => {
    assert.deepEqual(parseIso6709('+48.8584+002.2945+035.000/'), { lat: 48.8584, lon: 2.2945, altitude: 35 });
    assert.deepEqual(parseIso6709('-33.8568+151.2153/'), { lat: -33.8568, lon: 151.2153, altitude: null });
    assert.deepEqual(parseIso6709('+4851.504+00217.670/'), { lat: 48.8584, lon: 2.2945, altitude: null }, 'degrees and minutes');
    assert.deepEqual(parseIso6709('+485130.24+0021740.2CRSWGS_84/'), { lat: 48.8584, lon: 2.2945, altitude: null }, 'degrees, minutes, seconds');
    assert.equal(parseIso6709('+00.0000+000.0000/'), null, 'no fix');
    assert.equal(parseIso6709('+95.0+010.0/'), null);
    assert.equal(parseIso6709('Paris'), null);
    assert.equal(parseCreationTime('2026-05-04T11:30:15+0200')?.toISOString(), '2026-05-04T09:30:15.000Z');
    assert.equal(parseCreationTime('2026-05-04T09:30:15.000000Z')?.toISOString(), '2026-05-04T09:30:15.000Z');
    assert.equal(parseCreationTime('1970-01-01T00:00:00.000000Z'), null, 'a camera without a clock');
    assert.equal(parseCreationTime('2999-01-01T00:00:00Z'), null, 'the future');
    assert.equal(parseCreationTime('yesterday'), null);
  });
});

describe('video upload and processing', needsFfmpeg, () => {
  it('stores an MP4 byte for byte (ranges too), then probes it, makes a poster and emits video.created once', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const bytes = await androidMp4();
    const res = await upload(ws.admin, prj, { caption: 'Pour, level 3' }, { data: bytes, contentType: 'application/octet-stream' });
    assert.equal(res.statusCode, 201, res.body);
    const video = res.json();
    assert.match(video.id, /^vid_/);
    assert.equal(res.headers.location, `/v1/videos/${video.id}`);
    assert.equal(video.processing_status, 'pending');
    assert.equal(video.content_type, 'video/mp4');
    assert.equal(video.byte_size, bytes.length);
    assert.equal(video.sha256, crypto.createHash('sha256').update(bytes).digest('hex'));
    assert.equal(video.caption, 'Pour, level 3');
    assert.equal(video.poster_url, null);
    assert.equal(video.duration_s, null);
    assert.equal(video.captured_at_source, 'upload');
    assert.equal(video.creator_id, ws.admin.id);

    const original = await fetchSigned(video.url);
    assert.equal(original.statusCode, 200);
    assert.equal(original.headers['content-type'], 'video/mp4');
    assert.ok(original.rawPayload.equals(bytes));
    const range = await fetchSigned(video.url, { range: 'bytes=100-1099' });
    assert.equal(range.statusCode, 206);
    assert.equal(range.headers['content-range'], `bytes 100-1099/${bytes.length}`);
    assert.ok(range.rawPayload.equals(bytes.subarray(100, 1100)));

    // The job copies the video under os.tmpdir(); a private TMPDIR for the run (other test files
    // process videos at the same time in the shared one) shows whether it removed its copy.
    const privateTmp = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-video-test-'));
    const tmpBefore = process.env.TMPDIR;
    process.env.TMPDIR = privateTmp;
    try {
      await t.runJobs();
    } finally {
      if (tmpBefore === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpBefore;
    }
    assert.equal(os.tmpdir() === privateTmp, false);
    assert.deepEqual(await fs.readdir(privateTmp), [], 'the temporary copy is removed');
    await fs.rm(privateTmp, { recursive: true, force: true });
    const done = (await api(t, ws.admin, 'GET', `/v1/videos/${video.id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.equal(done.processing_error, null);
    assert.equal(done.duration_s, 2);
    assert.deepEqual([done.width, done.height, done.codec], [320, 240, 'h264']);
    assert.equal(done.captured_at, '2026-05-04T09:30:15.000Z');
    assert.equal(done.captured_at_source, 'metadata');
    assert.deepEqual(done.coordinates, { lat: 48.8584, lon: 2.2945, altitude: 35 });
    assert.equal(done.coordinates_source, 'metadata');
    const poster = await fetchSigned(done.poster_url);
    assert.equal(poster.statusCode, 200);
    assert.equal(poster.headers['content-type'], 'image/jpeg');
    const meta = await sharp(poster.rawPayload).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ['jpeg', 320, 240]);

    const created = await eventsFor(ws.admin, 'video.created', video.id);
    assert.equal(created.length, 1);
    assert.equal(created[0].project_id, prj);
    assert.equal(created[0].data.processing_status, 'processed');
    assert.match(created[0].data.poster_url, /^http:\/\/jobsite\.test\/v1\/files\//);
    // Safe to run twice: nothing is pending any more, nothing more is emitted.
    await t.runJobs();
    assert.equal((await eventsFor(ws.admin, 'video.created', video.id)).length, 1);
  });

  it('reads an iPhone MOV: Apple\'s creation date and location, and the size as displayed (rotated)', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const done = await uploaded(ws.admin, prj, await iphoneMov());
    assert.equal(done.content_type, 'video/quicktime');
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.equal(done.captured_at, '2026-05-04T09:30:15.000Z');
    assert.deepEqual(done.coordinates, { lat: -33.8568, lon: 151.2153, altitude: 10 });
    assert.deepEqual([done.width, done.height], [240, 320]);
    const meta = await sharp((await fetchSigned(done.poster_url)).rawPayload).metadata();
    assert.deepEqual([meta.width, meta.height], [240, 320], 'the poster is upright');
  });

  it('accepts WebM', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const done = await uploaded(ws.admin, prj, await webm());
    assert.equal(done.content_type, 'video/webm');
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.deepEqual([done.width, done.height, done.codec, done.duration_s], [320, 240, 'vp8', 2]);
    assert.equal(done.captured_at_source, 'upload');
    assert.equal(done.coordinates, null);
    assert.equal((await fetchSigned(done.poster_url)).statusCode, 200);
  });

  it('keeps the client\'s time and coordinates over the file\'s', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const done = await uploaded(ws.admin, prj, await androidMp4(), { captured_at: '2026-06-01T12:00:00Z', lat: '10.5', lon: '-20.25', altitude: '3' });
    assert.equal(done.captured_at, '2026-06-01T12:00:00.000Z');
    assert.equal(done.captured_at_source, 'client');
    assert.deepEqual(done.coordinates, { lat: 10.5, lon: -20.25, altitude: 3 });
    assert.equal(done.coordinates_source, 'client');
    assert.equal(done.duration_s, 2);
  });

  it('refuses what is not a video with 415 (text, JPEG, AVIF, Matroska, JSON) and one over the limit with 413, keeping nothing', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const before = await countObjects();
    const avif = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#c33' } }).avif().toBuffer();
    assert.equal(avif.toString('latin1', 4, 8), 'ftyp', 'an ISO-BMFF file, like MP4');
    for (const data of [textFile(), await jpegWithExif(), avif, await matroska()]) {
      assertProblem(await upload(ws.admin, prj, {}, { data, contentType: 'video/mp4' }), 415, 'unsupported_media_type');
    }
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${prj}/videos`, { source_url: 'https://example.com/a.mp4' }), 415, 'unsupported_media_type');
    const big = Buffer.concat([await androidMp4(), crypto.randomBytes(MAX_BYTES)]);
    assertProblem(await upload(ws.admin, prj, {}, { data: big }), 413, 'payload_too_large');
    assertProblem(await upload(ws.admin, prj, { caption: 'no file' }), 400, 'missing_file');
    const bad = await upload(ws.admin, prj, { lat: '91', colour: 'red' }, { data: await androidMp4() });
    assertProblem(bad, 400, 'validation_failed');
    assert.deepEqual(bad.json().errors.map((e: { path: string }) => e.path).sort(), ['body.colour', 'body.lat', 'body.lon']);
    assert.equal(await countObjects(), before);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/videos`)).json().data.length, 0);
  });

  it('marks a damaged video failed with a reason (never stuck pending) and still emits video.created', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const truncated = await uploaded(ws.admin, prj, await truncatedMp4());
    assert.equal(truncated.processing_status, 'failed');
    assert.match(truncated.processing_error, /^the file cannot be read as a video: moov atom not found/);
    assert.doesNotMatch(truncated.processing_error, /jobsite-video-/, 'no temporary path in the message');
    assert.equal(truncated.poster_url, null);
    const garbage = Buffer.concat([(await androidMp4()).subarray(0, 32), crypto.randomBytes(20_000)]);
    const corrupt = await uploaded(ws.admin, prj, garbage);
    assert.equal(corrupt.content_type, 'video/mp4');
    assert.equal(corrupt.processing_status, 'failed');
    assert.ok(corrupt.processing_error);
    const created = await eventsFor(ws.admin, 'video.created', truncated.id);
    assert.equal(created.length, 1);
    assert.equal(created[0].data.processing_status, 'failed');
    // The original is still served as uploaded.
    assert.equal((await fetchSigned(truncated.url)).statusCode, 200);
  });
});

describe('video API', needsFfmpeg, () => {
  it('lists with filters (project, creator, time, bbox, status) and both sorts, page by page', async () => {
    const ws = await newWorkspace(t);
    const [p1, p2] = [await project(ws), await project(ws)];
    const member = await newUser(t, ws, 'standard');
    const paris = await uploaded(ws.admin, p1, await androidMp4()); // 2026-05-04, Paris
    const sydney = await uploaded(ws.admin, p2, await iphoneMov()); // 2026-05-04, Sydney
    const later = await uploaded(ws.admin, p1, await webm(), { captured_at: '2026-07-01T08:00:00Z' });
    const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((v) => v.id);
    const list = (q: string) => api(t, ws.admin, 'GET', `/v1/videos${q}`);

    assert.deepEqual(ids(await list('')), [later.id, sydney.id, paris.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects/${p1}/videos`)), [later.id, paris.id]);
    assert.deepEqual(ids(await list(`?project_id=${p2}`)), [sydney.id]);
    assert.deepEqual(ids(await list(`?creator_id=${member.id}`)), []);
    assert.deepEqual(ids(await list(`?creator_id=${ws.admin.id}&captured_after=2026-06-01T00:00:00Z`)), [later.id]);
    assert.deepEqual(ids(await list('?captured_before=2026-06-01T00:00:00Z')), [sydney.id, paris.id]);
    assert.deepEqual(ids(await list('?bbox=0,40,10,50')), [paris.id]);
    assert.deepEqual(ids(await list('?bbox=150,-40,-170,-30')), [sydney.id], 'across the antimeridian');
    assert.deepEqual(ids(await list('?processing_status=failed')), []);
    assertProblem(await list('?bbox=1,2,3'), 400, 'validation_failed');

    const first = await list('?sort=captured_at&limit=2');
    assert.deepEqual(ids(first), [later.id, paris.id === ids(first)[1] ? paris.id : sydney.id]);
    const second = await list(`?sort=captured_at&limit=2&cursor=${encodeURIComponent(first.json().next_cursor)}`);
    assert.equal(ids(second).length, 1);
    assert.deepEqual(new Set([...ids(first), ...ids(second)]), new Set([paris.id, sydney.id, later.id]));
  });

  it('PATCHes caption, time and coordinates (video.updated), and DELETE removes the files (video.deleted)', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const video = await uploaded(ws.admin, prj, await androidMp4());
    const patched = await api(t, ws.admin, 'PATCH', `/v1/videos/${video.id}`, { caption: 'Crane lift', captured_at: '2026-05-05T10:00:00Z', coordinates: { lat: 1.5, lon: 2.5 } });
    assert.equal(patched.statusCode, 200, patched.body);
    const v = patched.json();
    assert.equal(v.caption, 'Crane lift');
    assert.equal(v.captured_at, '2026-05-05T10:00:00.000Z');
    assert.equal(v.captured_at_source, 'client');
    assert.deepEqual(v.coordinates, { lat: 1.5, lon: 2.5, altitude: null });
    assert.equal(v.coordinates_source, 'client');
    const cleared = (await api(t, ws.admin, 'PATCH', `/v1/videos/${video.id}`, { coordinates: null, caption: null })).json();
    assert.deepEqual([cleared.coordinates, cleared.coordinates_source, cleared.caption], [null, null, null]);
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/videos/${video.id}`, { duration_s: 5 }), 400, 'validation_failed');
    const updates = await eventsFor(ws.admin, 'video.updated', video.id);
    assert.equal(updates.length, 2);

    const before = await countObjects();
    const del = await api(t, ws.admin, 'DELETE', `/v1/videos/${video.id}`);
    assert.equal(del.statusCode, 204, del.body);
    assert.equal(await countObjects(), before - 2, 'the original and the poster');
    assert.equal((await fetchSigned(video.url)).statusCode, 404);
    assert.equal((await fetchSigned(video.poster_url)).statusCode, 404);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/videos/${video.id}`), 404, 'not_found');
    const deleted = await eventsFor(ws.admin, 'video.deleted', video.id);
    assert.equal(deleted.length, 1);
    assert.equal(deleted[0].data.caption, null);
  });

  it('follows the photo access rules: restricted users change only their own; other workspaces get 404', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const restricted = await newUser(t, ws, 'restricted');
    assertProblem(await upload(restricted, prj, {}, { data: await webm() }), 404, 'not_found');
    assert.equal((await api(t, ws.admin, 'PUT', `/v1/projects/${prj}/members/${restricted.id}`)).statusCode < 300, true);
    const mine = await uploaded(restricted, prj, await webm());
    const theirs = await uploaded(ws.admin, prj, await webm());
    assert.equal((await api(t, restricted, 'PATCH', `/v1/videos/${mine.id}`, { caption: 'mine' })).statusCode, 200);
    assert.equal((await api(t, restricted, 'GET', `/v1/videos/${theirs.id}`)).statusCode, 200);
    assertProblem(await api(t, restricted, 'PATCH', `/v1/videos/${theirs.id}`, { caption: 'not mine' }), 403, 'forbidden');
    assertProblem(await api(t, restricted, 'DELETE', `/v1/videos/${theirs.id}`), 403, 'forbidden');

    const other = await newWorkspace(t);
    for (const [method, url, body] of [['GET', `/v1/videos/${theirs.id}`], ['PATCH', `/v1/videos/${theirs.id}`, { caption: 'x' }], ['DELETE', `/v1/videos/${theirs.id}`],
      ['GET', `/v1/projects/${prj}/videos`]] as const) {
      assertProblem(await api(t, other.admin, method, url, body), 404, 'not_found');
    }
    assertProblem(await upload(other.admin, prj, {}, { data: await webm() }), 404, 'not_found');
    assert.deepEqual((await api(t, other.admin, 'GET', '/v1/videos')).json().data, []);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/videos/${theirs.id}`)).statusCode, 200, 'still there');
  });
});

describe('videos without ffmpeg', needsFfmpeg, () => {
  it('are stored, served and marked processed with no metadata and no poster', async () => {
    const bare = await startTestApp({ JOBSITE_FFMPEG_PATH: 'off', JOBSITE_FFPROBE_PATH: '/nonexistent/ffprobe' });
    try {
      const ws = await newWorkspace(bare);
      const prj = await project(ws, bare);
      const bytes = await androidMp4();
      const done = await uploaded(ws.admin, prj, bytes, {}, bare);
      assert.equal(done.processing_status, 'processed');
      assert.deepEqual([done.duration_s, done.width, done.height, done.codec, done.poster_url, done.coordinates], [null, null, null, null, null, null]);
      assert.equal(done.captured_at_source, 'upload');
      assert.ok((await fetchSigned(done.url, {}, bare)).rawPayload.equals(bytes));
    } finally {
      await bare.close();
    }
  });
});

async function countObjects(): Promise<number> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const walk = async (d: string): Promise<number> => {
    let n = 0;
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      n += e.isDirectory() ? await walk(path.join(d, e.name)) : e.name.endsWith('.json') ? 0 : 1;
    }
    return n;
  };
  return walk(path.join(t.config.dataDir, 'blobs'));
}
