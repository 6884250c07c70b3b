import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart } from './multipart.ts';

let t: TestContext;
let jpeg: Buffer;
before(async () => {
  t = await startTestApp();
  jpeg = await jpegWithExif({}, 400, 300);
});
after(async () => t?.close());

type Who = { key: string };
type Res = { statusCode: number; body: string; headers: Record<string, unknown>; json(): any };

function assertProblem(res: Res, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /application\/problem\+json/);
  assert.equal(res.json().code, code, res.body);
}

const unique = () => crypto.randomBytes(4).toString('hex');

async function createTag(who: Who, name = `Tag ${unique()}`, color?: string) {
  const res = await api(t, who, 'POST', '/v1/tags', { name, ...(color ? { color } : {}) });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; name: string; color: string; updated_at: string };
}

async function createProject(who: Who, name = `Site ${unique()}`) {
  const res = await api(t, who, 'POST', '/v1/projects', { name });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; updated_at: string };
}

function upload(who: Who, projectId: string, fields: Record<string, string | string[]> = {}) {
  const { payload, headers } = multipart(fields, { data: jpeg });
  return t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
}

async function uploadPhoto(who: Who, projectId: string, fields: Record<string, string | string[]> = {}) {
  const res = await upload(who, projectId, fields);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; updated_at: string; tags: unknown[] };
}

/** The events of `kind` recorded about the object `id` (their `data.id`), oldest first. */
async function eventsAbout(kind: string, id: string): Promise<any[]> {
  const { rows } = await sql<{ payload: string }>`select payload from events where event = ${kind} and payload::json->'data'->>'id' = ${id} order by id`.execute(t.db);
  return rows.map((r) => JSON.parse(r.payload));
}

const ids = (res: Res) => res.json().data.map((x: { id: string }) => x.id);
const summary = (tag: { id: string; name: string; color: string }) => ({ id: tag.id, name: tag.name, color: tag.color });

