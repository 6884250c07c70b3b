import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import { ExportJobs } from '../src/features/exports/exports.jobs.ts';
import { purgeExpiredExports } from '../src/features/exports/exports.service.ts';
import { CLEANUP_CRONTAB } from '../src/jobs/cleanup.ts';
import type { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { newId } from '../src/ids.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { noisyJpeg, png } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { eventually, Receiver, startWebhookDispatcher } from './webhook-receiver.ts';

/**
 * ZIP exports end to end: real photos uploaded and processed, the ZIP written by the real job into
 * the file store, downloaded over the API, and opened by Info-ZIP's `unzip -t` and Python's zipfile.
 */
let t: TestContext;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-exports-test-'));
before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  receiver = await Receiver.start();
  dispatcher = await startWebhookDispatcher(t);
});
after(async () => {
  await dispatcher?.stop();
  await receiver?.close();
  await t?.close();
  fs.rmSync(tmp, { recursive: true, force: true });
});

type Who = { key: string };

async function project(ws: TestWorkspace, who: Who = ws.admin, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}`, ...fields });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

const PARIS = { lat: 48.8584, lon: 2.2945 };

async function upload(who: Who, projectId: string, fields: Record<string, string>, data?: Buffer, contentType = 'image/jpeg'): Promise<string> {
  const { payload, headers } = multipart(fields, { data: data ?? await noisyJpeg(240, 160, 70), contentType });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function tag(ws: TestWorkspace, name: string, photoIds: string[]): Promise<string> {
  const res = await api(t, ws.admin, 'POST', '/v1/tags', { name, color: '#336699' });
  assert.equal(res.statusCode, 201, res.body);
  for (const photoId of photoIds) assert.ok((await api(t, ws.admin, 'PUT', `/v1/photos/${photoId}/tags/${res.json().id}`)).statusCode < 300);
  return res.json().id;
}

const requestExport = (who: Who, projectId: string, body: Record<string, unknown> = {}) => api(t, who, 'POST', `/v1/projects/${projectId}/exports`, body);

/** Requests an export, runs the jobs, and answers the export as the API shows it afterwards. */
async function exported(who: Who, projectId: string, body: Record<string, unknown> = {}) {
  const res = await requestExport(who, projectId, body);
  assert.equal(res.statusCode, 202, res.body);
  await t.runJobs();
  return (await api(t, who, 'GET', `/v1/exports/${res.json().id}`)).json();
}

function assertProblem(res: { statusCode: number; body: string; headers: Record<string, unknown> }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

interface Unzipped {
  entries: { name: string; size: number; stored: boolean; utf8: boolean; sha256: string }[];
  csv: string[][];
  csvBom: boolean;
  json: { export: Record<string, unknown>; photos: Record<string, any>[] };
}

/** Downloads the ZIP, checks it with `unzip -t`, and reads it with Python's zipfile (names, bytes, both manifests). */
async function openZip(who: Who, exportId: string): Promise<Unzipped> {
  const res = await api(t, who, 'GET', `/v1/exports/${exportId}/download`);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], 'application/zip');
  const file = path.join(tmp, `${exportId}.zip`);
  fs.writeFileSync(file, res.rawPayload);
  const test = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
  assert.ok(!test.error, `Info-ZIP's unzip is needed (Debian: apt-get install unzip): ${test.error?.message}`);
  assert.equal(test.status, 0, `unzip -t failed: ${test.stdout}${test.stderr}`);
  assert.match(test.stdout, /No errors detected/);
  const script = `
import csv, hashlib, io, json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.testzip() is None
raw = z.read('photos.csv')
rows = list(csv.reader(io.StringIO(raw.decode('utf-8-sig'), newline='')))
print(json.dumps({
  'entries': [{'name': i.filename, 'size': i.file_size, 'stored': i.compress_type == zipfile.ZIP_STORED, 'utf8': bool(i.flag_bits & 0x800),
               'sha256': hashlib.sha256(z.read(i)).hexdigest()} for i in z.infolist()],
  'csv': rows, 'csvBom': raw.startswith(b'\\xef\\xbb\\xbf'), 'json': json.loads(z.read('photos.json')),
}))`;
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as Unzipped;
}

