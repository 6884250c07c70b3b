// The crew ids, tags and cover key kept on the project row (migration 016, issue 16), a photo's
// tags and a task's photo ids kept on theirs (migration 024), stay equal to what the correlated
// sub-selects they replace compute, through concurrent changes, tag renames and deletions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart } from './multipart.ts';

let t: TestContext;
before(async () => { t = await startTestApp(); });
after(async () => t?.close());

async function created(res: { statusCode: number; body: string; json(): any }, status = 201) {
  assert.equal(res.statusCode, status, res.body);
  return res.json();
}

/** Projects whose stored summaries differ from a fresh computation with the former sub-selects. */
async function driftedProjects(): Promise<unknown[]> {
  const { rows } = await sql<{ id: string }>`
    select p.id from projects p
    where p.member_ids is distinct from coalesce((select array_agg(m.user_id order by m.user_id) from project_members m where m.project_id = p.id), '{}')
       or p.tags is distinct from coalesce((select jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name) collate "C", t.id)
                                            from project_tags l join tags t on t.id = l.tag_id where l.project_id = p.id), '[]')
       or p.cover_thumbnail_key is distinct from (select cv.variants->'thumbnail'->>'key' from photos cv where cv.id = p.cover_photo_id)`.execute(t.db);
  return rows;
}