describe('tags: create, read, update, delete', () => {
  let ws: TestWorkspace;
  before(async () => { ws = await newWorkspace(t); });

  it('creates a tag (201, Location, trimmed name, lowercase colour, default colour) and emits tag.created', async () => {
    const res = await api(t, ws.admin, 'POST', '/v1/tags', { name: '  Roof leak  ', color: '#FFAA00' });
    assert.equal(res.statusCode, 201, res.body);
    const tag = res.json();
    assert.match(tag.id, /^tag_[0-9a-z]{26}$/);
    assert.equal(res.headers.location, `/v1/tags/${tag.id}`);
    assert.equal(tag.name, 'Roof leak');
    assert.equal(tag.color, '#ffaa00');
    assert.equal(tag.created_by, ws.admin.id);
    assert.equal(tag.created_at, tag.updated_at);
    assert.deepEqual(Object.keys(tag).sort(), ['color', 'created_at', 'created_by', 'id', 'name', 'updated_at']);

    const [event] = await eventsAbout('tag.created', tag.id);
    assert.equal(event.project_id, null);
    assert.equal(event.workspace_id, ws.id);
    assert.deepEqual(event.data, tag);

    const plain = await createTag(ws.admin, `Plain ${unique()}`);
    assert.equal(plain.color, '#808080');

    const got = await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`);
    assert.equal(got.statusCode, 200);
    assert.deepEqual(got.json(), tag);
    assert.ok(got.headers.etag);
    const cached = await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`, undefined, { 'if-none-match': got.headers.etag as string });
    assert.equal(cached.statusCode, 304);
  });

  it('lists by name (case-insensitively) by default, newest first with sort=created_at, filters by q, and pages without gaps', async () => {
    const own = await newWorkspace(t);
    const names = ['delta', 'Alpha', 'charlie', 'Bravo', 'echo', 'Foxtrot', 'golf'];
    const made = [];
    for (const name of names) made.push(await createTag(own.admin, name));
    const byName = await api(t, own.admin, 'GET', '/v1/tags');
    assert.equal(byName.statusCode, 200);
    assert.deepEqual(byName.json().data.map((x: { name: string }) => x.name), ['Alpha', 'Bravo', 'charlie', 'delta', 'echo', 'Foxtrot', 'golf']);
    assert.deepEqual(ids(await api(t, own.admin, 'GET', '/v1/tags?sort=created_at')), made.map((x) => x.id).reverse());
    assert.deepEqual((await api(t, own.admin, 'GET', '/v1/tags?q=LPH')).json().data.map((x: { name: string }) => x.name), ['Alpha']);
    assert.deepEqual((await api(t, own.admin, 'GET', '/v1/tags?q=ha')).json().data.map((x: { name: string }) => x.name), ['Alpha', 'charlie']);
    assert.deepEqual((await api(t, own.admin, 'GET', '/v1/tags?q=%25')).json().data, [], 'q is a substring, not a LIKE pattern');

    for (const sort of ['name', 'created_at']) {
      const seen: string[] = [];
      let url = `/v1/tags?limit=3&sort=${sort}`;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 5);
        const res = await api(t, own.admin, 'GET', url);
        assert.equal(res.statusCode, 200, res.body);
        seen.push(...ids(res));
        const { next_cursor: next, has_more: more } = res.json();
        if (!more) { assert.equal(next, null); break; }
        assert.match(String(res.headers.link), /rel="next"/);
        url = `/v1/tags?limit=3&sort=${sort}&cursor=${next}`;
      }
      assert.equal(seen.length, names.length);
      assert.equal(new Set(seen).size, names.length);
    }
    const firstPage = (await api(t, own.admin, 'GET', '/v1/tags?limit=2')).json();
    assertProblem(await api(t, own.admin, 'GET', `/v1/tags?sort=created_at&cursor=${firstPage.next_cursor}`), 400, 'invalid_cursor');
    assertProblem(await api(t, own.admin, 'GET', '/v1/tags?limit=0'), 400, 'validation_failed');
  });

  it('renames and recolours (tag.updated, ETag, If-Match); a patch that changes nothing emits nothing', async () => {
    const tag = await createTag(ws.admin, `Framing ${unique()}`, '#00ff00');
    const etag = (await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`)).headers.etag as string;
    const res = await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: ' Framing done ', color: '#0000FF' }, { 'if-match': etag });
    assert.equal(res.statusCode, 200, res.body);
    const updated = res.json();
    assert.equal(updated.name, 'Framing done');
    assert.equal(updated.color, '#0000ff');
    assert.ok(updated.updated_at > tag.updated_at);
    assert.notEqual(res.headers.etag, etag);
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { color: '#111111' }, { 'if-match': etag }), 412, 'precondition_failed');
    const events = await eventsAbout('tag.updated', tag.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].data, updated);

    const same = await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: 'Framing done', color: '#0000FF' });
    assert.equal(same.statusCode, 200);
    assert.deepEqual(same.json(), updated);
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, {})).statusCode, 200);
    assert.equal((await eventsAbout('tag.updated', tag.id)).length, 1);

    // Only the case changes: the tag keeps its own name slot.
    const recased = await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: 'FRAMING DONE' });
    assert.equal(recased.statusCode, 200, recased.body);
    assert.equal(recased.json().name, 'FRAMING DONE');
  });

  it('deletes (204, then 404) with tag.deleted carrying the tag as it was; If-Match is honoured', async () => {
    const tag = await createTag(ws.admin);
    const etag = (await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`)).headers.etag as string;
    await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { color: '#123456' });
    assertProblem(await api(t, ws.admin, 'DELETE', `/v1/tags/${tag.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed');
    const res = await api(t, ws.admin, 'DELETE', `/v1/tags/${tag.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'DELETE', `/v1/tags/${tag.id}`), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: 'x' }), 404, 'not_found');
    const [event] = await eventsAbout('tag.deleted', tag.id);
    assert.equal(event.data.color, '#123456');
    assert.equal(event.data.name, tag.name);
  });

  it('answers 404 for ids that are not tags', async () => {
    for (const id of ['nope', `tag_${'0'.repeat(26)}`, 'prj_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
      assertProblem(await api(t, ws.admin, 'GET', `/v1/tags/${id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${id}`, { name: 'x' }), 404, 'not_found');
      assertProblem(await api(t, ws.admin, 'DELETE', `/v1/tags/${id}`), 404, 'not_found');
    }
  });
});