describe('an export of real photos', () => {
  let ws: TestWorkspace;
  let prj: string;
  const ids: Record<string, string> = {};
  let deckTag: string;

  before(async () => {
    ws = await newWorkspace(t, 'Acme Builders');
    await t.db.updateTable('users').set({ first_name: 'Jane', last_name: 'Doe' }).where('id', '=', ws.admin.id).execute();
    prj = await project(ws, ws.admin, { name: 'Tower A', coordinates: PARIS });
    const at = (iso: string, extra: Record<string, string> = {}) => ({ captured_at: iso, lat: String(PARIS.lat), lon: String(PARIS.lon), ...extra });
    // Paris is UTC+1 in March: 07:00Z is 08:00 on the site's clocks.
    ids.deck = await upload(ws.admin, prj, at('2026-03-02T07:00:00Z', { caption: 'Deck poured, north side' }));
    ids.blank1 = await upload(ws.admin, prj, at('2026-03-02T07:00:10Z'));
    ids.blank2 = await upload(ws.admin, prj, at('2026-03-02T07:00:20Z'));
    ids.upper = await upload(ws.admin, prj, at('2026-03-02T07:05:00Z', { caption: 'ROOF' }));
    ids.lower = await upload(ws.admin, prj, at('2026-03-02T07:05:30Z', { caption: 'roof' }));
    ids.unsafe = await upload(ws.admin, prj, at('2026-03-02T09:15:00Z', { caption: 'Façade: "east" / west?\u202Egpj.exe' }));
    ids.unicode = await upload(ws.admin, prj, at('2026-03-03T08:00:00Z', { caption: '工地 🚧\nlevel 2, "B" wing' }), await png(200, 120), 'image/png');
    ids.formula = await upload(ws.admin, prj, { captured_at: '2026-03-04T12:00:00Z', caption: '=HYPERLINK("http://x")' });
    await t.runJobs();
    deckTag = await tag(ws, 'Deck', [ids.deck!, ids.unicode!]);
    await tag(ws, 'Safety', [ids.deck!]);
  });

  it('answers 202 queued, then writes a ZIP that unzip and Python open: originals named by local time and caption, and both manifests', async () => {
    const hook = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url('/exports'), events: ['export.*'] });
    assert.equal(hook.statusCode, 201, hook.body);

    const res = await requestExport(ws.admin, prj);
    assert.equal(res.statusCode, 202, res.body);
    const queued = res.json();
    assert.match(queued.id, /^exp_/);
    assert.equal(res.headers.location, `/v1/exports/${queued.id}`);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.url, null);
    assert.equal(queued.photo_count, null);
    assert.deepEqual(queued.selection, { photo_ids: null, captured_after: null, captured_before: null, tag_ids: null });
    assert.match(queued.file_name, /^Tower A photos \d{4}-\d{2}-\d{2}\.zip$/);
    assert.equal(queued.requested_by, ws.admin.id);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/exports/${queued.id}/download`), 409, 'export_not_ready');

    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/exports/${queued.id}`)).json();
    assert.equal(done.status, 'finished', done.error);
    assert.equal(done.photo_count, 8);
    assert.ok(done.finished_at);

    const zip = await openZip(ws.admin, done.id);
    const names = zip.entries.map((e) => e.name);
    assert.deepEqual(names, [
      'photos.csv', 'photos.json',
      '2026-03-02 0800 Deck poured, north side.jpg',
      '2026-03-02 0800.jpg',
      '2026-03-02 0800 (2).jpg',
      '2026-03-02 0805 ROOF.jpg',
      '2026-03-02 0805 roof (2).jpg', // Windows and macOS would take it for the one above
      '2026-03-02 1015 Façade_ _east_ _ west_ gpj.exe.jpg', // reserved characters replaced, the bidi override gone
      '2026-03-03 0900 工地 🚧 level 2, "B" wing.png'.replace(/"/g, '_'),
      '2026-03-04 1300 =HYPERLINK(_http___x_).jpg',
    ]);
    assert.ok(zip.entries.every((e) => e.utf8), 'names flagged as UTF-8');
    // The originals, byte for byte, stored (not deflated again).
    for (const [key, id] of Object.entries(ids)) {
      const photo = (await api(t, ws.admin, 'GET', `/v1/photos/${id}`)).json();
      const entry = zip.entries.find((e) => e.sha256 === photo.sha256);
      assert.ok(entry, `${key}: the original is in the ZIP`);
      assert.equal(entry.size, photo.byte_size);
      assert.ok(entry.stored, entry.name);
    }
    assert.equal(zip.entries.find((e) => e.name.endsWith('.png'))!.sha256, (await api(t, ws.admin, 'GET', `/v1/photos/${ids.unicode}`)).json().sha256);

    // photos.json: everything about each photo, in the ZIP's order.
    const json = zip.json;
    assert.equal(json.export.id, done.id);
    assert.deepEqual(json.export.project, { id: prj, name: 'Tower A' });
    assert.equal(json.export.photo_count, 8);
    assert.deepEqual(json.photos.map((p) => p.file), names.slice(2));
    const deck = json.photos[0]!;
    assert.deepEqual(Object.keys(deck), ['id', 'file', 'caption', 'captured_at', 'captured_at_local', 'captured_at_time_zone', 'captured_at_source',
      'coordinates', 'tags', 'uploader', 'content_type', 'byte_size', 'width', 'height', 'sha256']);
    assert.equal(deck.id, ids.deck);
    assert.equal(deck.caption, 'Deck poured, north side');
    assert.equal(deck.captured_at, '2026-03-02T07:00:00.000Z');
    assert.equal(deck.captured_at_local, '2026-03-02T08:00:00.000+01:00');
    assert.equal(deck.captured_at_time_zone, 'Europe/Paris');
    assert.equal(deck.captured_at_source, 'client');
    assert.deepEqual(deck.coordinates, { lat: PARIS.lat, lon: PARIS.lon, altitude: null });
    assert.deepEqual(deck.tags.map((x: { name: string }) => x.name), ['Deck', 'Safety']);
    assert.equal(deck.tags[0].id, deckTag);
    assert.deepEqual(deck.uploader, { id: ws.admin.id, name: 'Jane Doe', handle: ws.admin.handle });
    assert.equal(deck.content_type, 'image/jpeg');
    assert.deepEqual([deck.width, deck.height], [240, 160]);
    assert.equal(json.photos[6]!.caption, '工地 🚧\nlevel 2, "B" wing'); // exact, unlike the file name
    assert.equal(json.photos[7]!.coordinates, null);

    // photos.csv: RFC 4180 with a BOM, the same facts flattened; formulas defused.
    assert.ok(zip.csvBom);
    const [header, ...rows] = zip.csv;
    assert.deepEqual(header!.slice(0, 4), ['id', 'file', 'caption', 'captured_at']);
    assert.equal(rows.length, 8);
    const col = (name: string) => header!.indexOf(name);
    assert.equal(rows[0]![col('caption')], 'Deck poured, north side');
    assert.equal(rows[0]![col('tags')], 'Deck; Safety');
    assert.equal(rows[0]![col('latitude')], String(PARIS.lat));
    assert.equal(rows[0]![col('uploader_name')], 'Jane Doe');
    assert.equal(rows[6]![col('caption')], '工地 🚧\nlevel 2, "B" wing');
    assert.equal(rows[7]![col('caption')], '\'=HYPERLINK("http://x")');
    assert.equal(rows[7]![col('latitude')], '');

    // The signed URL serves the same ZIP; export.finished is delivered with it.
    const signed = await t.app.inject({ method: 'GET', url: done.url.slice(t.config.publicUrl.length) });
    assert.equal(signed.statusCode, 200);
    assert.match(String(signed.headers['content-disposition']), /^attachment; filename="Tower A photos/);
    assert.equal(Number(signed.headers['content-length']), done.byte_size);
    const received = await eventually('export.finished delivered', () => receiver.at('/exports').find((r) => JSON.parse(r.body).event === 'export.finished'));
    assert.ok(await verifyGithub(hook.json().secret, received.body, String(received.headers['x-service-signature'])));
    const delivered = JSON.parse(received.body);
    assert.equal(delivered.project_id, prj);
    assert.equal(delivered.data.id, done.id);
    assert.equal(delivered.data.photo_count, 8);
    assert.match(delivered.data.url, /^http:\/\/jobsite\.test\/v1\/files\/exports\//);

    // A range resumes a broken download.
    const part = await api(t, ws.admin, 'GET', `/v1/exports/${done.id}/download`, undefined, { range: 'bytes=100-199' });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 100-199/${done.byte_size}`);
  });

  it('selects by photo ids, capture range and tags, combined', async () => {
    const byIds = await exported(ws.admin, prj, { photo_ids: [ids.formula, ids.deck] });
    assert.equal(byIds.photo_count, 2);
    assert.deepEqual((await openZip(ws.admin, byIds.id)).json.photos.map((p) => p.id), [ids.deck, ids.formula]);

    const byRange = await exported(ws.admin, prj, { captured_after: '2026-03-02T07:05:00Z', captured_before: '2026-03-03T08:00:00Z' });
    assert.equal(byRange.selection.captured_after, '2026-03-02T07:05:00.000Z');
    assert.deepEqual((await openZip(ws.admin, byRange.id)).json.photos.map((p) => p.id), [ids.upper, ids.lower, ids.unsafe]);

    const byTag = await exported(ws.admin, prj, { tag_ids: [deckTag] });
    assert.deepEqual((await openZip(ws.admin, byTag.id)).json.photos.map((p) => p.id), [ids.deck, ids.unicode]);

    const combined = await exported(ws.admin, prj, { tag_ids: [deckTag], captured_after: '2026-03-03T00:00:00Z' });
    assert.equal(combined.photo_count, 1);

    const none = await exported(ws.admin, prj, { captured_after: '2030-01-01T00:00:00Z' });
    assert.equal(none.status, 'finished');
    const empty = await openZip(ws.admin, none.id);
    assert.deepEqual(empty.entries.map((e) => e.name), ['photos.csv', 'photos.json']);
    assert.equal(empty.csv.length, 1);
    assert.deepEqual(empty.json.photos, []);
  });

  it('lists the project\'s exports newest first, a page at a time, and by status', async () => {
    const all = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/exports?limit=100`)).json().data as { id: string }[];
    assert.ok(all.length >= 6);
    assert.deepEqual(all.map((e) => e.id), all.map((e) => e.id).sort().reverse());
    const page = await api(t, ws.admin, 'GET', `/v1/projects/${prj}/exports?limit=2`);
    assert.equal(page.json().data.length, 2);
    assert.match(String(page.headers.link), /rel="next"/);
    const next = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/exports?limit=2&cursor=${page.json().next_cursor}`)).json();
    assert.deepEqual(next.data.map((e: { id: string }) => e.id), all.slice(2, 4).map((e) => e.id));
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/exports?status=failed`)).json().data, []);
  });
});