describe('project summaries on the row', () => {
  it('keeps every member of a crew changed by many requests at once, in id order, in GET one and the list', async () => {
    const ws = await newWorkspace(t);
    const project = await created(await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Busy site' }));
    const users = await Promise.all(Array.from({ length: 12 }, () => newUser(t, ws)));
    const added = await Promise.all(users.map((u) => api(t, ws.admin, 'PUT', `/v1/projects/${project.id}/members/${u.id}`)));
    for (const res of added) assert.equal(res.statusCode, 200, res.body);
    const removed = await Promise.all(users.slice(0, 4).map((u) => api(t, ws.admin, 'DELETE', `/v1/projects/${project.id}/members/${u.id}`)));
    for (const res of removed) assert.ok(res.statusCode < 300, res.body);
    const expected = users.slice(4).map((u) => u.id).sort();
    assert.deepEqual((await created(await api(t, ws.admin, 'GET', `/v1/projects/${project.id}`), 200)).member_ids, expected);
    const listed = (await created(await api(t, ws.admin, 'GET', '/v1/projects'), 200)).data.find((p: { id: string }) => p.id === project.id);
    assert.deepEqual(listed.member_ids, expected);
    assert.deepEqual(await driftedProjects(), []);
  });

  it('follows a tag renamed, recoloured and deleted, in name order, on every project carrying it', async () => {
    const ws = await newWorkspace(t);
    const [a, b] = await Promise.all([1, 2].map(async (n) => created(await api(t, ws.admin, 'POST', '/v1/projects', { name: `Site ${n}` }))));
    const alpha = await created(await api(t, ws.admin, 'POST', '/v1/tags', { name: 'alpha' }));
    const beta = await created(await api(t, ws.admin, 'POST', '/v1/tags', { name: 'Beta' }));
    for (const p of [a, b]) for (const tag of [alpha, beta]) await created(await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/tags/${tag.id}`), 200);
    const names = async (id: string) => (await created(await api(t, ws.admin, 'GET', `/v1/projects/${id}`), 200)).tags.map((x: { name: string; color: string }) => `${x.name} ${x.color}`);
    assert.deepEqual(await names(a.id), [`alpha ${alpha.color}`, `Beta ${beta.color}`]);
    await created(await api(t, ws.admin, 'PATCH', `/v1/tags/${alpha.id}`, { name: 'zulu', color: '#123456' }), 200);
    for (const p of [a, b]) assert.deepEqual(await names(p.id), [`Beta ${beta.color}`, 'zulu #123456']);
    assert.ok((await api(t, ws.admin, 'DELETE', `/v1/tags/${beta.id}`)).statusCode < 300);
    for (const p of [a, b]) assert.deepEqual(await names(p.id), ['zulu #123456']);
    assert.ok((await api(t, ws.admin, 'DELETE', `/v1/projects/${a.id}/tags/${alpha.id}`)).statusCode < 300);
    assert.deepEqual(await names(a.id), []);
    assert.deepEqual(await names(b.id), ['zulu #123456']);
    assert.deepEqual(await driftedProjects(), []);
  });

  it('loses no crew member when a user is deleted from the workspace', async () => {
    const ws = await newWorkspace(t);
    const project = await created(await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Site' }));
    const [stays, goes] = await Promise.all([newUser(t, ws), newUser(t, ws)]);
    for (const u of [stays, goes]) await created(await api(t, ws.admin, 'PUT', `/v1/projects/${project.id}/members/${u.id}`), 200);
    await sql`delete from project_members where user_id = ${goes.id}`.execute(t.db);
    assert.deepEqual((await created(await api(t, ws.admin, 'GET', `/v1/projects/${project.id}`), 200)).member_ids, [stays.id]);
    assert.deepEqual(await driftedProjects(), []);
  });
});

/** Photos and tasks whose stored summaries differ from a fresh computation with the former sub-selects. */
async function driftedPhotosAndTasks(): Promise<unknown[]> {
  const { rows } = await sql<{ id: string }>`
    select ph.id from photos ph
    where ph.tags is distinct from coalesce((select jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name, 'color', t.color) order by lower(t.name) collate "C", t.id)
                                             from photo_tags l join tags t on t.id = l.tag_id where l.photo_id = ph.id), '[]')
    union all
    select tk.id from tasks tk
    where tk.photo_ids is distinct from coalesce((select array_agg(tp.photo_id order by tp.position, tp.photo_id) from task_photos tp where tp.task_id = tk.id), '{}')`.execute(t.db);
  return rows;
}

async function uploadPhoto(who: TestUser, projectId: string, fields: Record<string, string> = {}): Promise<{ id: string }> {
  const { payload, headers } = multipart(fields, { data: await jpegWithExif() });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  return created(res);
}

describe('photo tags and task photos on the row', () => {
  it('follows tags applied at upload and at once by many requests, renamed, removed and deleted, in GET one and both lists', async () => {
    const ws = await newWorkspace(t);
    const project = await created(await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Site' }));
    const tags = await Promise.all(['delta', 'Alpha', 'charlie', 'Bravo', 'echo'].map(async (name) => created(await api(t, ws.admin, 'POST', '/v1/tags', { name }))));
    const byName = (...names: string[]) => names.map((n) => tags.find((x) => x.name === n)!);
    const photo = await uploadPhoto(ws.admin, project.id, { tag_ids: byName('echo', 'delta').map((x) => x.id).join(',') });
    const other = await uploadPhoto(ws.admin, project.id);
    const applied = await Promise.all(tags.map((tag) => api(t, ws.admin, 'PUT', `/v1/photos/${photo.id}/tags/${tag.id}`)));
    for (const res of applied) assert.equal(res.statusCode, 200, res.body);
    await created(await api(t, ws.admin, 'PUT', `/v1/photos/${other.id}/tags/${byName('Bravo')[0]!.id}`), 200);
    const names = async (id: string) => {
      const one = (await created(await api(t, ws.admin, 'GET', `/v1/photos/${id}`), 200)).tags;
      for (const list of [`/v1/photos?limit=100`, `/v1/projects/${project.id}/photos`]) {
        const listed = (await created(await api(t, ws.admin, 'GET', list), 200)).data.find((p: { id: string }) => p.id === id);
        assert.deepEqual(listed.tags, one, list);
      }
      return one.map((x: { id: string; name: string; color: string }) => {
        assert.deepEqual(Object.keys(x), ['id', 'name', 'color']);
        return `${x.name} ${x.color}`;
      });
    };
    assert.deepEqual(await names(photo.id), byName('Alpha', 'Bravo', 'charlie', 'delta', 'echo').map((x) => `${x.name} ${x.color}`));
    await created(await api(t, ws.admin, 'PATCH', `/v1/tags/${byName('Alpha')[0]!.id}`, { name: 'zulu', color: '#123456' }), 200);
    assert.ok((await api(t, ws.admin, 'DELETE', `/v1/tags/${byName('Bravo')[0]!.id}`)).statusCode < 300);
    assert.ok((await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}/tags/${byName('delta')[0]!.id}`)).statusCode < 300);
    assert.deepEqual(await names(photo.id), [...byName('charlie', 'echo').map((x) => `${x.name} ${x.color}`), 'zulu #123456']);
    assert.deepEqual(await names(other.id), []);
    assert.deepEqual(await driftedPhotosAndTasks(), []);
  });

  it('keeps a task\'s photos in their order through creation, edits and a photo deleted', async () => {
    const ws = await newWorkspace(t);
    const project = await created(await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Site' }));
    const [p1, p2, p3] = await Promise.all([1, 2, 3].map(() => uploadPhoto(ws.admin, project.id)));
    const task = await created(await api(t, ws.admin, 'POST', `/v1/projects/${project.id}/tasks`, { title: 'Fix it', photo_ids: [p2!.id, p1!.id] }));
    assert.deepEqual(task.photo_ids, [p2!.id, p1!.id]);
    const photoIds = async () => {
      const one = (await created(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`), 200)).photo_ids;
      const listed = (await created(await api(t, ws.admin, 'GET', '/v1/tasks'), 200)).data.find((x: { id: string }) => x.id === task.id);
      assert.deepEqual(listed.photo_ids, one);
      return one;
    };
    assert.deepEqual(await photoIds(), [p2!.id, p1!.id]);
    const patched = await created(await api(t, ws.admin, 'PATCH', `/v1/tasks/${task.id}`, { photo_ids: [p3!.id, p1!.id, p2!.id] }), 200);
    assert.deepEqual(patched.photo_ids, [p3!.id, p1!.id, p2!.id]);
    assert.ok((await api(t, ws.admin, 'DELETE', `/v1/photos/${p1!.id}`)).statusCode < 300);
    assert.deepEqual(await photoIds(), [p3!.id, p2!.id]);
    assert.deepEqual(await driftedPhotosAndTasks(), []);
  });
});