describe('tags: names and colours', () => {
  let ws: TestWorkspace;
  before(async () => { ws = await newWorkspace(t); });

  it('refuses a name taken regardless of case with 409 tag_name_taken naming the holder, on create and on rename', async () => {
    const roof = await createTag(ws.admin, 'Roof');
    for (const name of ['roof', 'ROOF', '  rOoF ']) {
      const res = await api(t, ws.admin, 'POST', '/v1/tags', { name });
      assertProblem(res, 409, 'tag_name_taken');
      assert.equal(res.json().tag_id, roof.id);
      assert.match(res.json().detail, /"Roof"/);
    }
    const other = await createTag(ws.admin, 'Siding');
    const rename = await api(t, ws.admin, 'PATCH', `/v1/tags/${other.id}`, { name: 'rOOF' });
    assertProblem(rename, 409, 'tag_name_taken');
    assert.equal(rename.json().tag_id, roof.id);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/tags/${other.id}`)).json().name, 'Siding');
    assert.equal((await eventsAbout('tag.updated', other.id)).length, 0);

    // Another workspace may use the same name.
    const elsewhere = await newWorkspace(t);
    assert.equal((await api(t, elsewhere.admin, 'POST', '/v1/tags', { name: 'roof' })).statusCode, 201);
    // A freed name can be taken again.
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/tags/${roof.id}`)).statusCode, 204);
    assert.equal((await api(t, ws.admin, 'POST', '/v1/tags', { name: 'ROOF' })).statusCode, 201);
  });

  it('lets exactly one of two concurrent creates of "Gutter" and "gutter" win (201 + 409), with one tag.created', async () => {
    for (let round = 0; round < 3; round++) {
      const name = `Gutter${round}`;
      const [a, b] = await Promise.all([
        api(t, ws.admin, 'POST', '/v1/tags', { name }),
        api(t, ws.admin, 'POST', '/v1/tags', { name: name.toLowerCase() }),
      ]);
      const statuses = [a.statusCode, b.statusCode].sort();
      assert.deepEqual(statuses, [201, 409], `${a.body} ${b.body}`);
      const [won, lost] = a.statusCode === 201 ? [a, b] : [b, a];
      assertProblem(lost, 409, 'tag_name_taken');
      assert.equal(lost.json().tag_id, won.json().id);
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from tags where workspace_id = ${ws.id} and lower(name) = ${name.toLowerCase()}`.execute(t.db);
      assert.equal(rows[0]!.n, 1);
      const { rows: events } = await sql<{ n: number }>`select count(*)::int as n from events where workspace_id = ${ws.id} and event = 'tag.created' and lower(payload::json->'data'->>'name') = ${name.toLowerCase()}`.execute(t.db);
      assert.equal(events[0]!.n, 1);
    }
  });

  it('refuses bad names and colours with 400 validation_failed naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.name'],
      [{ name: '' }, 'body.name'],
      [{ name: '    ' }, 'body.name'],
      [{ name: 'x'.repeat(51) }, 'body.name'],
      [{ name: 'bell\u0007' }, 'body.name'],
      [{ name: 'nul\u0000' }, 'body.name'],
      [{ name: 'line\nbreak' }, 'body.name'],
      [{ name: 42 }, 'body.name'],
      [{ name: 'ok', color: 'red' }, 'body.color'],
      [{ name: 'ok', color: '#abc' }, 'body.color'],
      [{ name: 'ok', color: '#GGGGGG' }, 'body.color'],
      [{ name: 'ok', color: 'ffaa00' }, 'body.color'],
      [{ name: 'ok', color: '#ffaa001' }, 'body.color'],
      [{ name: 'ok', color: null }, 'body.color'],
      [{ name: 'ok', colour: '#ffaa00' }, 'body.colour'],
    ];
    for (const [body, field] of cases) {
      const res = await api(t, ws.admin, 'POST', '/v1/tags', body);
      assertProblem(res, 400, 'validation_failed');
      assert.ok(res.json().errors.some((e: { path: string }) => e.path === field), `${JSON.stringify(body)}: ${res.body}`);
    }
    const fifty = 'y'.repeat(50);
    assert.equal((await api(t, ws.admin, 'POST', '/v1/tags', { name: fifty })).json().name, fifty);
    const tag = await createTag(ws.admin);
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: ' ' }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { color: '#12345' }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: null }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'POST', '/v1/tags', '{"name":', { 'content-type': 'application/json' }), 400, 'malformed_json');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`)).json().name, tag.name);
  });
});

