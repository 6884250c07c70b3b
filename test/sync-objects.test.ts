import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { smallJpeg } from './fixtures/images.ts';
import { pdf } from './fixtures/documents.ts';
import { androidMp4, ffmpegPath } from './fixtures/videos.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';
import { multipart, type FilePart } from './multipart.ts';
import type { Actor } from '../src/http/actor.ts';
import { EventLog } from '../src/features/events/events.log.ts';
import { Notifier } from '../src/features/notifications/notifications.service.ts';
import { SyncService, type SyncSources } from '../src/features/sync/sync.service.ts';
import { TasksService } from '../src/features/tasks/tasks.service.ts';

/**
 * Sync reads a page's objects a type at a time (viewsOf in each feature), not through each
 * resource's GET: these tests hold it to the GET, byte for byte, for every type and both kinds of
 * caller, and check that what is gone by the time the objects are read comes as a delete.
 */

type Who = { key: string };
interface Change { seq: number; type: string; id: string; op: 'upsert' | 'delete'; object?: Record<string, unknown> }

let t: TestContext;
before(async () => { t = await startTestApp({ JOBSITE_DOCUMENT_MAX_BYTES: String(1024 * 1024) }); });
after(async () => t?.close());

async function ok(res: Promise<Awaited<ReturnType<typeof api>>>, status = 200) {
  const r = await res;
  assert.equal(r.statusCode, status, r.body);
  return r.json();
}

