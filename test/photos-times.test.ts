/**
 * Photo capture times (docs/photos.md, "Capture time"): an EXIF time without an offset is the
 * camera's wall clock, read in the zone of the photo's GPS position, else its project's, else
 * the workspace's; reports print each photo in that zone and group by its local day.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { cameraJpeg, noisyJpeg, phoneJpeg, PLACES } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { parsePdf } from './pdf.ts';
import type { JobHelpers } from 'graphile-worker';
import { photoTasks, REREAD_LEGACY_PHOTO_TIMES } from '../src/features/photos/photos.jobs.ts';
import { captureTimeOf } from '../src/features/photos/photos.times.ts';
import { canonicalTimeZone, timeZoneAt } from '../src/time-zones.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

type Who = { key: string };

async function project(ws: TestWorkspace, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}`, ...fields });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function upload(who: Who, projectId: string, data: Buffer, fields: Record<string, string> = {}): Promise<string> {
  const { payload, headers } = multipart(fields, { data, contentType: 'image/jpeg' });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Uploads, processes, and answers the photo as the API shows it. */
async function processed(ws: TestWorkspace, projectId: string, data: Buffer, fields: Record<string, string> = {}) {
  const id = await upload(ws.admin, projectId, data, fields);
  await t.runJobs();
  const photo = (await api(t, ws.admin, 'GET', `/v1/photos/${id}`)).json();
  assert.equal(photo.processing_status, 'processed', photo.processing_error);
  return photo;
}

const timeOf = (p: { captured_at: string; captured_at_source: string; captured_at_time_zone: string | null }) =>
  [p.captured_at, p.captured_at_source, p.captured_at_time_zone];

describe('reading a wall clock in a zone', () => {
  const wall = (month: number, day: number, hour: number, minute: number) => ({ year: 2026, month, day, hour, minute, second: 0, millisecond: 0 });
  const inChicago = (w: ReturnType<typeof wall>) => captureTimeOf({ wallClock: w, offsetMinutes: null }, { photo: PLACES.chicago, project: null, workspaceTimeZone: 'UTC' });

  it('reads a time in the hour skipped in spring with the offset before the change, and a repeated one as the first', () => {
    // 8 March 2026, 02:00 CST → 03:00 CDT: 02:30 does not exist and reads as 03:30 CDT.
    assert.equal(inChicago(wall(3, 8, 2, 30)).capturedAt.toISOString(), '2026-03-08T08:30:00.000Z');
    // 1 November 2026, 02:00 CDT → 01:00 CST: 01:30 happens twice; the first (CDT) is taken.
    assert.equal(inChicago(wall(11, 1, 1, 30)).capturedAt.toISOString(), '2026-11-01T06:30:00.000Z');
    assert.equal(inChicago(wall(11, 1, 3, 0)).capturedAt.toISOString(), '2026-11-01T09:00:00.000Z');
  });

  it('looks zones up offline, at sea too, and knows IANA names only', () => {
    assert.equal(timeZoneAt(PLACES.chicago.lat, PLACES.chicago.lon), 'America/Chicago');
    assert.equal(timeZoneAt(PLACES.tokyo.lat, PLACES.tokyo.lon), 'Asia/Tokyo');
    assert.equal(timeZoneAt(37.628, -101.998), 'America/Chicago'); // south-west Kansas, where a coarse lookup says Denver
    assert.equal(timeZoneAt(30, -40), 'Etc/GMT+3'); // mid-Atlantic
    assert.equal(timeZoneAt(91, 0), null);
    assert.equal(canonicalTimeZone('europe/paris'), 'Europe/Paris');
    for (const bad of ['CEST', '+02:00', 'Mars/Olympus', '']) assert.equal(canonicalTimeZone(bad), null, bad);
  });
});