describe('tags: permissions (each cell of the tag rows)', () => {
  let ws: TestWorkspace;
  const users: Record<string, TestUser> = {};
  before(async () => {
    ws = await newWorkspace(t);
    users.admin = ws.admin;
    for (const role of ['manager', 'standard', 'restricted'] as const) users[role] = await newUser(t, ws, role);
  });

  const expected = {
    'tag.create': { admin: 201, manager: 201, standard: 201, restricted: 403 },
    'tag.edit': { admin: 200, manager: 200, standard: 403, restricted: 403 },
    'tag.delete': { admin: 204, manager: 204, standard: 403, restricted: 403 },
  };

  for (const role of ['admin', 'manager', 'standard', 'restricted'] as const) {
    it(`${role}: reads every tag; create ${expected['tag.create'][role]}, edit ${expected['tag.edit'][role]}, delete ${expected['tag.delete'][role]}`, async () => {
      const who = users[role]!;
      const existing = await createTag(ws.admin);
      assert.equal((await api(t, who, 'GET', '/v1/tags')).statusCode, 200);
      assert.ok(ids(await api(t, who, 'GET', `/v1/tags?q=${encodeURIComponent(existing.name)}`)).includes(existing.id));
      assert.equal((await api(t, who, 'GET', `/v1/tags/${existing.id}`)).statusCode, 200);

      const created = await api(t, who, 'POST', '/v1/tags', { name: `By ${role} ${unique()}` });
      assert.equal(created.statusCode, expected['tag.create'][role], created.body);
      if (created.statusCode === 403) {
        assertProblem(created, 403, 'forbidden');
        assert.match(created.json().detail, /restricted.*create tags/);
      }

      const edited = await api(t, who, 'PATCH', `/v1/tags/${existing.id}`, { color: '#abcdef' });
      assert.equal(edited.statusCode, expected['tag.edit'][role], edited.body);
      if (edited.statusCode === 403) assertProblem(edited, 403, 'forbidden');
      assert.equal((await api(t, ws.admin, 'GET', `/v1/tags/${existing.id}`)).json().color, edited.statusCode === 200 ? '#abcdef' : existing.color);

      const deleted = await api(t, who, 'DELETE', `/v1/tags/${existing.id}`);
      assert.equal(deleted.statusCode, expected['tag.delete'][role], deleted.body);
      if (deleted.statusCode === 403) assertProblem(deleted, 403, 'forbidden');
      assert.equal((await api(t, ws.admin, 'GET', `/v1/tags/${existing.id}`)).statusCode, deleted.statusCode === 204 ? 404 : 200);
    });
  }

  it('a read-only key of an admin cannot create tags', async () => {
    const key = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ro', read_only: true });
    assert.equal(key.statusCode, 201, key.body);
    assertProblem(await api(t, key.json().key, 'POST', '/v1/tags', { name: `ro ${unique()}` }), 403, 'read_only_key');
  });

  it('applying a tag to a project follows the project\'s edit rule; to a photo, media.change', async () => {
    const tag = await createTag(ws.admin);
    const { restricted, standard, manager } = users as Record<string, TestUser>;
    // Restricted: their own project yes; a project they are on the crew of but did not create, 403; one they cannot see, 404.
    const own = await createProject(restricted!);
    assert.equal((await api(t, restricted!, 'PUT', `/v1/projects/${own.id}/tags/${tag.id}`)).statusCode, 200);
    assert.equal((await api(t, restricted!, 'DELETE', `/v1/projects/${own.id}/tags/${tag.id}`)).statusCode, 204);
    const crewed = await createProject(ws.admin);
    assert.equal((await api(t, ws.admin, 'PUT', `/v1/projects/${crewed.id}/members/${restricted!.id}`)).statusCode, 200);
    assertProblem(await api(t, restricted!, 'PUT', `/v1/projects/${crewed.id}/tags/${tag.id}`), 403, 'forbidden');
    assertProblem(await api(t, restricted!, 'DELETE', `/v1/projects/${crewed.id}/tags/${tag.id}`), 403, 'forbidden');
    const hidden = await createProject(ws.admin);
    assertProblem(await api(t, restricted!, 'PUT', `/v1/projects/${hidden.id}/tags/${tag.id}`), 404, 'not_found');
    assertProblem(await api(t, restricted!, 'DELETE', `/v1/projects/${hidden.id}/tags/${tag.id}`), 404, 'not_found');
    for (const who of [standard!, manager!, ws.admin]) {
      assert.equal((await api(t, who, 'PUT', `/v1/projects/${hidden.id}/tags/${tag.id}`)).statusCode, 200);
      assert.equal((await api(t, who, 'DELETE', `/v1/projects/${hidden.id}/tags/${tag.id}`)).statusCode, 204);
    }

    // Photos: restricted users tag only photos they uploaded.
    const theirs = await uploadPhoto(restricted!, crewed.id);
    const adminPhoto = await uploadPhoto(ws.admin, crewed.id);
    assert.equal((await api(t, restricted!, 'PUT', `/v1/photos/${theirs.id}/tags/${tag.id}`)).statusCode, 200);
    assert.equal((await api(t, restricted!, 'DELETE', `/v1/photos/${theirs.id}/tags/${tag.id}`)).statusCode, 204);
    assertProblem(await api(t, restricted!, 'PUT', `/v1/photos/${adminPhoto.id}/tags/${tag.id}`), 403, 'forbidden');
    assertProblem(await api(t, restricted!, 'DELETE', `/v1/photos/${adminPhoto.id}/tags/${tag.id}`), 403, 'forbidden');
    const hiddenPhoto = await uploadPhoto(ws.admin, hidden.id);
    assertProblem(await api(t, restricted!, 'PUT', `/v1/photos/${hiddenPhoto.id}/tags/${tag.id}`), 404, 'not_found');
    for (const who of [standard!, manager!]) {
      assert.equal((await api(t, who, 'PUT', `/v1/photos/${adminPhoto.id}/tags/${tag.id}`)).statusCode, 200);
      assert.equal((await api(t, who, 'DELETE', `/v1/photos/${adminPhoto.id}/tags/${tag.id}`)).statusCode, 204);
    }
    // Restricted users may tag their own upload through tag_ids, too.
    const tagged = await uploadPhoto(restricted!, crewed.id, { tag_ids: tag.id });
    assert.deepEqual(tagged.tags, [summary(tag)]);
  });
});