describe('export requests that are refused', () => {
  it('answers problems for photos of another project, unknown tags, bad times, unknown fields and missing things', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const other = await project(ws);
    const mine = await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    const theirs = await upload(ws.admin, other, { captured_at: '2026-05-04T07:30:00Z' });

    const res = await requestExport(ws.admin, prj, { photo_ids: [mine, theirs] });
    assertProblem(res, 422, 'photo_not_in_project');
    assert.deepEqual(res.json().errors, [{ path: 'body.photo_ids[1]', message: `${theirs} is not a photo of this project` }]);
    const foreign = newId('tag');
    assertProblem(await requestExport(ws.admin, prj, { tag_ids: [foreign] }), 422, 'tag_not_found');

    assertProblem(await requestExport(ws.admin, prj, { captured_after: 'yesterday' }), 400, 'validation_failed');
    assertProblem(await requestExport(ws.admin, prj, { captured_after: '2026-05-05T00:00:00Z', captured_before: '2026-05-04T00:00:00Z' }), 400, 'validation_failed');
    assertProblem(await requestExport(ws.admin, prj, { photo_ids: [] }), 400, 'validation_failed');
    assertProblem(await requestExport(ws.admin, prj, { format: 'tar' }), 400, 'validation_failed');
    assertProblem(await requestExport(ws.admin, 'prj_00000000000000000000000000'), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/exports/exp_00000000000000000000000000'), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/exports/nonsense/download'), 404, 'not_found');
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/exports`)).json().data, []);
  });
});

describe('who may export', () => {
  it('restricted users: 404 off the project, 403 to export on it, but they see its exports; another workspace sees nothing', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const made = await exported(ws.admin, prj);
    assert.equal(made.status, 'finished');

    const stranger = await newWorkspace(t);
    const restricted = await newUser(t, ws, 'restricted');
    for (const who of [stranger.admin, restricted]) {
      assertProblem(await api(t, who, 'GET', `/v1/exports/${made.id}`), 404, 'not_found');
      assertProblem(await api(t, who, 'GET', `/v1/exports/${made.id}/download`), 404, 'not_found');
      assertProblem(await api(t, who, 'DELETE', `/v1/exports/${made.id}`), 404, 'not_found');
      assertProblem(await api(t, who, 'GET', `/v1/projects/${prj}/exports`), 404, 'not_found');
      assertProblem(await requestExport(who, prj), 404, 'not_found');
    }
    assert.ok((await api(t, ws.admin, 'PUT', `/v1/projects/${prj}/members/${restricted.id}`)).statusCode < 300);
    const refused = await requestExport(restricted, prj);
    assertProblem(refused, 403, 'forbidden');
    assert.match(refused.json().detail, /restricted.*export photos/);
    assert.equal((await api(t, restricted, 'GET', `/v1/exports/${made.id}`)).statusCode, 200);
    assert.equal((await api(t, restricted, 'GET', `/v1/projects/${prj}/exports`)).json().data.length, 1);
  });

  it('standard users export and delete their own; deleting removes the ZIP and its URL', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const standard = await newUser(t, ws, 'standard');
    const admins = await exported(ws.admin, prj);
    const own = await exported(standard, prj);
    assert.equal(own.status, 'finished');
    assertProblem(await api(t, standard, 'DELETE', `/v1/exports/${admins.id}`), 403, 'forbidden');
    assert.equal((await api(t, standard, 'DELETE', `/v1/exports/${own.id}`)).statusCode, 204);
    assertProblem(await api(t, standard, 'GET', `/v1/exports/${own.id}`), 404, 'not_found');
    assert.equal((await t.app.inject({ method: 'GET', url: own.url.slice(t.config.publicUrl.length) })).statusCode, 404);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/exports/${admins.id}`)).statusCode, 204);
  });
});

