/**
 * Photos that file themselves (docs/photos.md): `POST /v1/photos` without a project; the
 * processing job files the photo by its GPS position under the smallest geofence holding it,
 * else the nearest project without a fence within JOBSITE_AUTO_ASSIGN_METERS, else it waits
 * unfiled (`project_id=none`) until someone moves it. Real JPEGs with EXIF GPS, real jobs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkGeofence, distanceMeters, fenceContains, geofenceColumns, type Geofence } from '../src/features/projects/projects.geofence.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';

type Who = { key: string };
type Obj = Record<string, any>;

let t: TestContext;
before(async () => { t = await startTestApp({ JOBSITE_AUTO_ASSIGN_METERS: '300' }); });
after(async () => t?.close());

async function ok(res: Promise<Awaited<ReturnType<typeof api>>> | Awaited<ReturnType<typeof api>>, status = 200): Promise<Obj> {
  const r = await res;
  assert.equal(r.statusCode, status, r.body);
  return r.statusCode === 204 ? {} : r.json();
}

/** A point `north` and `east` metres from `from`. */
function offset(from: { lat: number; lon: number }, north: number, east: number) {
  const mPerDegLat = 111_194.93;
  return { lat: from.lat + north / mPerDegLat, lon: from.lon + east / (mPerDegLat * Math.cos((from.lat * Math.PI) / 180)) };
}

/** A square ring of `half` metres each side of `center`, [lon, lat], closed. */
function square(center: { lat: number; lon: number }, half: number) {
  const sw = offset(center, -half, -half);
  const ne = offset(center, half, half);
  return { type: 'Polygon', coordinates: [[[sw.lon, sw.lat], [ne.lon, sw.lat], [ne.lon, ne.lat], [sw.lon, ne.lat], [sw.lon, sw.lat]]] };
}

const project = async (who: Who, fields: Obj) => (await ok(api(t, who, 'POST', '/v1/projects', { name: 'Site', ...fields }), 201)) as Obj;