describe('capture time of a photo', () => {
  let ws: TestWorkspace;
  let bare: string;
  before(async () => {
    ws = await newWorkspace(t);
    bare = await project(ws); // no coordinates
  });

  it('reads a camera time without an offset in the zone of its GPS position (winter CST, summer CDT)', async () => {
    const winter = await processed(ws, bare, await cameraJpeg('2026:01:15 14:02:00', PLACES.chicago));
    assert.deepEqual(timeOf(winter), ['2026-01-15T20:02:00.000Z', 'exif_local', 'America/Chicago']);
    const summer = await processed(ws, bare, await cameraJpeg('2026:07:15 14:02:00', PLACES.chicago));
    assert.deepEqual(timeOf(summer), ['2026-07-15T19:02:00.000Z', 'exif_local', 'America/Chicago']);
    const tokyo = await processed(ws, bare, await cameraJpeg('2026:01:15 14:02:00', PLACES.tokyo));
    assert.deepEqual(timeOf(tokyo), ['2026-01-15T05:02:00.000Z', 'exif_local', 'Asia/Tokyo']);
  });

  it('takes a time with an offset as exact (exif_offset), in the zone of its GPS position', async () => {
    const phone = await processed(ws, bare, await phoneJpeg('2026:01:15 14:02:00', '+09:00', PLACES.tokyo));
    assert.deepEqual(timeOf(phone), ['2026-01-15T05:02:00.000Z', 'exif_offset', 'Asia/Tokyo']);
    // The offset wins over the place: a phone in Chicago that says -06:00 needs no lookup to be right.
    const chicago = await processed(ws, bare, await phoneJpeg('2026:07:15 14:02:00', '-05:00', PLACES.chicago));
    assert.deepEqual(timeOf(chicago), ['2026-07-15T19:02:00.000Z', 'exif_offset', 'America/Chicago']);
    // No GPS, and a workspace in UTC: the zone is the fixed one the offset names, so it prints as the camera wrote it.
    const noGps = await processed(ws, bare, await phoneJpeg('2026:01:15 14:02:00', '+09:00'));
    assert.deepEqual(timeOf(noGps), ['2026-01-15T05:02:00.000Z', 'exif_offset', 'Etc/GMT-9']);
  });

  it('without GPS, reads it in the zone of the project\'s coordinates', async () => {
    const tokyoSite = await project(ws, { coordinates: PLACES.tokyo });
    const photo = await processed(ws, tokyoSite, await cameraJpeg('2026:01:15 14:02:00'));
    assert.deepEqual(timeOf(photo), ['2026-01-15T05:02:00.000Z', 'exif_local', 'Asia/Tokyo']);
    assert.equal(photo.coordinates, null);
  });

  it('without GPS or project coordinates, reads it in the workspace\'s time zone (UTC until an admin sets one)', async () => {
    const own = await newWorkspace(t);
    const site = await project(own);
    const before = await processed(own, site, await cameraJpeg('2026:01:15 14:02:00'));
    assert.deepEqual(timeOf(before), ['2026-01-15T14:02:00.000Z', 'exif_local', 'UTC']);
    const patched = await api(t, own.admin, 'PATCH', '/v1/workspace', { time_zone: 'America/Chicago' });
    assert.equal(patched.statusCode, 200, patched.body);
    const after = await processed(own, site, await cameraJpeg('2026:01:15 14:02:00'));
    assert.deepEqual(timeOf(after), ['2026-01-15T20:02:00.000Z', 'exif_local', 'America/Chicago']);
    // Photos processed before keep the zone they were read in.
    assert.deepEqual(timeOf((await api(t, own.admin, 'GET', `/v1/photos/${before.id}`)).json()), timeOf(before));
  });

  it('keeps the upload time for a photo without EXIF (source upload), with the zone of where it was taken', async () => {
    const id = await upload(ws.admin, bare, await noisyJpeg(200, 150), { lat: String(PLACES.chicago.lat), lon: String(PLACES.chicago.lon) });
    const pending = (await api(t, ws.admin, 'GET', `/v1/photos/${id}`)).json();
    assert.equal(pending.captured_at_time_zone, null);
    await t.runJobs();
    const photo = (await api(t, ws.admin, 'GET', `/v1/photos/${id}`)).json();
    assert.deepEqual(timeOf(photo), [pending.captured_at, 'upload', 'America/Chicago']);
  });

  it('keeps a client\'s time as given (source client); the zone still says where it was taken', async () => {
    const photo = await processed(ws, bare, await cameraJpeg('2026:01:15 14:02:00', PLACES.chicago), { captured_at: '2026-01-15T20:30:00Z' });
    assert.deepEqual(timeOf(photo), ['2026-01-15T20:30:00.000Z', 'client', 'America/Chicago']);
  });

  it('moves the zone with a PATCH of coordinates, and reads a camera\'s wall clock again in the new zone', async () => {
    const own = await newWorkspace(t);
    const site = await project(own);
    const camera = await processed(own, site, await cameraJpeg('2026:01:15 14:02:00'));
    assert.deepEqual(timeOf(camera), ['2026-01-15T14:02:00.000Z', 'exif_local', 'UTC']);
    const patch = (id: string, body: Record<string, unknown>) => api(t, own.admin, 'PATCH', `/v1/photos/${id}`, body);
    const moved = await patch(camera.id, { coordinates: PLACES.chicago });
    assert.equal(moved.statusCode, 200, moved.body);
    assert.deepEqual(timeOf(moved.json()), ['2026-01-15T20:02:00.000Z', 'exif_local', 'America/Chicago']);
    assert.deepEqual(timeOf((await patch(camera.id, { coordinates: null })).json()), ['2026-01-15T14:02:00.000Z', 'exif_local', 'UTC']);
    // A client's time is an instant: only the zone follows the place.
    const client = await processed(own, site, await noisyJpeg(200, 150), { captured_at: '2026-01-15T20:30:00Z' });
    assert.deepEqual(timeOf((await patch(client.id, { coordinates: PLACES.tokyo })).json()), ['2026-01-15T20:30:00.000Z', 'client', 'Asia/Tokyo']);
    // So is a phone's: without a position it keeps a zone of its own offset.
    const phone = await processed(own, site, await phoneJpeg('2026:01:15 14:02:00', '+09:00', PLACES.tokyo));
    assert.deepEqual(timeOf((await patch(phone.id, { coordinates: null })).json()), ['2026-01-15T05:02:00.000Z', 'exif_offset', 'Etc/GMT-9']);
  });

  it('reads the EXIF of photos processed before time zones again (source exif), once, with photo.updated', async () => {
    const own = await newWorkspace(t);
    const site = await project(own);
    const camera = await processed(own, site, await cameraJpeg('2026:01:15 14:02:00', PLACES.chicago));
    const noExif = await processed(own, site, await noisyJpeg(200, 150));
    // As migration 014 left them: the wall clock taken as UTC, source `exif`, no zone.
    for (const id of [camera.id, noExif.id]) {
      await t.db.updateTable('photos').set({ captured_at: new Date('2026-01-15T14:02:00Z'), captured_at_source: 'exif', captured_at_time_zone: null }).where('id', '=', id).execute();
    }
    const reread = () => photoTasks(t.jobDeps())[REREAD_LEGACY_PHOTO_TIMES]!(undefined, {} as JobHelpers);
    await reread();
    const get = async (id: string) => (await api(t, own.admin, 'GET', `/v1/photos/${id}`)).json();
    assert.deepEqual(timeOf(await get(camera.id)), ['2026-01-15T20:02:00.000Z', 'exif_local', 'America/Chicago']);
    // No EXIF time to read: it stays `exif` (honestly unknown), with the zone of its place.
    const unknown = await get(noExif.id);
    assert.deepEqual(timeOf(unknown), ['2026-01-15T14:02:00.000Z', 'exif', 'UTC']);
    const updated = await t.db.selectFrom('events').select('payload').where('workspace_id', '=', own.id).where('event', '=', 'photo.updated').execute();
    assert.equal(updated.length, 2);
    await reread(); // nothing left to do: no change, no event
    assert.equal((await get(noExif.id)).updated_at, unknown.updated_at);
    assert.equal((await t.db.selectFrom('events').select('id').where('workspace_id', '=', own.id).where('event', '=', 'photo.updated').execute()).length, 2);
  });
});

