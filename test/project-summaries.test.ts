// The crew ids, tags and cover key kept on the project row (migration 016, issue 16) stay equal to
// what the correlated sub-selects they replace compute, through concurrent crew changes, tag
// renames and deletions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { api, newUser, newWorkspace, startTestApp, type TestContext } from './helpers.ts';

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