describe('tags: other workspaces', () => {
  it('answers 404 for another workspace\'s tag everywhere, and filters by it find nothing', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const foreign = await createTag(other.admin, 'Foreign');
    const prj = await createProject(ws.admin);
    const photo = await uploadPhoto(ws.admin, prj.id);
    const foreignProject = await createProject(other.admin);
    const foreignPhoto = await uploadPhoto(other.admin, foreignProject.id);
    const mine = await createTag(ws.admin, 'Mine');

    assertProblem(await api(t, ws.admin, 'GET', `/v1/tags/${foreign.id}`), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tags/${foreign.id}`, { name: 'Stolen' }), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'DELETE', `/v1/tags/${foreign.id}`), 404, 'not_found');
    assert.ok(!ids(await api(t, ws.admin, 'GET', '/v1/tags')).includes(foreign.id));
    // A foreign tag on my project or photo, my tag on a foreign project or photo.
    for (const method of ['PUT', 'DELETE']) {
      const res = await api(t, ws.admin, method, `/v1/projects/${prj.id}/tags/${foreign.id}`);
      assertProblem(res, 404, 'not_found');
      assert.match(res.json().detail, /tag/);
      assertProblem(await api(t, ws.admin, method, `/v1/photos/${photo.id}/tags/${foreign.id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, method, `/v1/projects/${foreignProject.id}/tags/${mine.id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, method, `/v1/photos/${foreignPhoto.id}/tags/${mine.id}`), 404, 'not_found');
      assertProblem(await api(t, ws.admin, method, `/v1/projects/${prj.id}/tags/not-a-tag`), 404, 'not_found');
    }
    // Upload naming a foreign tag: 422, as for an unknown one.
    const refused = await upload(ws.admin, prj.id, { tag_ids: foreign.id });
    assertProblem(refused, 422, 'tag_not_found');
    assert.match(refused.json().detail, new RegExp(foreign.id));

    // Filters by a foreign tag match nothing, even where that workspace applied it.
    assert.equal((await api(t, other.admin, 'PUT', `/v1/projects/${foreignProject.id}/tags/${foreign.id}`)).statusCode, 200);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${foreign.id}&status=all`)).json().data, []);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/photos?tag_id=${foreign.id}`)).json().data, []);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}/photos?tag_id=${foreign.id}`)).json().data, []);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json().tags.length, 0);
    // The foreign workspace still sees its own tag, untouched.
    assert.equal((await api(t, other.admin, 'GET', `/v1/tags/${foreign.id}`)).json().name, 'Foreign');
  });
});