async function upload(who: Who, path: string, file: FilePart, fields: Record<string, string> = {}): Promise<string> {
  const { payload, headers } = multipart(fields, file);
  const res = await t.app.inject({ method: 'POST', url: path, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Everything a full sync gives `who`, page by page. */
async function fullSync(who: Who, limit = 1000): Promise<Change[]> {
  const all: Change[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await ok(api(t, who, 'GET', `/v1/sync?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`));
    all.push(...page.changes);
    cursor = page.next_cursor;
    if (!page.has_more) return all;
  }
}

/** Only the expiry and the MAC of a signed URL may differ between two reads (they follow the clock); every other byte must not. */
const unsigned = (json: string) => json.replace(/([?&]expires=)\d+/g, '$1…').replace(/([?&]sig=)[\w-]+/g, '$1…');

/** Each upsert's object, as JSON, against its own GET's body (every difference listed at once). */
async function assertSameAsGets(who: Who, changes: Change[]): Promise<void> {
  const differ: string[] = [];
  for (const c of changes.filter((x) => x.op === 'upsert')) {
    const res = await api(t, who, 'GET', `/v1/${c.type}s/${c.id}`);
    assert.equal(res.statusCode, 200, `${c.type} ${c.id}: ${res.body}`);
    const [synced, got] = [unsigned(JSON.stringify(c.object)), unsigned(res.body)];
    if (synced !== got) differ.push(`${c.type} ${c.id}\n  sync: ${synced}\n  GET:  ${got}`);
  }
  assert.deepEqual(differ, []);
}

describe('sync: objects as their GETs return them', () => {
  let ws: TestWorkspace;
  let rita: TestUser;
  let site: string;
  let hidden: string;
  let tagged: string;

  before(async () => {
    ws = await newWorkspace(t);
    rita = await newUser(t, ws, 'restricted');
    const fence = { type: 'Polygon', coordinates: [[[-122.61, 45.49], [-122.59, 45.49], [-122.59, 45.51], [-122.61, 45.49]]] };
    site = (await ok(api(t, ws.admin, 'POST', '/v1/projects', {
      name: 'Maple St.', address: { city: 'Portland' }, coordinates: { lat: 45.5, lon: -122.6 }, geofence: fence,
    }), 201)).id;
    hidden = (await ok(api(t, ws.admin, 'POST', '/v1/projects', { name: 'Not Rita\'s' }), 201)).id;
    await ok(api(t, ws.admin, 'PUT', `/v1/projects/${site}/members/${rita.id}`));
    const roof = (await ok(api(t, ws.admin, 'POST', '/v1/tags', { name: 'Roofing', color: '#aa3300' }), 201)).id;
    const wall = (await ok(api(t, ws.admin, 'POST', '/v1/tags', { name: 'Wall' }), 201)).id;
    await ok(api(t, ws.admin, 'PUT', `/v1/projects/${site}/tags/${roof}`));
    const jpeg = { data: await smallJpeg(), contentType: 'image/jpeg' };
    tagged = await upload(ws.admin, `/v1/projects/${site}/photos`, jpeg, { caption: 'North wall', tag_ids: `${roof},${wall}` });
    const plain = await upload(rita, `/v1/projects/${site}/photos`, jpeg);
    await upload(ws.admin, `/v1/projects/${hidden}/photos`, jpeg, { caption: 'Out of Rita\'s sight' });
    await upload(rita, '/v1/photos', jpeg, { caption: 'Unfiled, Rita\'s' });
    await upload(ws.admin, '/v1/photos', jpeg, { caption: 'Unfiled, the admin\'s' });
    await upload(ws.admin, `/v1/projects/${site}/documents`, { data: pdf(), filename: 'permit.pdf', contentType: 'application/pdf' }, { name: 'Permit #4471.pdf' });
    if (ffmpegPath) await upload(ws.admin, `/v1/projects/${site}/videos`, { data: await androidMp4(), filename: 'walk.mp4', contentType: 'video/mp4' }, { caption: 'Walkthrough' });
    await t.runJobs();
    await ok(api(t, ws.admin, 'PUT', `/v1/photos/${tagged}/annotations`, {
      shapes: [{ type: 'arrow', x1: 0.1, y1: 0.2, x2: 0.5, y2: 0.5, color: '#ff0000', width: 0.01 }, { type: 'text', x: 0.3, y: 0.3, text: 'Crack', color: '#ffffff', size: 0.04 }],
    }));
    await ok(api(t, ws.admin, 'PATCH', `/v1/projects/${site}`, { cover_photo_id: tagged }));
    const fix = (await ok(api(t, ws.admin, 'POST', `/v1/projects/${site}/tasks`, { title: 'Fix the flashing', photo_ids: [plain, tagged], assignee_id: rita.id, due_at: '2026-12-01T17:00:00Z' }), 201)).id;
    await ok(api(t, ws.admin, 'POST', `/v1/projects/${hidden}/tasks`, { title: 'Hidden' }), 201);
    await ok(api(t, ws.admin, 'POST', `/v1/projects/${site}/comments`, { body: `Thanks @${rita.handle}` }), 201);
    await ok(api(t, rita, 'POST', `/v1/photos/${tagged}/comments`, { body: 'Cracked here' }), 201);
    await ok(api(t, ws.admin, 'POST', `/v1/tasks/${fix}/comments`, { body: 'Tomorrow' }), 201);
    await ok(api(t, ws.admin, 'POST', `/v1/projects/${site}/reports`, { title: 'Week 48' }), 202);
    await t.runJobs();
  });

  it('every type, for an admin: each object is its GET\'s JSON, field for field and in the same order', async () => {
    const changes = await fullSync(ws.admin);
    const types = new Set(changes.map((c) => c.type));
    const expected = ['project', 'photo', 'task', 'comment', 'document', 'report', 'tag', 'user', ...(ffmpegPath ? ['video'] : [])];
    assert.deepEqual([...types].sort(), expected.sort());
    const photo = changes.find((c) => c.id === tagged)!.object!;
    assert.deepEqual((photo.tags as { name: string }[]).map((x) => x.name), ['Roofing', 'Wall']);
    assert.equal((photo.annotations as unknown[]).length, 2);
    assert.match(String((photo.variants as { annotated?: string }).annotated), /[?&]sig=/, 'the annotated variant is signed');
    assert.equal((changes.find((c) => c.id === site)!.object!.geofence as { type: string }).type, 'Polygon');
    const cover = changes.find((c) => c.id === site)!.object!.cover_photo as { thumbnail_url: string } | null;
    assert.match(cover?.thumbnail_url ?? '', /[?&]sig=/, 'the cover\'s thumbnail is signed');
    const report = changes.find((c) => c.type === 'report')!.object!;
    assert.equal(report.status, 'finished');
    assert.match(String(report.url), /[?&]sig=/, 'the finished report\'s PDF is signed');
    await assertSameAsGets(ws.admin, changes);
  });

  it('in small pages (several types on each), the objects are the same', async () => {
    const changes = await fullSync(ws.admin, 3);
    assert.ok(changes.every((c) => c.op === 'upsert'));
    await assertSameAsGets(ws.admin, changes);
  });

  it('for a restricted user: only what her GETs show, byte for byte', async () => {
    const changes = await fullSync(rita);
    assert.ok(changes.every((c) => c.op === 'upsert'));
    const projects = changes.filter((c) => c.type === 'project').map((c) => c.id);
    assert.deepEqual(projects, [site]);
    assert.ok(changes.every((c) => c.object!.project_id === undefined || c.object!.project_id === site || c.object!.project_id === null));
    const unfiled = changes.filter((c) => c.type === 'photo' && c.object!.project_id === null);
    assert.deepEqual(unfiled.map((c) => c.object!.caption), ['Unfiled, Rita\'s'], 'others\' unfiled photos stay out of her sight');
    assert.ok(!changes.some((c) => c.type === 'task' && c.object!.title === 'Hidden'));
    await assertSameAsGets(rita, changes);
  });
});

describe('sync: an object gone between the log\'s read and the objects\' read', () => {
  it('comes as a delete: deleted, or out of the caller\'s sight', async () => {
    const ws = await newWorkspace(t);
    const rita = await newUser(t, ws, 'restricted');
    const prj = (await ok(api(t, ws.admin, 'POST', '/v1/projects', { name: 'Oak Ave.' }), 201)).id;
    await ok(api(t, ws.admin, 'PUT', `/v1/projects/${prj}/members/${rita.id}`));
    const ids: string[] = [];
    for (const title of ['Stays', 'Deleted meanwhile', 'Also stays']) ids.push((await ok(api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title }), 201)).id);

    // The app's tasks feature, its read preceded by what happens between the two reads.
    const tasks = new TasksService(t.db, new EventLog(), new Notifier(new EventLog()));
    let meanwhile = async () => {};
    const notOnThisPage = async (): Promise<never> => { throw new Error('only tasks are synced here'); };
    const sources: SyncSources = {
      project: notOnThisPage, photo: notOnThisPage, video: notOnThisPage, comment: notOnThisPage, document: notOnThisPage,
      report: notOnThisPage, tag: notOnThisPage, user: notOnThisPage,
      task: async (actor, wanted) => { await meanwhile(); return tasks.viewsOf(actor, wanted); },
    };
    const sync = new SyncService(t.db, sources);
    const actorOf = (u: TestUser): Actor => ({ workspaceId: ws.id, userId: u.id, role: u.role, apiKeyId: null, sessionId: null, readOnly: false });

    meanwhile = async () => { await t.db.deleteFrom('tasks').where('id', '=', ids[1]!).execute(); };
    const page = await sync.changes(actorOf(ws.admin), { types: 'task' });
    assert.deepEqual(page.changes.map((c) => [c.id, c.op, (c.object as { title?: string } | undefined)?.title]),
      [[ids[0], 'upsert', 'Stays'], [ids[1], 'delete', undefined], [ids[2], 'upsert', 'Also stays']]);

    // Taken off the crew after the log was read: what she can no longer see comes as deletes.
    meanwhile = async () => { await t.db.deleteFrom('project_members').where('project_id', '=', prj).where('user_id', '=', rita.id).execute(); };
    const hers = await sync.changes(actorOf(rita), { types: 'task' });
    assert.deepEqual(hers.changes.map((c) => [c.id, c.op]), [[ids[0], 'delete'], [ids[2], 'delete']]);
    assert.ok(hers.changes.every((c) => c.object === undefined));
  });
});