describe('retention', () => {
  it('says when an export ends its days (7 after it finished), and the hourly task deletes it then, with its ZIP', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const [old, recent] = [await exported(ws.admin, prj), await exported(ws.admin, prj)];
    assert.equal(t.config.media.exportRetentionDays, 7);
    assert.equal(new Date(old.expires_at).getTime() - new Date(old.finished_at).getTime(), 7 * 86_400_000);
    const queued = (await api(t, ws.admin, 'POST', `/v1/projects/${prj}/exports`, {})).json();
    assert.equal(queued.expires_at, null, 'not before it ends');
    assert.match(CLEANUP_CRONTAB, /^\d+ \* \* \* \* purge_expired_exports$/m);

    const days = (n: number) => new Date(Date.now() - n * 86_400_000);
    await t.db.updateTable('exports').set({ finished_at: days(7.01) }).where('id', '=', old.id).execute();
    await t.db.updateTable('exports').set({ finished_at: days(6.9) }).where('id', '=', recent.id).execute();
    assert.equal(await purgeExpiredExports(t.db, t.app.blobs, 0), 0, '0: kept until deleted');
    assert.ok(await purgeExpiredExports(t.db, t.app.blobs, 7) >= 1);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/exports/${old.id}`), 404, 'not_found');
    assert.equal((await t.app.inject({ method: 'GET', url: old.url.slice(t.config.publicUrl.length) })).statusCode, 404, 'its ZIP is gone');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/exports/${recent.id}`)).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: recent.url.slice(t.config.publicUrl.length) })).statusCode, 200);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/exports/${queued.id}`)).statusCode, 200, 'one still running is never purged');
  });
});

describe('an export that cannot be written', () => {
  it('fails with the reason and export.failed when an original is gone, and leaves no ZIP', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { caption: 'fine', captured_at: '2026-05-04T07:30:00Z' });
    const broken = await upload(ws.admin, prj, { caption: 'gone', captured_at: '2026-05-04T08:30:00Z' });
    await t.runJobs();
    const row = await t.db.selectFrom('photos').select('blob_key').where('id', '=', broken).executeTakeFirstOrThrow();
    await t.app.blobs.delete(row.blob_key);
    const before = new Set(listBlobs('exports'));

    const failed = await exported(ws.admin, prj);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error, `the original of photo ${broken} is missing from storage`);
    assert.equal(failed.url, null);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/exports/${failed.id}/download`), 409, 'export_not_ready');
    const events = await t.db.selectFrom('events').select(['event', 'payload']).where('workspace_id', '=', ws.id).where('event', 'like', 'export.%').execute();
    assert.deepEqual(events.map((e) => e.event), ['export.failed']);
    assert.deepEqual(listBlobs('exports').filter((k) => !before.has(k)), []);
  });

  it('a read that breaks half-way through an original leaves no ZIP and is retried; the last attempt fails the export', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' }, await noisyJpeg(800, 600, 90));
    await t.runJobs();
    const id = (await requestExport(ws.admin, prj)).json().id;
    const before = new Set(listBlobs('exports'));
    const deps = t.jobDeps();
    // The store hands out originals that break after their first 10 KB (a connection reset, say).
    const breaking = new Proxy(deps.blobs, {
      get(target, prop) {
        if (prop === 'get') {
          return async (key: string) => {
            const object = await target.get(key);
            if (!object || !key.startsWith('photos/')) return object;
            let sent = 0;
            const { Transform } = await import('node:stream');
            const cut = new Transform({
              transform(chunk: Buffer, _enc, done) {
                sent += chunk.length;
                done(sent > 10_000 ? new Error('connection reset by peer') : null, chunk);
              },
            });
            return { ...object, stream: object.stream.pipe(cut) };
          };
        }
        const value = Reflect.get(target, prop, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const jobs = new ExportJobs({ ...deps, blobs: breaking });
    const attempt = (n: number) => ({ job: { attempts: n, max_attempts: 3 }, logger: { error: () => undefined } }) as never;
    await assert.rejects(jobs.write(id, attempt(1)), /connection reset by peer/);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/exports/${id}`)).json().status, 'processing');
    assert.deepEqual(listBlobs('exports').filter((k) => !before.has(k)), []);
    await jobs.write(id, attempt(3));
    const failed = (await api(t, ws.admin, 'GET', `/v1/exports/${id}`)).json();
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /^writing the ZIP failed after 3 attempts: .*connection reset by peer/);
    assert.deepEqual(listBlobs('exports').filter((k) => !before.has(k)), []);
  });

  it('is safe to run twice: the second run of a finished export changes nothing', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const id = (await requestExport(ws.admin, prj)).json().id;
    const jobs = new ExportJobs(t.jobDeps());
    const helpers = { job: { attempts: 1, max_attempts: 3 }, logger: { error: () => undefined } } as never;
    await jobs.write(id, helpers);
    const first = (await api(t, ws.admin, 'GET', `/v1/exports/${id}`)).json();
    assert.equal(first.status, 'finished');
    const blobs = listBlobs('exports').length;
    await jobs.write(id, helpers);
    await t.runJobs();
    const again = (await api(t, ws.admin, 'GET', `/v1/exports/${id}`)).json();
    assert.equal(again.updated_at, first.updated_at);
    assert.equal(listBlobs('exports').length, blobs);
    const finished = await t.db.selectFrom('events').select('id').where('workspace_id', '=', ws.id).where('event', '=', 'export.finished').execute();
    assert.equal(finished.length, 1);
  });
});

/** Keys of the stored blobs of a kind (file driver: files under the data directory). */
function listBlobs(kind: string): string[] {
  const root = path.join((t.config.storage as { directory: string }).directory, kind);
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true, withFileTypes: true }) as fs.Dirent[]).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}