describe('tagging projects and photos', () => {
  let ws: TestWorkspace;
  before(async () => { ws = await newWorkspace(t); });

  it('PUT on a project is idempotent; only a real change moves updated_at and emits project.updated with the tags sorted by name', async () => {
    const zinc = await createTag(ws.admin, 'zinc', '#aaaaaa');
    const brick = await createTag(ws.admin, 'Brick', '#bb0000');
    const prj = await createProject(ws.admin);

    const first = await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${zinc.id}`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json().tags, [summary(zinc)]);
    assert.ok(first.json().updated_at > prj.updated_at);
    assert.ok(first.headers.etag);
    const second = await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${brick.id}`);
    assert.deepEqual(second.json().tags, [summary(brick), summary(zinc)]);

    const again = await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${brick.id}`);
    assert.equal(again.statusCode, 200);
    assert.deepEqual(again.json(), second.json());
    assert.equal(again.headers.etag, second.headers.etag);

    const events = await eventsAbout('project.updated', prj.id);
    assert.equal(events.length, 2);
    assert.deepEqual(events[0].data.tags, [summary(zinc)]);
    assert.deepEqual(events[1].data, second.json());
    assert.equal(events[1].project_id, prj.id);

    // The project reads the same everywhere: get and list.
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json().tags, [summary(brick), summary(zinc)]);
    const listed = (await api(t, ws.admin, 'GET', '/v1/projects')).json().data.find((p: { id: string }) => p.id === prj.id);
    assert.deepEqual(listed.tags, [summary(brick), summary(zinc)]);

    // DELETE: 204, idempotent, an event only when the tag was there.
    const removed = await api(t, ws.admin, 'DELETE', `/v1/projects/${prj.id}/tags/${zinc.id}`);
    assert.equal(removed.statusCode, 204);
    assert.equal(removed.body, '');
    const afterRemove = (await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json();
    assert.deepEqual(afterRemove.tags, [summary(brick)]);
    assert.ok(afterRemove.updated_at > second.json().updated_at);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${prj.id}/tags/${zinc.id}`)).statusCode, 204);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json().updated_at, afterRemove.updated_at);
    const all = await eventsAbout('project.updated', prj.id);
    assert.equal(all.length, 3);
    assert.deepEqual(all[2].data.tags, [summary(brick)]);

    assertProblem(await api(t, ws.admin, 'PUT', `/v1/projects/prj_01jzzzzzzzzzzzzzzzzzzzzzzz/tags/${zinc.id}`), 404, 'not_found');
  });

  it('PUT on a photo is idempotent; only a real change moves updated_at and emits photo.updated', async () => {
    const a = await createTag(ws.admin, 'Concrete');
    const b = await createTag(ws.admin, 'anchor bolts');
    const prj = await createProject(ws.admin);
    const photo = await uploadPhoto(ws.admin, prj.id);
    assert.deepEqual(photo.tags, []);

    const first = await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/tags/${a.id}`);
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json().tags, [summary(a)]);
    assert.ok(first.json().updated_at > photo.updated_at);
    const second = (await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/tags/${b.id}`)).json();
    assert.deepEqual(second.tags, [summary(b), summary(a)]);
    const again = await api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/tags/${a.id}`);
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().updated_at, second.updated_at);
    assert.deepEqual(again.json().tags, second.tags);

    const events = await eventsAbout('photo.updated', photo.id);
    assert.equal(events.length, 2);
    assert.deepEqual(events[1].data.tags, [summary(b), summary(a)]);
    assert.equal(events[1].project_id, prj.id);

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}/tags/${b.id}`)).statusCode, 204);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}/tags/${b.id}`)).statusCode, 204);
    const got = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.deepEqual(got.tags, [summary(a)]);
    assert.equal((await eventsAbout('photo.updated', photo.id)).length, 3);

    // Processing keeps the tags, and photo.created carries them.
    await t.runJobs();
    const [created] = await eventsAbout('photo.created', photo.id);
    assert.deepEqual(created.data.tags, [summary(a)]);
  });

  it('filters projects and photos by tag_id (GET /v1/projects, /v1/photos, /v1/projects/{id}/photos)', async () => {
    const roof = await createTag(ws.admin, `Roof ${unique()}`);
    const wall = await createTag(ws.admin, `Wall ${unique()}`);
    const p1 = await createProject(ws.admin);
    const p2 = await createProject(ws.admin);
    const p3 = await createProject(ws.admin);
    await api(t, ws.admin, 'PUT', `/v1/projects/${p1.id}/tags/${roof.id}`);
    await api(t, ws.admin, 'PUT', `/v1/projects/${p3.id}/tags/${roof.id}`);
    await api(t, ws.admin, 'PUT', `/v1/projects/${p3.id}/tags/${wall.id}`);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${roof.id}`)), [p3.id, p1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${wall.id}&sort=updated_at`)), [p3.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${roof.id}&limit=1`)), [p3.id]);
    // Combined with other filters, archived included only on request.
    await api(t, ws.admin, 'POST', `/v1/projects/${p1.id}/archive`);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${roof.id}`)), [p3.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${roof.id}&status=all`)), [p3.id, p1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${roof.id}&q=nothing-like-this`)), []);
    void p2;

    const ph1 = await uploadPhoto(ws.admin, p2.id, { tag_ids: roof.id });
    const ph2 = await uploadPhoto(ws.admin, p2.id);
    const ph3 = await uploadPhoto(ws.admin, p3.id, { tag_ids: [roof.id, wall.id] });
    const ph4 = await uploadPhoto(ws.admin, p3.id);
    await api(t, ws.admin, 'PUT', `/v1/photos/${ph4.id}/tags/${wall.id}`);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?tag_id=${roof.id}`)), [ph3.id, ph1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?tag_id=${wall.id}`)), [ph4.id, ph3.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/photos?tag_id=${wall.id}&project_id=${p3.id}&limit=1`)), [ph4.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects/${p2.id}/photos?tag_id=${roof.id}`)), [ph1.id]);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects/${p2.id}/photos?tag_id=${wall.id}`)), []);
    assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects/${p2.id}/photos`)), [ph2.id, ph1.id]);
    // Restricted users see only the tagged photos of projects they can see.
    const restricted = await newUser(t, ws, 'restricted');
    await api(t, ws.admin, 'PUT', `/v1/projects/${p2.id}/members/${restricted.id}`);
    assert.deepEqual(ids(await api(t, restricted, 'GET', `/v1/photos?tag_id=${roof.id}`)), [ph1.id]);
    assert.deepEqual(ids(await api(t, restricted, 'GET', `/v1/projects?tag_id=${roof.id}&status=all`)), []);
    assertProblem(await api(t, ws.admin, 'GET', '/v1/photos?tag_id=roof'), 400, 'validation_failed');
  });

  it('deleting a tag removes it from every project and photo, moves their updated_at (new ETags), and emits only tag.deleted', async () => {
    const doomed = await createTag(ws.admin, `Doomed ${unique()}`);
    const kept = await createTag(ws.admin, `Kept ${unique()}`);
    const prj = await createProject(ws.admin);
    const untouched = await createProject(ws.admin);
    await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${doomed.id}`);
    await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${kept.id}`);
    const photo = await uploadPhoto(ws.admin, prj.id, { tag_ids: `${doomed.id},${kept.id}` });
    const beforeProject = await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`);
    const beforePhoto = await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`);
    const beforeUntouched = (await api(t, ws.admin, 'GET', `/v1/projects/${untouched.id}`)).json();
    const projectEvents = (await eventsAbout('project.updated', prj.id)).length;
    const photoEvents = (await eventsAbout('photo.updated', photo.id)).length;

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/tags/${doomed.id}`)).statusCode, 204);

    const afterProject = await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`);
    assert.deepEqual(afterProject.json().tags, [summary(kept)]);
    assert.ok(afterProject.json().updated_at > beforeProject.json().updated_at);
    assert.notEqual(afterProject.headers.etag, beforeProject.headers.etag);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`, undefined, { 'if-none-match': beforeProject.headers.etag as string })).statusCode, 200);
    const afterPhoto = await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`);
    assert.deepEqual(afterPhoto.json().tags, [summary(kept)]);
    assert.ok(afterPhoto.json().updated_at > beforePhoto.json().updated_at);
    assert.notEqual(afterPhoto.headers.etag, beforePhoto.headers.etag);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${untouched.id}`)).json().updated_at, beforeUntouched.updated_at);
    // Sync by updated_since sees the change.
    const since = encodeURIComponent(beforeProject.json().updated_at);
    assert.ok(ids(await api(t, ws.admin, 'GET', `/v1/projects?updated_since=${since}`)).includes(prj.id));

    assert.equal((await eventsAbout('project.updated', prj.id)).length, projectEvents);
    assert.equal((await eventsAbout('photo.updated', photo.id)).length, photoEvents);
    assert.equal((await eventsAbout('tag.deleted', doomed.id)).length, 1);
    const { rows } = await sql<{ n: number }>`select (select count(*) from project_tags where tag_id = ${doomed.id}) + (select count(*) from photo_tags where tag_id = ${doomed.id}) as n`.execute(t.db);
    assert.equal(Number(rows[0]!.n), 0);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects?tag_id=${doomed.id}`)).json().data, []);
  });

  it('renaming a tag changes how tagged projects and photos read, and moves their updated_at', async () => {
    const tag = await createTag(ws.admin, `Old ${unique()}`);
    const prj = await createProject(ws.admin);
    await api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${tag.id}`);
    const photo = await uploadPhoto(ws.admin, prj.id, { tag_ids: tag.id });
    const before = (await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json();
    const renamed = (await api(t, ws.admin, 'PATCH', `/v1/tags/${tag.id}`, { name: 'New name', color: '#ABCDEF' })).json();
    const after = (await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json();
    assert.deepEqual(after.tags, [{ id: tag.id, name: 'New name', color: '#abcdef' }]);
    assert.ok(after.updated_at > before.updated_at);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json().tags, [summary(renamed)]);
  });

  it('a tag deleted while it is being applied never leaves a dangling link or a 500', async () => {
    const prj = await createProject(ws.admin);
    for (let round = 0; round < 5; round++) {
      const tag = await createTag(ws.admin);
      const [applied, deleted] = await Promise.all([
        api(t, ws.admin, 'PUT', `/v1/projects/${prj.id}/tags/${tag.id}`),
        api(t, ws.admin, 'DELETE', `/v1/tags/${tag.id}`),
      ]);
      assert.equal(deleted.statusCode, 204, deleted.body);
      assert.ok([200, 404].includes(applied.statusCode), applied.body);
      assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}`)).json().tags, []);
    }
  });
});

describe('tag_ids on photo upload', () => {
  let ws: TestWorkspace;
  let server: http.Server;
  let base: string;
  let importer: TestContext;
  before(async () => {
    ws = await newWorkspace(t);
    server = http.createServer((req, res) => {
      if (req.url === '/site.jpg') return void res.writeHead(200, { 'content-type': 'image/jpeg' }).end(jpeg);
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    importer = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1/32' }, { databaseUrl: t.url });
  });
  after(async () => {
    server.closeAllConnections();
    server.close();
    await importer?.close();
  });

  it('applies the tags of a multipart upload (comma-separated or repeated), sorted by name, in the photo and its reads', async () => {
    const b = await createTag(ws.admin, 'Beam');
    const a = await createTag(ws.admin, 'arch');
    const c = await createTag(ws.admin, 'Column');
    const prj = await createProject(ws.admin);
    const commas = await uploadPhoto(ws.admin, prj.id, { tag_ids: `${c.id}, ${a.id}` });
    assert.deepEqual(commas.tags, [summary(a), summary(c)]);
    const repeated = await uploadPhoto(ws.admin, prj.id, { tag_ids: [b.id, a.id, b.id] });
    assert.deepEqual(repeated.tags, [summary(a), summary(b)]);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/photos/${repeated.id}`)).json().tags, [summary(a), summary(b)]);
    // Tagging on upload is part of the upload: no photo.updated.
    assert.equal((await eventsAbout('photo.updated', repeated.id)).length, 0);
  });

  it('applies tag_ids of a JSON import', async () => {
    const tag = await createTag(ws.admin, `Drone ${unique()}`);
    const prj = await createProject(ws.admin);
    const res = await api(importer, ws.admin, 'POST', `/v1/projects/${prj.id}/photos`, { source_url: `${base}/site.jpg`, tag_ids: [tag.id] });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().tags, [summary(tag)]);
    const unknown = `tag_${'0'.repeat(26)}`;
    const refused = await api(importer, ws.admin, 'POST', `/v1/projects/${prj.id}/photos`, { source_url: `${base}/site.jpg`, tag_ids: [tag.id, unknown] });
    assertProblem(refused, 422, 'tag_not_found');
    assert.deepEqual(refused.json().errors.map((e: { path: string }) => e.path), ['body.tag_ids']);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}/photos`)).json().data.length, 1);
  });

  it('refuses an unknown tag id with 422 tag_not_found naming it, and stores nothing (no photo, no file, no link)', async () => {
    const known = await createTag(ws.admin);
    const prj = await createProject(ws.admin);
    const unknown = `tag_${'1'.repeat(26)}`;
    const filesBefore = await countBlobFiles(t);
    const linksBefore = await photoTagCount();
    const res = await upload(ws.admin, prj.id, { tag_ids: `${known.id},${unknown}`, caption: 'never stored' });
    assertProblem(res, 422, 'tag_not_found');
    assert.match(res.json().detail, new RegExp(unknown));
    assert.deepEqual(res.json().errors.map((e: { path: string }) => e.path), ['body.tag_ids']);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj.id}/photos`)).json().data, []);
    assert.equal(await countBlobFiles(t), filesBefore);
    assert.equal(await photoTagCount(), linksBefore);
    // A deleted tag is unknown, too.
    await api(t, ws.admin, 'DELETE', `/v1/tags/${known.id}`);
    assertProblem(await upload(ws.admin, prj.id, { tag_ids: known.id }), 422, 'tag_not_found');
    // Malformed ids stay a 400.
    assertProblem(await upload(ws.admin, prj.id, { tag_ids: 'roof' }), 400, 'validation_failed');
  });
});

