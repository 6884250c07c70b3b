import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

const cursorOf = (sort: string, values: unknown[]) => Buffer.from(JSON.stringify({ s: sort, v: values })).toString('base64url');
const EMPTY_ADDRESS = { street_address_1: null, street_address_2: null, city: null, state: null, postal_code: null, country: null };

describe('projects', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp(); });
  after(async () => t.close());

  async function createProject(who: TestUser | { key: string }, body: Record<string, unknown> = {}) {
    const res = await api(t, who, 'POST', '/v1/projects', { name: `Project ${Math.random().toString(36).slice(2, 8)}`, ...body });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  /** Every page of a list, following next_cursor; `between` runs before each next page is fetched. */
  async function walk(who: TestUser, url: string, between?: () => Promise<void>) {
    const ids: string[] = [];
    let next: string | null = url;
    let pages = 0;
    while (next) {
      const res = await api(t, who, 'GET', next);
      assert.equal(res.statusCode, 200, res.body);
      const page = res.json();
      ids.push(...page.data.map((p: { id: string }) => p.id));
      pages++;
      if (page.has_more) {
        assert.match(String(res.headers.link), /^<http:\/\/jobsite\.test\/v1\/projects\?.*cursor=.*>; rel="next"$/);
        const sep = url.includes('?') ? '&' : '?';
        next = `${url}${sep}cursor=${encodeURIComponent(page.next_cursor)}`;
        if (between) await between();
      } else {
        assert.equal(page.next_cursor, null);
        assert.equal(res.headers.link, undefined);
        next = null;
      }
    }
    return { ids, pages };
  }

  describe('create and read', () => {
    let ws: TestWorkspace;
    before(async () => { ws = await newWorkspace(t); });

    it('creates a project with defaults, 201 and Location', async () => {
      const res = await api(t, ws.admin, 'POST', '/v1/projects', { name: '  Smith Residence  ' });
      assert.equal(res.statusCode, 201, res.body);
      const p = res.json();
      assert.match(p.id, /^prj_[0-9a-z]{26}$/);
      assert.equal(res.headers.location, `/v1/projects/${p.id}`);
      assert.ok(res.headers.etag);
      assert.deepEqual(p, {
        id: p.id, name: 'Smith Residence', description: null, status: 'active', address: EMPTY_ADDRESS, coordinates: null, geofence: null,
        tags: [], cover_photo_id: null, cover_photo: null, member_ids: [], created_by: ws.admin.id,
        created_at: p.created_at, updated_at: p.updated_at, archived_at: null,
      });
      assert.match(p.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    });

    it('creates with description, a partial address and coordinates', async () => {
      const p = await createProject(ws.admin, {
        name: 'Depot', description: 'Roof and gutters', address: { street_address_1: '1 Main St', city: 'Springfield', country: 'US' },
        coordinates: { lat: 39.78, lon: -89.65 },
      });
      assert.equal(p.description, 'Roof and gutters');
      assert.deepEqual(p.address, { ...EMPTY_ADDRESS, street_address_1: '1 Main St', city: 'Springfield', country: 'US' });
      assert.deepEqual(p.coordinates, { lat: 39.78, lon: -89.65 });
      const got = await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`);
      assert.equal(got.statusCode, 200);
      assert.deepEqual(got.json(), p);
    });

    it('accepts the coordinate bounds and an explicit null address', async () => {
      const p = await createProject(ws.admin, { coordinates: { lat: -90, lon: 180 }, address: null, description: null });
      assert.deepEqual(p.coordinates, { lat: -90, lon: 180 });
      assert.deepEqual(p.address, EMPTY_ADDRESS);
    });

    it('answers 404 for a missing, malformed or NUL-bearing id', async () => {
      for (const id of ['prj_01jzzzzzzzzzzzzzzzzzzzzzzz', 'nope', 'prj_%00', '%00', 'x'.repeat(100), 'usr_01jzzzzzzzzzzzzzzzzzzzzzzz']) {
        const res = await api(t, ws.admin, 'GET', `/v1/projects/${id}`);
        assert.equal(res.statusCode, 404, `${id}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
    });

    it('gives an ETag; If-None-Match answers 304', async () => {
      const p = await createProject(ws.admin);
      const got = await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`);
      const etag = got.headers.etag as string;
      assert.match(etag, /^"[\w-]+"$/);
      const again = await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`, undefined, { 'if-none-match': etag });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      const other = await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`, undefined, { 'if-none-match': '"other"' });
      assert.equal(other.statusCode, 200);
    });

    it('replays a create with the same Idempotency-Key', async () => {
      const headers = { 'idempotency-key': `create-${Date.now()}` };
      const first = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Once' }, headers);
      const second = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Once' }, headers);
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.equal(second.json().id, first.json().id);
    });
  });

  describe('validation', () => {
    let ws: TestWorkspace;
    let projectId: string;
    before(async () => {
      ws = await newWorkspace(t);
      projectId = (await createProject(ws.admin)).id;
    });

    const badBodies: [string, unknown, string][] = [
      ['missing name', {}, 'body.name'],
      ['empty name', { name: '' }, 'body.name'],
      ['blank name', { name: '   \t ' }, 'body.name'],
      ['long name', { name: 'x'.repeat(201) }, 'body.name'],
      ['name with NUL', { name: 'a\u0000b' }, 'body.name'],
      ['name only NUL', { name: '\u0000' }, 'body.name'],
      ['description with NUL', { name: 'ok', description: 'a\u0000' }, 'body.description'],
      ['address part with NUL', { name: 'ok', address: { city: '\u0000' } }, 'body.address.city'],
      ['name not a string', { name: 5 }, 'body.name'],
      ['name null', { name: null }, 'body.name'],
      ['long description', { name: 'ok', description: 'x'.repeat(10_001) }, 'body.description'],
      ['description a number', { name: 'ok', description: 7 }, 'body.description'],
      ['unknown field', { name: 'ok', colour: 'red' }, 'body.colour'],
      ['status is not writable', { name: 'ok', status: 'archived' }, 'body.status'],
      ['member_ids are not writable', { name: 'ok', member_ids: [] }, 'body.member_ids'],
      ['address a string', { name: 'ok', address: '1 Main St' }, 'body.address'],
      ['unknown address field', { name: 'ok', address: { street: '1 Main St' } }, 'body.address.street'],
      ['address city a number', { name: 'ok', address: { city: 12 } }, 'body.address.city'],
      ['long address part', { name: 'ok', address: { city: 'x'.repeat(201) } }, 'body.address.city'],
      ['lat too big', { name: 'ok', coordinates: { lat: 90.0001, lon: 0 } }, 'body.coordinates.lat'],
      ['lat too small', { name: 'ok', coordinates: { lat: -91, lon: 0 } }, 'body.coordinates.lat'],
      ['lon too big', { name: 'ok', coordinates: { lat: 0, lon: 180.5 } }, 'body.coordinates.lon'],
      ['lon too small', { name: 'ok', coordinates: { lat: 0, lon: -181 } }, 'body.coordinates.lon'],
      ['lat a string', { name: 'ok', coordinates: { lat: '10', lon: 0 } }, 'body.coordinates.lat'],
      ['missing lon', { name: 'ok', coordinates: { lat: 10 } }, 'body.coordinates.lon'],
      ['extra coordinate', { name: 'ok', coordinates: { lat: 1, lon: 1, alt: 3 } }, 'body.coordinates.alt'],
      ['coordinates an array', { name: 'ok', coordinates: [1, 2] }, 'body.coordinates'],
    ];

    for (const [label, body, path] of badBodies) {
      it(`rejects a create with ${label} (400)`, async () => {
        const res = await api(t, ws.admin, 'POST', '/v1/projects', body);
        assert.equal(res.statusCode, 400, res.body);
        const problem = res.json();
        assert.equal(problem.code, 'validation_failed');
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.ok(problem.errors.some((e: { path: string }) => e.path === path), `${label}: ${JSON.stringify(problem.errors)}`);
      });
    }

    it('rejects bad PATCH bodies (400) and leaves the project alone', async () => {
      const before = (await api(t, ws.admin, 'GET', `/v1/projects/${projectId}`)).json();
      for (const body of [{ name: null }, { name: '' }, { status: 'archived' }, { coordinates: { lat: 95, lon: 0 } }, { address: { city: 1 } }, { id: 'prj_x' }, [], 'null']) {
        const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${projectId}`, body, typeof body === 'string' ? { 'content-type': 'application/json' } : {});
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      }
      const noBody = await api(t, ws.admin, 'PATCH', `/v1/projects/${projectId}`);
      assert.equal(noBody.statusCode, 400);
      assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${projectId}`)).json(), before);
    });

    it('rejects malformed JSON and non-JSON bodies', async () => {
      const bad = await api(t, ws.admin, 'POST', '/v1/projects', '{"name": ', { 'content-type': 'application/json' });
      assert.equal(bad.statusCode, 400);
      assert.equal(bad.json().code, 'malformed_json');
      const text = await api(t, ws.admin, 'POST', '/v1/projects', 'name=x', { 'content-type': 'application/x-www-form-urlencoded' });
      assert.equal(text.statusCode, 415);
    });

    const badQueries: [string, string, string][] = [
      ['status=deleted', 'validation_failed', 'query.status'],
      ['sort=name', 'validation_failed', 'query.sort'],
      ['limit=0', 'validation_failed', 'query.limit'],
      ['limit=101', 'validation_failed', 'query.limit'],
      ['limit=ten', 'validation_failed', 'query.limit'],
      ['updated_since=yesterday', 'validation_failed', 'query.updated_since'],
      ['updated_since=2024-13-01T00:00:00Z', 'validation_failed', 'query.updated_since'],
      ['updated_since=2024-01-01', 'validation_failed', 'query.updated_since'],
      ['member_id=bob', 'validation_failed', 'query.member_id'],
      ['tag_id=red', 'validation_failed', 'query.tag_id'],
      ['q=a%00b', 'validation_failed', 'query.q'],
      [`q=${'x'.repeat(201)}`, 'validation_failed', 'query.q'],
      ['colour=red', 'validation_failed', 'query.colour'],
      ['cursor=garbage', 'invalid_cursor', 'query.cursor'],
      [`cursor=${cursorOf('updated_at', ['2024-01-01T00:00:00.000Z', 'prj_x'])}`, 'invalid_cursor', 'query.cursor'],
      [`sort=updated_at&cursor=${cursorOf('created_at', ['prj_x'])}`, 'invalid_cursor', 'query.cursor'],
      [`sort=updated_at&cursor=${cursorOf('updated_at', ['not a time', 'prj_x'])}`, 'invalid_cursor', 'query.cursor'],
      [`sort=updated_at&cursor=${cursorOf('updated_at', ['2024-01-01', 'prj_x'])}`, 'invalid_cursor', 'query.cursor'],
      [`sort=updated_at&cursor=${cursorOf('updated_at', [5, 'prj_x'])}`, 'invalid_cursor', 'query.cursor'],
      [`sort=updated_at&cursor=${cursorOf('updated_at', ['2024-01-01T00:00:00.000Z', 7])}`, 'invalid_cursor', 'query.cursor'],
      [`cursor=${cursorOf('created_at', [7])}`, 'invalid_cursor', 'query.cursor'],
      [`cursor=${cursorOf('created_at', [null])}`, 'invalid_cursor', 'query.cursor'],
      [`cursor=${cursorOf('created_at', ['prj_\u0000'])}`, 'invalid_cursor', 'query.cursor'],
      [`cursor=${cursorOf('created_at', ['a', 'b'])}`, 'invalid_cursor', 'query.cursor'],
    ];

    for (const [query, code, path] of badQueries) {
      it(`rejects GET /v1/projects?${query.slice(0, 60)} (400 ${code})`, async () => {
        const res = await api(t, ws.admin, 'GET', `/v1/projects?${query}`);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().code, code);
        assert.ok(res.json().errors.some((e: { path: string }) => e.path === path), res.body);
      });
    }

    it('accepts the RFC 3339 spellings the format allows', async () => {
      for (const since of ['2024-01-01T00:00:00Z', '2024-01-01t00:00:00.123456z', '2024-01-01T00:00:00+05:30', '2024-01-01 00:00:00Z']) {
        const res = await api(t, ws.admin, 'GET', `/v1/projects?updated_since=${encodeURIComponent(since)}`);
        assert.equal(res.statusCode, 200, `${since}: ${res.body}`);
        assert.equal(res.json().data.length, 1);
      }
      const leap = await api(t, ws.admin, 'GET', `/v1/projects?updated_since=${encodeURIComponent('2016-12-31T23:59:60Z')}`);
      assert.ok(leap.statusCode === 200 || leap.statusCode === 400, leap.body);
    });

    it('rejects an unknown method with 405', async () => {
      const res = await api(t, ws.admin, 'PUT', `/v1/projects/${projectId}`, { name: 'x' });
      assert.equal(res.statusCode, 405);
    });
  });

  describe('update (merge patch), archive, restore, delete', () => {
    let ws: TestWorkspace;
    before(async () => { ws = await newWorkspace(t); });

    const full = {
      name: 'Full', description: 'desc',
      address: { street_address_1: '1 Main St', street_address_2: 'Unit 2', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' },
      coordinates: { lat: 10, lon: 20 },
    };

    it('changes only the fields given; address parts merge', async () => {
      const p = await createProject(ws.admin, full);
      const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { address: { city: 'Shelbyville' } });
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json();
      assert.deepEqual(updated.address, { ...full.address, city: 'Shelbyville' });
      assert.equal(updated.name, 'Full');
      assert.equal(updated.description, 'desc');
      assert.deepEqual(updated.coordinates, { lat: 10, lon: 20 });
      assert.ok(updated.updated_at > p.updated_at);
      assert.equal(updated.created_at, p.created_at);

      const cleared = (await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { address: { street_address_2: null, state: null } })).json();
      assert.deepEqual(cleared.address, { ...full.address, city: 'Shelbyville', street_address_2: null, state: null });
    });

    it('null clears the address, the coordinates and the description', async () => {
      const p = await createProject(ws.admin, full);
      const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { address: null, coordinates: null, description: null },
        { 'content-type': 'application/merge-patch+json' });
      assert.equal(res.statusCode, 200, res.body);
      const updated = res.json();
      assert.deepEqual(updated.address, EMPTY_ADDRESS);
      assert.equal(updated.coordinates, null);
      assert.equal(updated.description, null);
      assert.equal(updated.name, 'Full');
    });

    it('replaces coordinates whole and trims the name', async () => {
      const p = await createProject(ws.admin, full);
      const updated = (await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { coordinates: { lat: -33.5, lon: 151.2 }, name: '  Renamed ' })).json();
      assert.deepEqual(updated.coordinates, { lat: -33.5, lon: 151.2 });
      assert.equal(updated.name, 'Renamed');
      const setFromNull = await createProject(ws.admin);
      const withCoords = (await api(t, ws.admin, 'PATCH', `/v1/projects/${setFromNull.id}`, { coordinates: { lat: 0, lon: 0 } })).json();
      assert.deepEqual(withCoords.coordinates, { lat: 0, lon: 0 });
    });

    it('a patch that changes nothing keeps updated_at and the ETag', async () => {
      const p = await createProject(ws.admin, full);
      for (const body of [{}, { name: 'Full' }, { address: { city: 'Springfield' } }, { coordinates: { lat: 10, lon: 20 } }]) {
        const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, body);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().updated_at, p.updated_at, JSON.stringify(body));
      }
    });

    it('every change moves updated_at, even several within one millisecond', async () => {
      const p = await createProject(ws.admin);
      let last = p.updated_at;
      for (let i = 0; i < 5; i++) {
        const res = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { name: `Name ${i}` });
        assert.ok(res.json().updated_at > last);
        last = res.json().updated_at;
      }
    });

    it('honours If-Match on PATCH and DELETE (412 on a stale ETag)', async () => {
      const p = await createProject(ws.admin);
      const etag = (await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`)).headers.etag as string;
      const ok = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { name: 'First' }, { 'if-match': etag });
      assert.equal(ok.statusCode, 200);
      const newEtag = ok.headers.etag as string;
      assert.notEqual(newEtag, etag);
      const stale = await api(t, ws.admin, 'PATCH', `/v1/projects/${p.id}`, { name: 'Second' }, { 'if-match': etag });
      assert.equal(stale.statusCode, 412);
      assert.equal(stale.json().code, 'precondition_failed');
      assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`)).json().name, 'First');
      const staleDelete = await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}`, undefined, { 'if-match': etag });
      assert.equal(staleDelete.statusCode, 412);
      const del = await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}`, undefined, { 'if-match': newEtag });
      assert.equal(del.statusCode, 204);
    });

    it('archives and restores idempotently', async () => {
      const p = await createProject(ws.admin);
      const archived = await api(t, ws.admin, 'POST', `/v1/projects/${p.id}/archive`);
      assert.equal(archived.statusCode, 200, archived.body);
      const a = archived.json();
      assert.equal(a.status, 'archived');
      assert.match(a.archived_at, /Z$/);
      assert.ok(a.updated_at > p.updated_at);

      const again = await api(t, ws.admin, 'POST', `/v1/projects/${p.id}/archive`, undefined, { 'content-type': 'application/json' });
      assert.equal(again.statusCode, 200);
      assert.deepEqual(again.json(), a);

      const restored = (await api(t, ws.admin, 'POST', `/v1/projects/${p.id}/restore`)).json();
      assert.equal(restored.status, 'active');
      assert.equal(restored.archived_at, null);
      assert.ok(restored.updated_at > a.updated_at);
      const restoredAgain = (await api(t, ws.admin, 'POST', `/v1/projects/${p.id}/restore`)).json();
      assert.deepEqual(restoredAgain, restored);
    });

    it('deletes (204), cascading the crew; the project is then gone', async () => {
      const member = await newUser(t, ws, 'standard');
      const p = await createProject(ws.admin);
      assert.equal((await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${member.id}`)).statusCode, 200);
      const del = await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}`);
      assert.equal(del.statusCode, 204);
      assert.equal(del.body, '');
      assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${p.id}`)).statusCode, 404);
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}`)).statusCode, 404);
      const left = await t.db.selectFrom('project_members').selectAll().where('project_id', '=', p.id).execute();
      assert.deepEqual(left, []);
    });
  });

  describe('list', () => {
    let ws: TestWorkspace;
    let crew: TestUser;
    let springfield: { id: string };
    let percent: { id: string };
    let archived: { id: string };
    let crewed: { id: string };
    before(async () => {
      ws = await newWorkspace(t);
      crew = await newUser(t, ws, 'standard');
      springfield = await createProject(ws.admin, { name: 'Barn', address: { city: 'SPRINGFIELD', state: 'IL' } });
      percent = await createProject(ws.admin, { name: '100% Kitchen_Remodel' });
      archived = await createProject(ws.admin, { name: 'Old barn' });
      await api(t, ws.admin, 'POST', `/v1/projects/${archived.id}/archive`);
      crewed = await createProject(ws.admin, { name: 'Garage', address: { street_address_1: '12 Elm Street', postal_code: '62704' } });
      await api(t, ws.admin, 'PUT', `/v1/projects/${crewed.id}/members/${crew.id}`);
    });

    const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((p) => p.id);

    it('lists active projects, newest first, with their crew', async () => {
      const res = await api(t, ws.admin, 'GET', '/v1/projects');
      assert.equal(res.statusCode, 200);
      const page = res.json();
      assert.deepEqual(ids(res), [crewed.id, percent.id, springfield.id]);
      assert.equal(page.has_more, false);
      assert.equal(page.next_cursor, null);
      assert.deepEqual(page.data[0].member_ids, [crew.id]);
      assert.deepEqual(page.data[1].address, EMPTY_ADDRESS);
      assert.equal(res.headers.etag, undefined);
    });

    it('filters by status', async () => {
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?status=archived')), [archived.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?status=all')), [crewed.id, archived.id, percent.id, springfield.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?status=active')), [crewed.id, percent.id, springfield.id]);
    });

    it('q matches name and address parts, case-insensitively, with LIKE characters taken literally', async () => {
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=barn&status=all')), [archived.id, springfield.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=springf')), [springfield.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=elm%20st')), [crewed.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=62704')), [crewed.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=il')), [springfield.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=0%25')), [percent.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=%25')), [percent.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=0_')), []);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=B_rn')), []);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=chen_rem')), [percent.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=%5C')), []);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?q=nothing-like-this')), []);
    });

    it('filters by member_id', async () => {
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?member_id=${crew.id}`)), [crewed.id]);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?member_id=${ws.admin.id}`)), []);
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', '/v1/projects?member_id=usr_01jzzzzzzzzzzzzzzzzzzzzzzz')), []);
    });

    it('filters by updated_since (inclusive)', async () => {
      const touched = (await api(t, ws.admin, 'PATCH', `/v1/projects/${springfield.id}`, { description: 'touched' })).json();
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?updated_since=${touched.updated_at}`)), [springfield.id]);
      const later = new Date(Date.parse(touched.updated_at) + 1).toISOString();
      assert.deepEqual(ids(await api(t, ws.admin, 'GET', `/v1/projects?updated_since=${later}`)), []);
      assert.equal(ids(await api(t, ws.admin, 'GET', '/v1/projects?updated_since=2000-01-01T00:00:00Z')).length, 3);
    });

    it('accepts a well-formed tag_id of no tag, which matches nothing', async () => {
      const res = await api(t, ws.admin, 'GET', '/v1/projects?tag_id=tag_01jzzzzzzzzzzzzzzzzzzzzzzz&status=all');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(ids(res), []);
    });

    it('sort=updated_at puts the most recently changed first', async () => {
      await api(t, ws.admin, 'PATCH', `/v1/projects/${percent.id}`, { description: 'latest' });
      const res = await api(t, ws.admin, 'GET', '/v1/projects?sort=updated_at');
      assert.equal(ids(res)[0], percent.id);
      const stamps = res.json().data.map((p: { updated_at: string }) => p.updated_at);
      assert.deepEqual(stamps, [...stamps].sort().reverse());
    });
  });

  describe('pagination', () => {
    let ws: TestWorkspace;
    let original: string[];
    before(async () => {
      ws = await newWorkspace(t);
      original = [];
      for (let i = 0; i < 23; i++) original.push((await createProject(ws.admin, { name: `Paged ${i}` })).id);
    });

    it('walks every page once, with a Link header, while new projects are inserted during the scan', async () => {
      const { ids, pages } = await walk(ws.admin, '/v1/projects?limit=5', async () => { await createProject(ws.admin, { name: 'During scan' }); });
      assert.equal(pages, 5);
      assert.equal(new Set(ids).size, ids.length, 'no project repeated');
      assert.deepEqual([...ids].sort(), [...original].sort());
      assert.deepEqual(ids, [...original].reverse());
    });

    it('walks sort=updated_at pages the same way, with its own cursors', async () => {
      const before = (await api(t, ws.admin, 'GET', '/v1/projects?status=all&limit=100&sort=updated_at')).json().data.map((p: { id: string }) => p.id);
      const { ids, pages } = await walk(ws.admin, '/v1/projects?limit=4&sort=updated_at&status=all', async () => { await createProject(ws.admin, { name: 'During scan' }); });
      assert.equal(pages, Math.ceil(before.length / 4));
      assert.deepEqual(ids, before);
      const first = (await api(t, ws.admin, 'GET', '/v1/projects?limit=4&sort=updated_at')).json();
      const wrongSort = await api(t, ws.admin, 'GET', `/v1/projects?limit=4&cursor=${first.next_cursor}`);
      assert.equal(wrongSort.statusCode, 400);
      assert.equal(wrongSort.json().code, 'invalid_cursor');
    });

    it('sort=updated_at keyset is on (updated_at, id): ties never lose a row', async () => {
      const tie = await newWorkspace(t);
      const made: string[] = [];
      for (let i = 0; i < 7; i++) made.push((await createProject(tie.admin, { name: `Tie ${i}` })).id);
      await t.db.updateTable('projects').set({ updated_at: new Date('2024-05-05T05:05:05.555Z') }).where('workspace_id', '=', tie.id).execute();
      const { ids } = await walk(tie.admin, '/v1/projects?limit=2&sort=updated_at');
      assert.deepEqual(ids, [...made].reverse());
    });

    it('honours limit and the 50 default', async () => {
      const res = await api(t, ws.admin, 'GET', '/v1/projects?limit=1');
      assert.equal(res.json().data.length, 1);
      assert.equal(res.json().has_more, true);
      const all = await api(t, ws.admin, 'GET', '/v1/projects');
      assert.ok(all.json().data.length > 23 && all.json().data.length <= 50);
    });
  });

  describe('roles and visibility', () => {
    let ws: TestWorkspace;
    let restricted: TestUser;
    let standard: TestUser;
    let manager: TestUser;
    let ownProject: { id: string };
    let memberProject: { id: string };
    let hiddenProject: { id: string };
    before(async () => {
      ws = await newWorkspace(t);
      restricted = await newUser(t, ws, 'restricted');
      standard = await newUser(t, ws, 'standard');
      manager = await newUser(t, ws, 'manager');
      ownProject = await createProject(restricted, { name: 'Mine' });
      memberProject = await createProject(ws.admin, { name: 'Crewed' });
      await api(t, ws.admin, 'PUT', `/v1/projects/${memberProject.id}/members/${restricted.id}`);
      hiddenProject = await createProject(standard, { name: 'Hidden' });
    });

    it('restricted users may create projects and see only created and crewed ones', async () => {
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${ownProject.id}`)).json().created_by, restricted.id);
      const list = (await api(t, restricted, 'GET', '/v1/projects?status=all')).json();
      assert.deepEqual(list.data.map((p: { id: string }) => p.id), [memberProject.id, ownProject.id]);
      const sorted = (await api(t, restricted, 'GET', '/v1/projects?sort=updated_at&q=e')).json();
      assert.deepEqual(new Set(sorted.data.map((p: { id: string }) => p.id)), new Set([memberProject.id, ownProject.id]));
      const everyone = (await api(t, standard, 'GET', '/v1/projects')).json();
      assert.equal(everyone.data.length, 3);
    });

    it('an invisible project is 404 on every route for a restricted user', async () => {
      const id = hiddenProject.id;
      const calls: [string, string, unknown?][] = [
        ['GET', `/v1/projects/${id}`], ['PATCH', `/v1/projects/${id}`, { name: 'x' }], ['DELETE', `/v1/projects/${id}`],
        ['POST', `/v1/projects/${id}/archive`], ['POST', `/v1/projects/${id}/restore`], ['GET', `/v1/projects/${id}/members`],
        ['PUT', `/v1/projects/${id}/members/${restricted.id}`], ['DELETE', `/v1/projects/${id}/members/${restricted.id}`],
      ];
      for (const [method, url, body] of calls) {
        const res = await api(t, restricted, method, url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
    });

    it('a restricted member may read but not edit a project they did not create (403)', async () => {
      assert.equal((await api(t, restricted, 'GET', `/v1/projects/${memberProject.id}`)).statusCode, 200);
      for (const [method, url, body] of [
        ['PATCH', `/v1/projects/${memberProject.id}`, { name: 'x' }], ['POST', `/v1/projects/${memberProject.id}/archive`],
        ['POST', `/v1/projects/${memberProject.id}/restore`], ['DELETE', `/v1/projects/${memberProject.id}`],
      ] as [string, string, unknown?][]) {
        const res = await api(t, restricted, method, url, body);
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'forbidden');
      }
    });

    it('a restricted creator may edit, archive and restore their project, but not delete it', async () => {
      assert.equal((await api(t, restricted, 'PATCH', `/v1/projects/${ownProject.id}`, { description: 'mine' })).statusCode, 200);
      assert.equal((await api(t, restricted, 'POST', `/v1/projects/${ownProject.id}/archive`)).statusCode, 200);
      assert.equal((await api(t, restricted, 'POST', `/v1/projects/${ownProject.id}/restore`)).statusCode, 200);
      const del = await api(t, restricted, 'DELETE', `/v1/projects/${ownProject.id}`);
      assert.equal(del.statusCode, 403);
      assert.equal(del.json().code, 'forbidden');
    });

    it('standard users edit any project but may not delete; managers and admins delete', async () => {
      assert.equal((await api(t, standard, 'PATCH', `/v1/projects/${ownProject.id}`, { description: 'by standard' })).statusCode, 200);
      assert.equal((await api(t, standard, 'POST', `/v1/projects/${memberProject.id}/archive`)).statusCode, 200);
      assert.equal((await api(t, standard, 'POST', `/v1/projects/${memberProject.id}/restore`)).statusCode, 200);
      assert.equal((await api(t, standard, 'DELETE', `/v1/projects/${hiddenProject.id}`)).statusCode, 403);
      const mine = await createProject(standard);
      assert.equal((await api(t, standard, 'DELETE', `/v1/projects/${mine.id}`)).statusCode, 403);
      assert.equal((await api(t, manager, 'DELETE', `/v1/projects/${mine.id}`)).statusCode, 204);
      const another = await createProject(manager);
      assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${another.id}`)).statusCode, 204);
    });

    it('a read-only key may list and read but not write', async () => {
      const key = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ro', read_only: true });
      const ro = key.json().key as string;
      assert.equal((await api(t, ro, 'GET', '/v1/projects')).statusCode, 200);
      const write = await api(t, ro, 'POST', '/v1/projects', { name: 'x' });
      assert.equal(write.statusCode, 403);
      assert.equal(write.json().code, 'read_only_key');
    });

    it('answers 401 without a key', async () => {
      assert.equal((await api(t, null, 'GET', '/v1/projects')).statusCode, 401);
      assert.equal((await api(t, null, 'POST', '/v1/projects', { name: 'x' })).statusCode, 401);
    });
  });

  describe('tenancy', () => {
    it('another workspace\'s project is 404 on every route and absent from lists', async () => {
      const home = await newWorkspace(t);
      const away = await newWorkspace(t);
      const awayUser = await newUser(t, away, 'standard');
      const p = await createProject(away.admin, { name: 'Elsewhere' });
      await api(t, away.admin, 'PUT', `/v1/projects/${p.id}/members/${awayUser.id}`);
      const homeUser = await newUser(t, home, 'standard');
      const calls: [string, string, unknown?][] = [
        ['GET', `/v1/projects/${p.id}`], ['PATCH', `/v1/projects/${p.id}`, { name: 'x' }], ['DELETE', `/v1/projects/${p.id}`],
        ['POST', `/v1/projects/${p.id}/archive`], ['POST', `/v1/projects/${p.id}/restore`], ['GET', `/v1/projects/${p.id}/members`],
        ['PUT', `/v1/projects/${p.id}/members/${homeUser.id}`], ['DELETE', `/v1/projects/${p.id}/members/${awayUser.id}`],
      ];
      for (const [method, url, body] of calls) {
        const res = await api(t, home.admin, method, url, body);
        assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().code, 'not_found');
      }
      const list = (await api(t, home.admin, 'GET', '/v1/projects?status=all')).json();
      assert.deepEqual(list.data, []);
      assert.deepEqual((await api(t, home.admin, 'GET', `/v1/projects?member_id=${awayUser.id}`)).json().data, []);
      const still = (await api(t, away.admin, 'GET', `/v1/projects/${p.id}`)).json();
      assert.equal(still.name, 'Elsewhere');
      assert.equal(still.status, 'active');
    });
  });

  describe('OpenAPI', () => {
    it('documents every project and crew route with schemas', async () => {
      const doc = (await api(t, null, 'GET', '/v1/openapi.json')).json();
      const paths = doc.paths as Record<string, Record<string, { tags: string[]; summary: string; responses: Record<string, unknown> }>>;
      const expected: [string, string, string][] = [
        ['/v1/projects', 'get', 'Projects'], ['/v1/projects', 'post', 'Projects'],
        ['/v1/projects/{id}', 'get', 'Projects'], ['/v1/projects/{id}', 'patch', 'Projects'], ['/v1/projects/{id}', 'delete', 'Projects'],
        ['/v1/projects/{id}/archive', 'post', 'Projects'], ['/v1/projects/{id}/restore', 'post', 'Projects'],
        ['/v1/projects/{id}/members', 'get', 'Crew'], ['/v1/projects/{id}/members/{user_id}', 'put', 'Crew'],
        ['/v1/projects/{id}/members/{user_id}', 'delete', 'Crew'],
      ];
      for (const [path, method, tag] of expected) {
        const op = paths[path]?.[method];
        assert.ok(op, `${method} ${path} is documented`);
        assert.deepEqual(op.tags, [tag]);
        assert.ok(op.summary);
      }
      const get = paths['/v1/projects/{id}']!.get!.responses['200'] as { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      const schema = get.content['application/json']!.schema as { $ref?: string; properties: Record<string, unknown> };
      const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
      const props = Object.keys(resolved.properties);
      for (const field of ['id', 'name', 'description', 'status', 'address', 'coordinates', 'tags', 'cover_photo_id', 'cover_photo', 'member_ids', 'created_by', 'created_at', 'updated_at', 'archived_at']) {
        assert.ok(props.includes(field), field);
      }
    });
  });
});