describe('a report of evening photos in Chicago', () => {
  let ws: TestWorkspace;
  let site: string;
  let uploaded: string;

  before(async () => {
    ws = await newWorkspace(t);
    site = await project(ws, { name: 'Loop tower' }); // no coordinates: the photos' GPS decides
    // 18:10, 21:30 and 23:45 on Thursday 15 January in Chicago: the last two are already the 16th in UTC.
    for (const wall of ['2026:01:15 18:10:00', '2026:01:15 21:30:00', '2026:01:15 23:45:00']) {
      await upload(ws.admin, site, await cameraJpeg(wall, PLACES.chicago));
    }
    uploaded = await upload(ws.admin, site, await noisyJpeg(320, 240)); // no EXIF at all
    await t.runJobs();
  });

  async function pdfText(options: Record<string, unknown>) {
    const res = await api(t, ws.admin, 'POST', `/v1/projects/${site}/reports`, { title: 'Evening pour', options: { layout: 4, ...options } });
    assert.equal(res.statusCode, 202, res.body);
    await t.runJobs();
    const report = (await api(t, ws.admin, 'GET', `/v1/reports/${res.json().id}`)).json();
    assert.equal(report.status, 'finished', report.error);
    const pdf = await api(t, ws.admin, 'GET', `/v1/reports/${report.id}/download`);
    return { report, text: (await parsePdf(pdf.rawPayload)).pages.join('\n') };
  }

  it('prints each photo at its local time, on its local day, when the report asks for no zone', async () => {
    const { report, text } = await pdfText({});
    assert.equal(report.options.time_zone, null);
    assert.match(text, /Thursday 15 January 2026/);
    assert.doesNotMatch(text, /Friday 16 January 2026/);
    for (const local of ['2026-01-15 18:10 GMT-6', '2026-01-15 21:30 GMT-6', '2026-01-15 23:45 GMT-6']) assert.ok(text.includes(`Taken ${local}`), local);
    assert.match(text, /Each photo in the zone where it was taken; other times in UTC/);
  });

  it('prints "Uploaded" for a photo without a capture time', async () => {
    const photo = (await api(t, ws.admin, 'GET', `/v1/photos/${uploaded}`)).json();
    assert.equal(photo.captured_at_source, 'upload');
    const { text } = await pdfText({});
    assert.equal(text.match(/Uploaded \d{4}-\d{2}-\d{2} \d{2}:\d{2} (GMT|UTC)/g)?.length, 1, text);
    assert.equal(text.match(/Taken /g)?.length, 3);
  });

  it('prints every time in the zone a report asks for', async () => {
    const { report, text } = await pdfText({ time_zone: 'UTC' });
    assert.equal(report.options.time_zone, 'UTC');
    assert.match(text, /Friday 16 January 2026/);
    assert.ok(text.includes('Taken 2026-01-16 03:30 GMT'), text);
    assert.ok(text.includes('Taken 2026-01-16 05:45 GMT'), text);
  });
});