async function photoTagCount(): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::int as n from photo_tags`.execute(t.db);
  return rows[0]!.n;
}

async function countBlobFiles(ctx: TestContext): Promise<number> {
  const walk = async (d: string): Promise<number> => {
    let n = 0;
    for (const e of await fs.readdir(d, { withFileTypes: true }).catch(() => [])) {
      n += e.isDirectory() ? await walk(path.join(d, e.name)) : e.name.endsWith('.json') ? 0 : 1;
    }
    return n;
  };
  return walk(path.join(ctx.config.dataDir, 'blobs'));
}

describe('tags in the OpenAPI document', () => {
  it('documents every tag route, the Tag schema and tag_name_taken', async () => {
    const doc = (await api(t, null, 'GET', '/v1/openapi.json')).json();
    for (const [p, methods] of [
      ['/v1/tags', ['get', 'post']], ['/v1/tags/{id}', ['get', 'patch', 'delete']],
      ['/v1/projects/{id}/tags/{tag_id}', ['put', 'delete']], ['/v1/photos/{id}/tags/{tag_id}', ['put', 'delete']],
    ] as const) {
      for (const m of methods) assert.deepEqual(doc.paths[p]?.[m]?.tags, ['Tags'], `${m} ${p}`);
    }
    assert.match(JSON.stringify(doc), /tag_name_taken/);
    assert.ok(doc.paths['/v1/tags/{id}'].patch.responses['409'], 'PATCH documents the 409');
    assert.ok(doc.paths['/v1/tags'].post.responses['409']);
    assert.deepEqual(Object.keys(doc.components.schemas.Tag.properties).sort(), ['color', 'created_at', 'created_by', 'id', 'name', 'updated_at']);
    for (const event of ['tag.created', 'tag.updated', 'tag.deleted']) {
      const body = doc.webhooks[event].post.requestBody.content['application/json'].schema;
      assert.match(JSON.stringify(body), /#\/components\/schemas\/Tag"/, event);
    }
  });
});