/** Uploads a real JPEG (EXIF GPS at `gps`, if given) without a project; answers the created photo. */
async function uploadUnfiled(who: Who, gps?: { lat: number; lon: number }, fields: Record<string, string> = {}): Promise<Obj> {
  const data = await jpegWithExif({ dateTimeOriginal: '2026:11:24 09:15:00', ...(gps ?? {}) }, 160, 120);
  const { payload, headers } = multipart(fields, { data, contentType: 'image/jpeg' });
  const res = await t.app.inject({ method: 'POST', url: '/v1/photos', payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  const photo = await ok(res, 201);
  assert.equal(photo.project_id, null);
  assert.equal(res.headers.location, `/v1/photos/${photo.id}`);
  return photo;
}

/** Uploads, runs the processing job, answers the photo as its uploader sees it. */
async function filed(who: Who, gps?: { lat: number; lon: number }, fields: Record<string, string> = {}): Promise<Obj> {
  const { id } = await uploadUnfiled(who, gps, fields);
  await t.runJobs();
  const photo = await ok(api(t, who, 'GET', `/v1/photos/${id}`));
  assert.equal(photo.processing_status, 'processed', photo.processing_error);
  return photo;
}

async function eventsOf(who: Who, type: string, photoId: string): Promise<Obj[]> {
  const page = await ok(api(t, who, 'GET', `/v1/events?event=${type}&limit=100`));
  return page.data.filter((e: Obj) => (e.data.photo?.id ?? e.data.id) === photoId);
}

const unfiledIds = async (who: Who) => (await ok(api(t, who, 'GET', '/v1/photos?project_id=none&limit=100'))).data.map((p: Obj) => p.id) as string[];

// Springfield, Illinois: a block of sites a few hundred metres apart.
const CENTRE = { lat: 39.7817, lon: -89.6501 };

describe('geofences on projects', () => {
  let ws: TestWorkspace;
  before(async () => { ws = await newWorkspace(t); });

  it('takes a polygon or a radius, returns it, and clears it with null', async () => {
    const fence = square(CENTRE, 50);
    const created = await project(ws.admin, { coordinates: CENTRE, geofence: fence });
    assert.deepEqual(created.geofence, fence);
    assert.deepEqual((await ok(api(t, ws.admin, 'GET', `/v1/projects/${created.id}`))).geofence, fence);
    const radius = await ok(api(t, ws.admin, 'PATCH', `/v1/projects/${created.id}`, { geofence: { radius_m: 120 } }));
    assert.deepEqual(radius.geofence, { radius_m: 120 });
    const cleared = await ok(api(t, ws.admin, 'PATCH', `/v1/projects/${created.id}`, { geofence: null }));
    assert.equal(cleared.geofence, null);
    assert.equal((await project(ws.admin, {})).geofence, null);
  });

  const refused = async (geofence: unknown, code: string, fields: Obj = { coordinates: CENTRE }) => {
    const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Bad fence', ...fields, geofence });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(res.json().code, code, res.body);
    assert.match(res.json().errors[0].path, /^body\.geofence/);
  };

  it('refuses a ring that is not closed', async () => {
    const ring = square(CENTRE, 50).coordinates[0]!.slice(0, -1);
    await refused({ type: 'Polygon', coordinates: [ring] }, 'geofence_not_closed');
  });

  it('refuses more than 1,000 positions, and takes 1,000', async () => {
    const circle = (n: number) => {
      const ring = Array.from({ length: n - 1 }, (_, i) => {
        const p = offset(CENTRE, 80 * Math.sin((2 * Math.PI * i) / (n - 1)), 80 * Math.cos((2 * Math.PI * i) / (n - 1)));
        return [p.lon, p.lat];
      });
      return { type: 'Polygon', coordinates: [[...ring, ring[0]]] };
    };
    await refused(circle(1001), 'geofence_too_many_positions');
    const fine = await project(ws.admin, { geofence: circle(1000) });
    assert.equal(fine.geofence.coordinates[0].length, 1000);
  });

  it('refuses a bow-tie (edges crossing), a spike folding back, and a flat ring', async () => {
    const a = offset(CENTRE, -50, -50);
    const b = offset(CENTRE, 50, 50);
    const bowTie = [[a.lon, a.lat], [b.lon, b.lat], [b.lon, a.lat], [a.lon, b.lat], [a.lon, a.lat]];
    await refused({ type: 'Polygon', coordinates: [bowTie] }, 'geofence_self_intersection');
    const spike = [[a.lon, a.lat], [b.lon, a.lat], [b.lon, b.lat], [b.lon, a.lat + (b.lat - a.lat) / 2], [a.lon, a.lat]];
    await refused({ type: 'Polygon', coordinates: [spike] }, 'geofence_self_intersection');
    const flat = [[a.lon, a.lat], [b.lon, a.lat], [(a.lon + b.lon) / 2, a.lat], [a.lon, a.lat]];
    await refused({ type: 'Polygon', coordinates: [flat] }, 'geofence_self_intersection');
    await refused({ type: 'Polygon', coordinates: [[[a.lon, a.lat], [b.lon, b.lat], [a.lon, a.lat]]] }, 'geofence_too_few_positions');
  });

  it('refuses positions off the globe', async () => {
    await refused({ type: 'Polygon', coordinates: [[[-89.65, 39.78], [-89.64, 39.78], [-89.64, 95], [-89.65, 39.78]]] }, 'geofence_invalid_position');
    await refused({ type: 'Polygon', coordinates: [[[-189.65, 39.78], [-89.64, 39.78], [-89.64, 39.79], [-189.65, 39.78]]] }, 'geofence_invalid_position');
  });

  it('refuses a radius without coordinates, and clearing the coordinates under one', async () => {
    await refused({ radius_m: 100 }, 'geofence_without_coordinates', {});
    const site = await project(ws.admin, { coordinates: CENTRE, geofence: { radius_m: 100 } });
    const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${site.id}`, { coordinates: null });
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().code, 'geofence_without_coordinates');
  });

  it('keeps a radius within 1..50,000 m and the shape strict (400)', async () => {
    for (const geofence of [{ radius_m: 0 }, { radius_m: 50_001 }, { type: 'Point', coordinates: [-89.65, 39.78] }, { radius_m: 10, extra: 1 }]) {
      const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'x', coordinates: CENTRE, geofence });
      assert.equal(res.statusCode, 400, `${JSON.stringify(geofence)}: ${res.body}`);
    }
  });
});

describe('geofence geometry', () => {
  it('tells inside from outside of a concave outline, counts the edge as inside, and measures areas', () => {
    // An L: 0..2 × 0..2 without the 1..2 × 1..2 corner (degrees are fine for the plane test).
    const l: Geofence = { type: 'Polygon', coordinates: [[[0, 0], [2, 0], [2, 1], [1, 1], [1, 2], [0, 2], [0, 0]]] };
    assert.equal(fenceContains(l, null, { lon: 0.5, lat: 1.5 }), true);
    assert.equal(fenceContains(l, null, { lon: 1.5, lat: 0.5 }), true);
    assert.equal(fenceContains(l, null, { lon: 1.5, lat: 1.5 }), false, 'the notch');
    assert.equal(fenceContains(l, null, { lon: 1, lat: 1.5 }), true, 'on an edge');
    assert.equal(fenceContains(l, null, { lon: 2, lat: 0 }), true, 'a corner');
    assert.equal(fenceContains(l, null, { lon: -0.1, lat: 0.5 }), false);
    // A 100 m square: ~10,000 m²; a radius: π r².
    const sq = geofenceColumns(square(CENTRE, 50) as Geofence, null);
    assert.ok(Math.abs(sq.geofence_area_m2! - 10_000) < 50, String(sq.geofence_area_m2));
    const circle = geofenceColumns({ radius_m: 100 }, CENTRE);
    assert.ok(Math.abs(circle.geofence_area_m2! - Math.PI * 10_000) < 1);
    assert.ok(distanceMeters(CENTRE, { lat: circle.geofence_max_lat!, lon: CENTRE.lon }) >= 100, 'the box holds the circle');
    assert.ok(distanceMeters(CENTRE, { lat: CENTRE.lat, lon: circle.geofence_max_lon! }) >= 100);
    // Near the antimeridian the box spans every longitude rather than wrap.
    const edge = geofenceColumns({ radius_m: 5000 }, { lat: 10, lon: 179.99 });
    assert.deepEqual([edge.geofence_min_lon, edge.geofence_max_lon], [-180, 180]);
    assert.equal(fenceContains({ radius_m: 5000 }, { lat: 10, lon: 179.99 }, { lat: 10, lon: -179.99 }), true);
    assert.doesNotThrow(() => checkGeofence(l, null));
  });
});

describe('filing by position', () => {
  let ws: TestWorkspace;
  let lot: Obj; // a 100 m square inside the block
  let block: Obj; // a 400 m square holding the lot
  let yard: Obj; // a 150 m radius 1 km east
  let depot: Obj; // no fence, 2 km north
  before(async () => {
    ws = await newWorkspace(t);
    block = await project(ws.admin, { name: 'Block', geofence: square(CENTRE, 200) });
    lot = await project(ws.admin, { name: 'Lot', geofence: square(offset(CENTRE, 50, 50), 50) });
    yard = await project(ws.admin, { name: 'Yard', coordinates: offset(CENTRE, 0, 1000), geofence: { radius_m: 150 } });
    depot = await project(ws.admin, { name: 'Depot', coordinates: offset(CENTRE, 2000, 0) });
  });

  it('files a photo under the smallest geofence holding its GPS position', async () => {
    const photo = await filed(ws.admin, offset(CENTRE, 60, 40));
    assert.equal(photo.project_id, lot.id);
    assert.equal(photo.coordinates_source, 'exif');
    const [assigned] = await eventsOf(ws.admin, 'photo.assigned', photo.id);
    assert.ok(assigned, 'photo.assigned fired');
    assert.equal(assigned.project_id, lot.id);
    assert.deepEqual({ ...assigned.data, photo: undefined }, { photo: undefined, project_id: lot.id, previous_project_id: null, assigned_by: 'geofence', user_id: null });
    assert.equal(assigned.data.photo.id, photo.id);
    assert.equal(assigned.data.photo.project_id, lot.id);
    const [createdEvent] = await eventsOf(ws.admin, 'photo.created', photo.id);
    assert.equal(createdEvent!.project_id, lot.id);
    // In the block but outside the lot: the block.
    assert.equal((await filed(ws.admin, offset(CENTRE, -150, -150))).project_id, block.id);
  });

  it('files inside a radius around the project\'s coordinates, not just outside it', async () => {
    assert.equal((await filed(ws.admin, offset(CENTRE, 100, 1000))).project_id, yard.id);
    // 180 m from the yard: outside its fence, and a fenced project is never "nearest".
    const outside = await filed(ws.admin, offset(CENTRE, 180, 1000));
    assert.equal(outside.project_id, null);
  });

  it('moves a radius fence with the project\'s coordinates', async () => {
    const mobile = await project(ws.admin, { name: 'Mobile crane', coordinates: offset(CENTRE, -6000, 0), geofence: { radius_m: 80 } });
    await ok(api(t, ws.admin, 'PATCH', `/v1/projects/${mobile.id}`, { coordinates: offset(CENTRE, -7000, 0) }));
    assert.equal((await filed(ws.admin, offset(CENTRE, -7000 + 30, 0))).project_id, mobile.id);
    assert.equal((await filed(ws.admin, offset(CENTRE, -6000 + 30, 0))).project_id, null, 'the old place is no longer fenced');
  });

  it('files under the nearest project without a fence within JOBSITE_AUTO_ASSIGN_METERS', async () => {
    const near = offset(CENTRE, 2000 + 200, 0);
    assert.ok(distanceMeters(near, depot.coordinates) < 300);
    const photo = await filed(ws.admin, near);
    assert.equal(photo.project_id, depot.id);
    const [assigned] = await eventsOf(ws.admin, 'photo.assigned', photo.id);
    assert.equal(assigned!.data.assigned_by, 'nearest');
    // Two candidates: the nearer wins.
    const annex = await project(ws.admin, { name: 'Annex', coordinates: offset(CENTRE, 2000, 250) });
    assert.equal((await filed(ws.admin, offset(CENTRE, 2000, 200))).project_id, annex.id);
  });

  it('leaves a photo beyond the distance, or without GPS, unfiled and in the project_id=none inbox', async () => {
    const far = await filed(ws.admin, offset(CENTRE, 2000 + 400, 0));
    assert.equal(far.project_id, null);
    assert.equal(far.coordinates_source, 'exif', 'the position is kept');
    const blind = await filed(ws.admin);
    assert.equal(blind.project_id, null);
    assert.equal(blind.coordinates, null);
    const inbox = await unfiledIds(ws.admin);
    assert.ok(inbox.includes(far.id) && inbox.includes(blind.id));
    assert.ok(!inbox.includes((await filed(ws.admin, offset(CENTRE, 10, 10))).id), 'a filed photo is not in the inbox');
    assert.deepEqual(await eventsOf(ws.admin, 'photo.assigned', far.id), []);
    const [createdEvent] = await eventsOf(ws.admin, 'photo.created', far.id);
    assert.equal(createdEvent!.project_id, null);
    // Every photo the caller can see, filed or not, in the unfiltered list; a project's list has only its own.
    const all = (await ok(api(t, ws.admin, 'GET', '/v1/photos?limit=100'))).data.map((p: Obj) => p.id);
    assert.ok(all.includes(far.id));
    const lots = (await ok(api(t, ws.admin, 'GET', `/v1/photos?project_id=${lot.id}&limit=100`))).data;
    assert.ok(lots.every((p: Obj) => p.project_id === lot.id));
  });

  it('uses the position the client gave over EXIF', async () => {
    const photo = await filed(ws.admin, offset(CENTRE, 2000 + 5000, 0), { lat: String(offset(CENTRE, 60, 40).lat), lon: String(offset(CENTRE, 60, 40).lon) });
    assert.equal(photo.coordinates_source, 'client');
    assert.equal(photo.project_id, lot.id);
  });

  it('never files under an archived project', async () => {
    const spot = offset(CENTRE, -3000, 0);
    const old = await project(ws.admin, { name: 'Old job', coordinates: spot, geofence: { radius_m: 100 } });
    await ok(api(t, ws.admin, 'POST', `/v1/projects/${old.id}/archive`));
    assert.equal((await filed(ws.admin, spot)).project_id, null);
    await ok(api(t, ws.admin, 'POST', `/v1/projects/${old.id}/restore`));
    assert.equal((await filed(ws.admin, spot)).project_id, old.id);
  });

  it('with JOBSITE_AUTO_ASSIGN_METERS=0, files by geofence only', async () => {
    const t0 = await startTestApp({ JOBSITE_AUTO_ASSIGN_METERS: '0' });
    try {
      const w = await newWorkspace(t0);
      const site = (await ok(api(t0, w.admin, 'POST', '/v1/projects', { name: 'Bare', coordinates: CENTRE }), 201));
      const data = await jpegWithExif({ ...offset(CENTRE, 20, 0) }, 120, 90);
      const { payload, headers } = multipart({}, { data, contentType: 'image/jpeg' });
      const res = await t0.app.inject({ method: 'POST', url: '/v1/photos', payload, headers: { ...headers, authorization: `Bearer ${w.admin.key}` } });
      const id = (await ok(res, 201)).id;
      await t0.runJobs();
      assert.equal((await ok(api(t0, w.admin, 'GET', `/v1/photos/${id}`))).project_id, null);
      assert.ok(site.id);
    } finally {
      await t0.close();
    }
  });
});

describe('unfiled photos: who sees them, moving them', () => {
  let ws: TestWorkspace;
  let rita: TestUser; // restricted, on the crew of `ours`
  let rob: TestUser; // restricted, on no crew
  let sam: TestUser; // standard
  let ours: Obj;
  let theirs: Obj;
  before(async () => {
    ws = await newWorkspace(t);
    rita = await newUser(t, ws, 'restricted');
    rob = await newUser(t, ws, 'restricted');
    sam = await newUser(t, ws, 'standard');
    ours = await project(ws.admin, { name: 'Ours', coordinates: offset(CENTRE, 0, -5000), geofence: { radius_m: 100 } });
    theirs = await project(ws.admin, { name: 'Theirs', coordinates: offset(CENTRE, 0, -8000), geofence: { radius_m: 100 } });
    await ok(api(t, ws.admin, 'PUT', `/v1/projects/${ours.id}/members/${rita.id}`));
  });

  it('files a restricted user\'s photo only under a project they can see', async () => {
    const inTheirs = await filed(rita, offset(CENTRE, 10, -8000));
    assert.equal(inTheirs.project_id, null, 'inside a fence of a project Rita is not on: stays unfiled');
    assert.equal((await filed(rita, offset(CENTRE, 10, -5000))).project_id, ours.id);
    // The same spot, uploaded by someone who sees every project: filed.
    assert.equal((await filed(sam, offset(CENTRE, 10, -8000))).project_id, theirs.id);
  });

  it('shows an unfiled photo to its uploader and to every role but restricted, never to another restricted user', async () => {
    const photo = await filed(rita);
    assert.ok((await unfiledIds(rita)).includes(photo.id));
    assert.ok((await unfiledIds(sam)).includes(photo.id));
    assert.ok((await unfiledIds(ws.admin)).includes(photo.id));
    assert.ok(!(await unfiledIds(rob)).includes(photo.id));
    assert.ok(!(await ok(api(t, rob, 'GET', '/v1/photos?limit=100'))).data.some((p: Obj) => p.id === photo.id));
    for (const [method, path, body] of [
      ['GET', `/v1/photos/${photo.id}`, undefined], ['PATCH', `/v1/photos/${photo.id}`, { project_id: ours.id }],
      ['DELETE', `/v1/photos/${photo.id}`, undefined], ['GET', `/v1/photos/${photo.id}/comments`, undefined],
    ] as const) {
      const res = await api(t, rob, method, path, body);
      assert.equal(res.statusCode, 404, `${method} ${path}: ${res.body}`);
    }
    // Rob's own unfiled upload is his to see.
    const robs = await filed(rob);
    assert.deepEqual((await unfiledIds(rob)).filter((id) => id === robs.id), [robs.id]);
    assert.ok(!(await unfiledIds(rita)).includes(robs.id));
  });

  it('files by PATCH project_id: the uploader into a project they see, not into one they do not', async () => {
    const photo = await filed(rita);
    const hidden = await api(t, rita, 'PATCH', `/v1/photos/${photo.id}`, { project_id: theirs.id });
    assert.equal(hidden.statusCode, 404, hidden.body);
    assert.equal(hidden.json().code, 'not_found');
    const moved = await ok(api(t, rita, 'PATCH', `/v1/photos/${photo.id}`, { project_id: ours.id, caption: 'Footings' }));
    assert.equal(moved.project_id, ours.id);
    assert.equal(moved.caption, 'Footings');
    assert.ok(!(await unfiledIds(ws.admin)).includes(photo.id));
    const [assigned] = await eventsOf(ws.admin, 'photo.assigned', photo.id);
    assert.deepEqual({ ...assigned!.data, photo: undefined }, { photo: undefined, project_id: ours.id, previous_project_id: null, assigned_by: 'user', user_id: rita.id });
    assert.equal((await eventsOf(ws.admin, 'photo.updated', photo.id)).length, 1, 'the caption change is its own photo.updated');
    // Someone else's unfiled photo is out of a restricted user's sight; a filed one they see, but change only their own.
    const samsUnfiled = await filed(sam);
    assert.equal((await api(t, rita, 'PATCH', `/v1/photos/${samsUnfiled.id}`, { project_id: ours.id })).statusCode, 404);
    const samsFiled = await filed(sam, offset(CENTRE, 10, -5000));
    assert.equal(samsFiled.project_id, ours.id);
    const notTheirs = await api(t, rita, 'PATCH', `/v1/photos/${samsFiled.id}`, { project_id: ours.id });
    assert.equal(notTheirs.statusCode, 403, notTheirs.body);
    // A photo is never unfiled again; a project that does not exist is a 404.
    const unfile = await api(t, rita, 'PATCH', `/v1/photos/${photo.id}`, { project_id: null });
    assert.equal(unfile.statusCode, 400, unfile.body);
    assert.equal(unfile.json().errors[0].path, 'body.project_id');
    assert.equal((await api(t, rita, 'PATCH', `/v1/photos/${photo.id}`, { project_id: 'prj_01jdq7v3m4k8x2c9f5t6b1n0zr' })).statusCode, 404);
    // The same project again: nothing happens.
    const again = await ok(api(t, rita, 'PATCH', `/v1/photos/${photo.id}`, { project_id: ours.id }));
    assert.equal(again.updated_at, moved.updated_at);
    assert.equal((await eventsOf(ws.admin, 'photo.assigned', photo.id)).length, 1);
  });

  it('refuses comments on an unfiled photo (422 photo_not_filed) and moves comments with a filed one', async () => {
    const photo = await filed(sam);
    const early = await api(t, sam, 'POST', `/v1/photos/${photo.id}/comments`, { body: 'Which site is this?' });
    assert.equal(early.statusCode, 422, early.body);
    assert.equal(early.json().code, 'photo_not_filed');
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: ours.id }));
    const comment = await ok(api(t, sam, 'POST', `/v1/photos/${photo.id}/comments`, { body: 'Footings poured' }), 201);
    assert.equal(comment.project_id, ours.id);
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: theirs.id }));
    assert.equal((await ok(api(t, sam, 'GET', `/v1/comments/${comment.id}`))).project_id, theirs.id);
    // Rita sees Ours only: the photo and its comment are out of her sight now.
    assert.equal((await api(t, rita, 'GET', `/v1/photos/${photo.id}`)).statusCode, 404);
    assert.equal((await api(t, rita, 'GET', `/v1/comments/${comment.id}`)).statusCode, 404);
  });

  it('moving a photo takes it off the old project\'s cover, tasks and share links', async () => {
    const photo = await filed(sam, offset(CENTRE, 10, -5000));
    assert.equal(photo.project_id, ours.id);
    const covered = await ok(api(t, sam, 'PATCH', `/v1/projects/${ours.id}`, { cover_photo_id: photo.id }));
    assert.equal(covered.cover_photo.id, photo.id);
    const task = await ok(api(t, sam, 'POST', `/v1/projects/${ours.id}/tasks`, { title: 'Check footings', photo_ids: [photo.id] }), 201);
    const link = await ok(api(t, sam, 'POST', `/v1/projects/${ours.id}/share-links`, { photo_ids: [photo.id] }), 201);
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: theirs.id }));
    const after = await ok(api(t, sam, 'GET', `/v1/projects/${ours.id}`));
    assert.equal(after.cover_photo_id, null);
    assert.equal(after.cover_photo, null);
    assert.equal(after.updated_at > covered.updated_at, true, 'the project\'s ETag moves');
    const taskAfter = await ok(api(t, sam, 'GET', `/v1/tasks/${task.id}`));
    assert.deepEqual(taskAfter.photo_ids, []);
    assert.equal(taskAfter.updated_at > task.updated_at, true, 'the task\'s ETag moves');
    assert.deepEqual((await ok(api(t, sam, 'GET', `/v1/share-links/${link.id}`))).photo_ids, []);
  });

  it('keeps unfiled photos out of share links, reports and exports', async () => {
    const photo = await filed(sam);
    for (const path of [`/v1/projects/${ours.id}/share-links`, `/v1/projects/${ours.id}/reports`, `/v1/projects/${ours.id}/exports`]) {
      const body = path.endsWith('reports') ? { title: 'Week 48', photo_ids: [photo.id] } : { photo_ids: [photo.id] };
      const res = await api(t, sam, 'POST', path, body);
      assert.equal(res.statusCode, 422, `${path}: ${res.body}`);
    }
    const task = await api(t, sam, 'POST', `/v1/projects/${ours.id}/tasks`, { title: 'Look', photo_ids: [photo.id] });
    assert.equal(task.statusCode, 422, task.body);
  });

  it('syncs an unfiled photo to its uploader and non-restricted users only, and a move out of sight as a delete', async () => {
    const sync = async (who: Who, cursor?: string) => ok(api(t, who, 'GET', `/v1/sync?types=photo,comment${cursor ? `&cursor=${cursor}` : ''}`));
    const ritaStart = await sync(rita);
    const robStart = await sync(rob);
    const samStart = await sync(sam);
    const photo = await filed(rita);
    const ritaSees = await sync(rita, ritaStart.next_cursor);
    assert.deepEqual(ritaSees.changes.map((c: Obj) => [c.id, c.op]), [[photo.id, 'upsert']]);
    assert.equal(ritaSees.changes[0].object.project_id, null);
    assert.deepEqual((await sync(rob, robStart.next_cursor)).changes.filter((c: Obj) => c.id === photo.id), []);
    const samSees = await sync(sam, samStart.next_cursor);
    assert.deepEqual(samSees.changes.filter((c: Obj) => c.id === photo.id).map((c: Obj) => c.op), ['upsert']);
    // The office files it under a project Rita is not on: her copy goes; Sam's follows.
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: theirs.id }));
    const ritaAfter = await sync(rita, ritaSees.next_cursor);
    assert.deepEqual(ritaAfter.changes.map((c: Obj) => [c.id, c.op]), [[photo.id, 'delete']]);
    const samAfter = await sync(sam, samSees.next_cursor);
    assert.deepEqual(samAfter.changes.filter((c: Obj) => c.id === photo.id).map((c: Obj) => [c.op, c.object?.project_id]), [['upsert', theirs.id]]);
    assert.deepEqual((await sync(rob, robStart.next_cursor)).changes.filter((c: Obj) => c.id === photo.id), [], 'Rob never hears of it');
    // Moved into Ours, which Rita is on: it comes back.
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: ours.id }));
    const back = await sync(rita, ritaAfter.next_cursor);
    assert.deepEqual(back.changes.map((c: Obj) => [c.id, c.op, c.object?.project_id]), [[photo.id, 'upsert', ours.id]]);
    // With a comment, moved out of her sight again: the photo and its comment go.
    const comment = await ok(api(t, sam, 'POST', `/v1/photos/${photo.id}/comments`, { body: 'Gate hinge loose' }), 201);
    const withComment = await sync(rita, back.next_cursor);
    assert.deepEqual(withComment.changes.map((c: Obj) => [c.id, c.op]), [[comment.id, 'upsert']]);
    await ok(api(t, sam, 'PATCH', `/v1/photos/${photo.id}`, { project_id: theirs.id }));
    const gone = await sync(rita, withComment.next_cursor);
    assert.deepEqual(gone.changes.map((c: Obj) => [c.id, c.op]).sort(), [[comment.id, 'delete'], [photo.id, 'delete']].sort());
    // A fresh full sync has no trace of the delete.
    const fresh = await sync(rita);
    assert.ok(fresh.changes.every((c: Obj) => c.op === 'upsert'));
  });
});

describe('OpenAPI', () => {
  it('documents the upload without a project, the nullable project_id, the inbox filter, geofences and photo.assigned', async () => {
    const doc = await ok(api(t, null, 'GET', '/v1/openapi.json'));
    const upload = doc.paths['/v1/photos'].post;
    assert.equal(upload.operationId, 'uploadPhoto');
    assert.ok(upload.requestBody.content['multipart/form-data'], 'multipart, as the per-project upload');
    assert.ok(upload.responses['201']);
    const photo = doc.components.schemas.Photo;
    assert.deepEqual(photo.properties.project_id.type, ['string', 'null']);
    const filter = doc.paths['/v1/photos'].get.parameters.find((p: Obj) => p.name === 'project_id');
    assert.match(filter.schema.pattern, /\|none\)\$$/);
    assert.match(filter.description, /`none`/);
    assert.ok(doc.paths['/v1/photos/{id}'].patch);
    const project = doc.components.schemas.Project;
    assert.ok(project.properties.geofence, 'Project.geofence');
    assert.equal(project.examples[0].geofence.type, 'Polygon');
    assert.ok(JSON.stringify(doc.components.schemas).includes('"radius_m":150'), 'a radius example too');
    assert.ok(doc.webhooks['photo.assigned'], 'the event is documented');
  });
});
