import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { jpegWithExif } from './fixtures/images.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';

type Who = { key: string };
type Response = Awaited<ReturnType<typeof api>>;

interface Envelope {
  id: string;
  event: string;
  project_id: string | null;
  workspace_id: string;
  data: Record<string, any>;
}

const RFC3339_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TASK_FIELDS = ['assignee_id', 'completed_at', 'completed_by', 'created_at', 'created_by', 'description', 'due_at', 'id', 'photo_ids', 'project_id', 'status', 'title', 'updated_at'];
const cursorOf = (sort: string, values: unknown[]) => Buffer.from(JSON.stringify({ s: sort, v: values })).toString('base64url');
const fakeId = (prefix: string) => `${prefix}_${'0'.repeat(10)}${crypto.randomBytes(8).toString('hex').replace(/[ilou]/g, 'a')}`;

let t: TestContext;
before(async () => { t = await startTestApp(); });
after(async () => t?.close());

function ok(res: Response, status = 200) {
  assert.equal(res.statusCode, status, res.body);
  return res.statusCode === 204 ? undefined : res.json();
}

function assertProblem(res: Response, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(res.json().code, code, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  return res.json();
}

async function project(who: Who, name = `Site ${crypto.randomBytes(3).toString('hex')}`): Promise<string> {
  return ok(await api(t, who, 'POST', '/v1/projects', { name }), 201).id;
}

async function uploadPhoto(who: Who, projectId: string): Promise<string> {
  const { payload, headers } = multipart({}, { data: await jpegWithExif() });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  return ok(res, 201).id;
}

async function createTask(who: Who, projectId: string, body: Record<string, unknown> = {}) {
  return ok(await api(t, who, 'POST', `/v1/projects/${projectId}/tasks`, { title: 'Fix the gutter', ...body }), 201);
}

async function addMember(ws: TestWorkspace, projectId: string, userId: string) {
  ok(await api(t, ws.admin, 'PUT', `/v1/projects/${projectId}/members/${userId}`));
}

/** The envelopes `change` emitted in the workspace, oldest first. */
async function emittedBy<T>(wsId: string, change: () => Promise<T>): Promise<{ result: T; events: Envelope[] }> {
  const last = await t.db.selectFrom('events').select('id').where('workspace_id', '=', wsId).orderBy('id', 'desc').limit(1).executeTakeFirst();
  const result = await change();
  let q = t.db.selectFrom('events').select('payload').where('workspace_id', '=', wsId);
  if (last) q = q.where('id', '>', last.id);
  const rows = await q.orderBy('id').execute();
  return { result, events: rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as Envelope) };
}

const idsOfList = (page: { data: { id: string }[] }) => page.data.map((x) => x.id);
const kinds = (events: Envelope[]) => events.map((e) => e.event);

async function notificationsOf(who: Who) {
  return ok(await api(t, who, 'GET', '/v1/notifications?limit=100')).data as Record<string, any>[];
}

describe('tasks: create and read', () => {
  let ws: TestWorkspace;
  let crewLead: TestUser;
  let rita: TestUser;
  let prj: string;
  let other: string;
  before(async () => {
    ws = await newWorkspace(t);
    crewLead = await newUser(t, ws, 'manager');
    rita = await newUser(t, ws, 'standard');
    prj = await project(ws.admin);
    other = await project(ws.admin);
  });

  it('creates a task with every field: 201, Location, ETag, photos in the order given', async () => {
    const photos = [await uploadPhoto(ws.admin, prj), await uploadPhoto(ws.admin, prj), await uploadPhoto(ws.admin, prj)];
    const order = [photos[2]!, photos[0]!, photos[1]!];
    const res = await api(t, crewLead, 'POST', `/v1/projects/${prj}/tasks`, {
      title: '  Replace flashing  ', description: 'North side', assignee_id: rita.id, due_at: '2026-03-01T17:00:00Z', photo_ids: order,
    });
    const task = ok(res, 201);
    assert.match(task.id, /^tsk_[0-9a-z]{26}$/);
    assert.equal(res.headers.location, `/v1/tasks/${task.id}`);
    assert.ok(res.headers.etag);
    assert.deepEqual(task, {
      id: task.id, project_id: prj, title: 'Replace flashing', description: 'North side', status: 'open', assignee_id: rita.id,
      due_at: '2026-03-01T17:00:00.000Z', completed_at: null, completed_by: null, photo_ids: order, created_by: crewLead.id,
      created_at: task.created_at, updated_at: task.updated_at,
    });
    assert.match(task.created_at, RFC3339_MS);
    const got = await api(t, rita, 'GET', `/v1/tasks/${task.id}`);
    assert.deepEqual(ok(got), task);
    assert.equal(got.headers.etag, res.headers.etag);
    assert.equal((await api(t, rita, 'GET', `/v1/tasks/${task.id}`, undefined, { 'if-none-match': String(res.headers.etag) })).statusCode, 304);
  });

  it('defaults: open, unassigned, no description, due date or photos', async () => {
    const task = await createTask(ws.admin, prj, { title: 'x' });
    assert.deepEqual(Object.keys(task).sort(), TASK_FIELDS);
    assert.equal(task.status, 'open');
    assert.equal(task.assignee_id, null);
    assert.equal(task.description, null);
    assert.equal(task.due_at, null);
    assert.deepEqual(task.photo_ids, []);
    assert.equal((await createTask(ws.admin, prj, { title: 'T'.repeat(200) })).title, 'T'.repeat(200));
  });

  it('emits task.created alone without an assignee', async () => {
    const { result, events } = await emittedBy(ws.id, () => createTask(ws.admin, prj));
    assert.deepEqual(kinds(events), ['task.created']);
    assert.deepEqual(events[0]!.data, result);
    assert.equal(events[0]!.project_id, prj);
  });

  it('the crew lead assigns a task with a photo: task.created, task.assigned and a notification for the assignee', async () => {
    const photo = await uploadPhoto(crewLead, prj);
    const before = (await notificationsOf(rita)).length;
    const { result: task, events } = await emittedBy(ws.id, () => createTask(crewLead, prj, { assignee_id: rita.id, photo_ids: [photo] }));
    assert.deepEqual(kinds(events), ['task.created', 'task.assigned', 'notification.created']);
    assert.deepEqual(events[0]!.data, task);
    assert.deepEqual(events[1]!.data, task);
    assert.equal(events[1]!.project_id, prj);
    assert.deepEqual(events[2]!.data.subject, { type: 'task', id: task.id });
    assert.equal(events[2]!.data.user_id, rita.id);
    assert.equal(events[2]!.data.kind, 'task_assigned');
    const mine = await notificationsOf(rita);
    assert.equal(mine.length, before + 1);
    assert.deepEqual({ ...mine[0], id: undefined, created_at: undefined }, {
      id: undefined, created_at: undefined, user_id: rita.id, kind: 'task_assigned', actor_id: crewLead.id, project_id: prj,
      subject: { type: 'task', id: task.id }, comment_id: null, read_at: null,
    });
    // Nobody else heard of it.
    assert.equal((await notificationsOf(crewLead)).filter((n) => n.subject.id === task.id).length, 0);
    assert.equal((await notificationsOf(ws.admin)).filter((n) => n.subject.id === task.id).length, 0);
  });

  it('assigning oneself emits task.assigned but notifies nobody', async () => {
    const { result: task, events } = await emittedBy(ws.id, () => createTask(rita, prj, { assignee_id: rita.id }));
    assert.deepEqual(kinds(events), ['task.created', 'task.assigned']);
    assert.equal((await notificationsOf(rita)).filter((n) => n.subject.id === task.id).length, 0);
  });

  it('refuses bad bodies with 400 naming the field, never a 500', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.title'],
      [{ title: '' }, 'body.title'],
      [{ title: '   ' }, 'body.title'],
      [{ title: 'T'.repeat(201) }, 'body.title'],
      [{ title: 42 }, 'body.title'],
      [{ title: 'a\u0000b' }, 'body.title'],
      [{ title: 'ok', description: 'a\u0000b' }, 'body.description'],
      [{ title: 'ok', description: 'd'.repeat(10_001) }, 'body.description'],
      [{ title: 'ok', status: 'completed' }, 'body'],
      [{ title: 'ok', completed_by: ws.admin.id }, 'body'],
      [{ title: 'ok', assignee_id: 'rita' }, 'body.assignee_id'],
      [{ title: 'ok', due_at: 'tomorrow' }, 'body.due_at'],
      [{ title: 'ok', due_at: '2026-02-30T00:00:00Z' }, 'body.due_at'],
      [{ title: 'ok', photo_ids: 'pho_x' }, 'body.photo_ids'],
      [{ title: 'ok', photo_ids: ['nope'] }, 'body.photo_ids.0'],
    ];
    for (const [body, path] of cases) {
      const res = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, body as object);
      const problem = assertProblem(res, 400, 'validation_failed');
      assert.ok(problem.errors.some((e: { path: string }) => e.path.startsWith(path)), `${JSON.stringify(body)} → ${res.body}`);
    }
    const dup = fakeId('pho');
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title: 'ok', photo_ids: [dup, dup] }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, '{"title":', { 'content-type': 'application/json' }), 400, 'malformed_json');
  });

  it('refuses an assignee who is unknown, from another workspace, or deactivated (422), and creates nothing', async () => {
    const elsewhere = await newWorkspace(t);
    const gone = await newUser(t, ws, 'standard');
    ok(await api(t, ws.admin, 'DELETE', `/v1/users/${gone.id}`), 204);
    const cases: [string, string][] = [[fakeId('usr'), 'assignee_not_found'], [elsewhere.admin.id, 'assignee_not_found'], [gone.id, 'user_inactive']];
    for (const [assignee, code] of cases) {
      const { result: res, events } = await emittedBy(ws.id, () => api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title: 'ok', assignee_id: assignee }));
      const problem = assertProblem(res, 422, code);
      assert.deepEqual(problem.errors, [{ path: 'body.assignee_id', message: problem.errors[0].message }]);
      assert.deepEqual(events, []);
    }
  });

  it('assigns a restricted user only when they can see the project: on the crew or its creator; else 422 assignee_cannot_see_project', async () => {
    const restricted = await newUser(t, ws, 'restricted');
    const res = await api(t, ws.admin, 'POST', `/v1/projects/${other}/tasks`, { title: 'ok', assignee_id: restricted.id });
    const problem = assertProblem(res, 422, 'assignee_cannot_see_project');
    assert.match(problem.detail, new RegExp(restricted.id));
    assert.match(problem.detail, /members/);
    // Not added to the crew as a side effect.
    assert.deepEqual(ok(await api(t, ws.admin, 'GET', `/v1/projects/${other}`)).member_ids, []);
    await addMember(ws, other, restricted.id);
    assert.equal((await createTask(ws.admin, other, { assignee_id: restricted.id })).assignee_id, restricted.id);
    const theirs = await project(restricted);
    assert.equal((await createTask(ws.admin, theirs, { assignee_id: restricted.id })).assignee_id, restricted.id);
  });

  it('refuses photos of another project, another workspace or none at all (422 photo_not_in_project naming the id)', async () => {
    const elsewhere = await newWorkspace(t);
    const mine = await uploadPhoto(ws.admin, prj);
    const cases = [await uploadPhoto(ws.admin, other), await uploadPhoto(elsewhere.admin, await project(elsewhere.admin)), fakeId('pho')];
    for (const bad of cases) {
      const { result: res, events } = await emittedBy(ws.id, () => api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title: 'ok', photo_ids: [mine, bad] }));
      const problem = assertProblem(res, 422, 'photo_not_in_project');
      assert.match(problem.detail, new RegExp(bad));
      assert.deepEqual(problem.errors, [{ path: 'body.photo_ids.1', message: 'must be a photo of the same project' }]);
      assert.deepEqual(events, []);
    }
  });

  it('a deleted photo drops out of photo_ids', async () => {
    const [a, b] = [await uploadPhoto(ws.admin, prj), await uploadPhoto(ws.admin, prj)];
    const task = await createTask(ws.admin, prj, { photo_ids: [a, b] });
    ok(await api(t, ws.admin, 'DELETE', `/v1/photos/${a}`), 204);
    assert.deepEqual(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`)).photo_ids, [b]);
  });

  it('404 for a missing project, a malformed id and a missing task', async () => {
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${fakeId('prj')}/tasks`, { title: 'ok' }), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'POST', '/v1/projects/nope/tasks', { title: 'ok' }), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/tasks/${fakeId('tsk')}`), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/tasks/nope'), 404, 'not_found');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/tasks/${prj}`), 404, 'not_found');
  });
});

describe('tasks: permissions by role', () => {
  let ws: TestWorkspace;
  let manager: TestUser;
  let standard: TestUser;
  let standard2: TestUser;
  let onCrew: TestUser;
  let offCrew: TestUser;
  let prj: string;
  before(async () => {
    ws = await newWorkspace(t);
    manager = await newUser(t, ws, 'manager');
    standard = await newUser(t, ws, 'standard');
    standard2 = await newUser(t, ws, 'standard');
    onCrew = await newUser(t, ws, 'restricted');
    offCrew = await newUser(t, ws, 'restricted');
    prj = await project(ws.admin);
    await addMember(ws, prj, onCrew.id);
  });

  it('task.create: admin, manager, standard yes; restricted 403 on a project they see, 404 on one they do not', async () => {
    for (const who of [ws.admin, manager, standard]) await createTask(who, prj);
    assertProblem(await api(t, onCrew, 'POST', `/v1/projects/${prj}/tasks`, { title: 'mine' }), 403, 'forbidden');
    assertProblem(await api(t, offCrew, 'POST', `/v1/projects/${prj}/tasks`, { title: 'mine' }), 404, 'not_found');
    // Even on their own project, a restricted user does not create tasks.
    const own = await project(onCrew);
    assertProblem(await api(t, onCrew, 'POST', `/v1/projects/${own}/tasks`, { title: 'mine' }), 403, 'forbidden');
  });

  it('task.edit: admin, manager, standard yes (any task); restricted 403 (404 off the crew)', async () => {
    const task = await createTask(ws.admin, prj);
    for (const [who, title] of [[ws.admin, 'a'], [manager, 'm'], [standard, 's']] as const) {
      assert.equal(ok(await api(t, who, 'PATCH', `/v1/tasks/${task.id}`, { title })).title, title);
    }
    assertProblem(await api(t, onCrew, 'PATCH', `/v1/tasks/${task.id}`, { title: 'r' }), 403, 'forbidden');
    assertProblem(await api(t, offCrew, 'PATCH', `/v1/tasks/${task.id}`, { title: 'r' }), 404, 'not_found');
  });

  it('task.assign: admin, manager, standard yes (on create and by PATCH); restricted 403', async () => {
    for (const who of [ws.admin, manager, standard]) {
      assert.equal((await createTask(who, prj, { assignee_id: standard2.id })).assignee_id, standard2.id);
      const task = await createTask(ws.admin, prj);
      assert.equal(ok(await api(t, who, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: onCrew.id })).assignee_id, onCrew.id);
    }
    const task = await createTask(ws.admin, prj);
    assertProblem(await api(t, onCrew, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: onCrew.id }), 403, 'forbidden');
    assert.equal(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`)).assignee_id, null);
  });

  it('task.delete: admin and manager any task; standard only their own; restricted 403', async () => {
    for (const who of [ws.admin, manager]) {
      const task = await createTask(standard, prj);
      ok(await api(t, who, 'DELETE', `/v1/tasks/${task.id}`), 204);
      assertProblem(await api(t, who, 'GET', `/v1/tasks/${task.id}`), 404, 'not_found');
    }
    const others = await createTask(standard2, prj);
    assertProblem(await api(t, standard, 'DELETE', `/v1/tasks/${others.id}`), 403, 'forbidden');
    const own = await createTask(standard, prj);
    ok(await api(t, standard, 'DELETE', `/v1/tasks/${own.id}`), 204);
    const task = await createTask(ws.admin, prj, { assignee_id: onCrew.id });
    assertProblem(await api(t, onCrew, 'DELETE', `/v1/tasks/${task.id}`), 403, 'forbidden');
    assertProblem(await api(t, offCrew, 'DELETE', `/v1/tasks/${task.id}`), 404, 'not_found');
    ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`));
  });

  it('task.complete: every role that can see the project, restricted crew included; off the crew 404', async () => {
    for (const who of [ws.admin, manager, standard, onCrew]) {
      const task = await createTask(ws.admin, prj);
      const done = ok(await api(t, who, 'POST', `/v1/tasks/${task.id}/complete`));
      assert.equal(done.status, 'completed');
      assert.equal(done.completed_by, who.id);
      assert.equal(ok(await api(t, who, 'POST', `/v1/tasks/${task.id}/reopen`)).status, 'open');
    }
    const task = await createTask(ws.admin, prj);
    assertProblem(await api(t, offCrew, 'POST', `/v1/tasks/${task.id}/complete`), 404, 'not_found');
    assertProblem(await api(t, offCrew, 'POST', `/v1/tasks/${task.id}/reopen`), 404, 'not_found');
    assert.equal(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`)).status, 'open');
  });

  it('restricted users see tasks only of projects they created or are on the crew of, across projects', async () => {
    const hidden = await project(ws.admin);
    const hiddenTask = await createTask(ws.admin, hidden);
    const visibleTask = await createTask(ws.admin, prj);
    const ownProject = await project(offCrew);
    const ownTask = await createTask(ws.admin, ownProject, { assignee_id: offCrew.id });
    assertProblem(await api(t, onCrew, 'GET', `/v1/tasks/${hiddenTask.id}`), 404, 'not_found');
    assertProblem(await api(t, onCrew, 'GET', `/v1/projects/${hidden}/tasks`), 404, 'not_found');
    ok(await api(t, onCrew, 'GET', `/v1/tasks/${visibleTask.id}`));
    const seen = ok(await api(t, onCrew, 'GET', '/v1/tasks?limit=100')).data.map((x: { project_id: string }) => x.project_id);
    assert.ok(seen.length > 0);
    assert.deepEqual([...new Set(seen)], [prj]);
    // The project filter does not widen what they see.
    assert.deepEqual(ok(await api(t, onCrew, 'GET', `/v1/tasks?project_id=${hidden}`)).data, []);
    // offCrew sees their own project's task, not the crewed one.
    const theirs = ok(await api(t, offCrew, 'GET', '/v1/tasks?limit=100')).data.map((x: { id: string }) => x.id);
    assert.deepEqual(theirs, [ownTask.id]);
    ok(await api(t, offCrew, 'POST', `/v1/tasks/${ownTask.id}/complete`));
    // Taken off the crew, a restricted user loses the project's tasks at once.
    ok(await api(t, ws.admin, 'DELETE', `/v1/projects/${prj}/members/${onCrew.id}`), 204);
    assertProblem(await api(t, onCrew, 'GET', `/v1/tasks/${visibleTask.id}`), 404, 'not_found');
    await addMember(ws, prj, onCrew.id);
  });

  it('another workspace\'s tasks and projects answer 404 everywhere, exactly like missing ones', async () => {
    const elsewhere = await newWorkspace(t);
    const theirProject = await project(elsewhere.admin);
    const theirs = await createTask(elsewhere.admin, theirProject);
    const url = `/v1/tasks/${theirs.id}`;
    const attempts: [string, string, unknown?][] = [
      ['GET', url], ['PATCH', url, { title: 'x' }], ['DELETE', url], ['POST', `${url}/complete`], ['POST', `${url}/reopen`],
      ['GET', `/v1/projects/${theirProject}/tasks`], ['POST', `/v1/projects/${theirProject}/tasks`, { title: 'x' }],
    ];
    for (const [method, path, body] of attempts) {
      const res = await api(t, ws.admin, method, path, body);
      const problem = assertProblem(res, 404, 'not_found');
      const missing = await api(t, ws.admin, method, path.replace(theirs.id, fakeId('tsk')).replace(theirProject, fakeId('prj')), body);
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().title, problem.title);
    }
    assert.ok(!ok(await api(t, ws.admin, 'GET', '/v1/tasks?limit=100')).data.some((x: { id: string }) => x.id === theirs.id));
    assert.deepEqual(ok(await api(t, ws.admin, 'GET', `/v1/tasks?project_id=${theirProject}`)).data, []);
    assert.deepEqual(ok(await api(t, elsewhere.admin, 'GET', url)), theirs);
  });

  it('a read-only key reads tasks but may not complete them', async () => {
    const task = await createTask(ws.admin, prj);
    const key = ok(await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ro', read_only: true }), 201).key;
    ok(await api(t, key, 'GET', `/v1/tasks/${task.id}`));
    assertProblem(await api(t, key, 'POST', `/v1/tasks/${task.id}/complete`), 403, 'read_only_key');
  });
});

describe('tasks: edit, assign and delete', () => {
  let ws: TestWorkspace;
  let lead: TestUser;
  let rita: TestUser;
  let sam: TestUser;
  let prj: string;
  before(async () => {
    ws = await newWorkspace(t);
    lead = await newUser(t, ws, 'standard');
    rita = await newUser(t, ws, 'standard');
    sam = await newUser(t, ws, 'standard');
    prj = await project(ws.admin);
  });

  it('merge patch: missing fields unchanged, null clears; a field change emits task.updated', async () => {
    const task = await createTask(lead, prj, { description: 'd', due_at: '2026-05-01T00:00:00Z' });
    const { result, events } = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { description: null, title: ' New ' })));
    assert.deepEqual(kinds(events), ['task.updated']);
    assert.deepEqual(events[0]!.data, result);
    assert.equal(result.title, 'New');
    assert.equal(result.description, null);
    assert.equal(result.due_at, '2026-05-01T00:00:00.000Z');
    assert.ok(result.updated_at > task.updated_at);
    const cleared = ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { due_at: null }, { 'content-type': 'application/merge-patch+json' }));
    assert.equal(cleared.due_at, null);
  });

  it('a patch that changes nothing keeps updated_at and emits nothing', async () => {
    const photo = await uploadPhoto(ws.admin, prj);
    const task = await createTask(lead, prj, { title: 'Same', due_at: '2026-05-01T00:00:00.000Z', assignee_id: rita.id, photo_ids: [photo] });
    const { result, events } = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, {
      title: 'Same', due_at: '2026-05-01T00:00:00Z', assignee_id: rita.id, photo_ids: [photo], description: null,
    })));
    assert.deepEqual(events, []);
    assert.deepEqual(result, task);
    assert.deepEqual(ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, {})), task);
  });

  it('a change of assignee with other fields emits one task.assigned carrying the whole task, and notifies the new assignee', async () => {
    const task = await createTask(lead, prj, { assignee_id: rita.id });
    const { result, events } = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: sam.id, title: 'Moved' })));
    assert.deepEqual(kinds(events), ['task.assigned', 'notification.created']);
    assert.deepEqual(events[0]!.data, result);
    assert.equal(events[0]!.data.title, 'Moved');
    assert.equal(events[0]!.data.assignee_id, sam.id);
    assert.equal(events[1]!.data.user_id, sam.id);
    const samNotes = (await notificationsOf(sam)).filter((n) => n.subject.id === task.id);
    assert.equal(samNotes.length, 1);
    assert.equal(samNotes[0]!.actor_id, lead.id);
    // Rita was notified once, when first assigned, and not of being taken off.
    assert.equal((await notificationsOf(rita)).filter((n) => n.subject.id === task.id).length, 1);
  });

  it('unassigning (null) emits task.assigned with a null assignee and notifies nobody; assigning oneself notifies nobody', async () => {
    const task = await createTask(lead, prj, { assignee_id: rita.id });
    const unassigned = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: null })));
    assert.deepEqual(kinds(unassigned.events), ['task.assigned']);
    assert.equal(unassigned.events[0]!.data.assignee_id, null);
    const self = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: lead.id })));
    assert.deepEqual(kinds(self.events), ['task.assigned']);
    assert.equal(self.result.assignee_id, lead.id);
    assert.equal((await notificationsOf(lead)).filter((n) => n.subject.id === task.id).length, 0);
  });

  it('PATCH applies the assignee rules (422) and changes nothing when refused', async () => {
    const task = await createTask(lead, prj, { assignee_id: rita.id });
    const gone = await newUser(t, ws, 'standard');
    ok(await api(t, ws.admin, 'DELETE', `/v1/users/${gone.id}`), 204);
    const restricted = await newUser(t, ws, 'restricted');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: gone.id, title: 'nope' }), 422, 'user_inactive');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: restricted.id }), 422, 'assignee_cannot_see_project');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: fakeId('usr') }), 422, 'assignee_not_found');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { assignee_id: 'x' }), 400, 'validation_failed');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { status: 'completed' }), 400, 'validation_failed');
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { title: '' }), 400, 'validation_failed');
    assert.deepEqual(ok(await api(t, lead, 'GET', `/v1/tasks/${task.id}`)), task);
  });

  it('photo_ids are replaced whole, in the order given; [] clears; other projects\' photos are refused', async () => {
    const [a, b, c] = [await uploadPhoto(ws.admin, prj), await uploadPhoto(ws.admin, prj), await uploadPhoto(ws.admin, prj)];
    const task = await createTask(lead, prj, { photo_ids: [a, b] });
    const { result, events } = await emittedBy(ws.id, async () => ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { photo_ids: [c, a] })));
    assert.deepEqual(result.photo_ids, [c, a]);
    assert.deepEqual(kinds(events), ['task.updated']);
    assert.deepEqual(events[0]!.data.photo_ids, [c, a]);
    assert.deepEqual(ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { photo_ids: [a, c] })).photo_ids, [a, c]);
    const foreign = await uploadPhoto(ws.admin, await project(ws.admin));
    const problem = assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { photo_ids: [foreign] }), 422, 'photo_not_in_project');
    assert.match(problem.detail, new RegExp(foreign));
    assert.deepEqual(ok(await api(t, lead, 'GET', `/v1/tasks/${task.id}`)).photo_ids, [a, c]);
    assert.deepEqual(ok(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { photo_ids: [] })).photo_ids, []);
  });

  it('If-Match: a stale ETag is a 412 on PATCH and DELETE; the current one works', async () => {
    const task = await createTask(lead, prj);
    const etag = String((await api(t, lead, 'GET', `/v1/tasks/${task.id}`)).headers.etag);
    const changed = await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { title: 'v2' }, { 'if-match': etag });
    ok(changed);
    assertProblem(await api(t, lead, 'PATCH', `/v1/tasks/${task.id}`, { title: 'v3' }, { 'if-match': etag }), 412, 'precondition_failed');
    assertProblem(await api(t, lead, 'DELETE', `/v1/tasks/${task.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed');
    ok(await api(t, lead, 'DELETE', `/v1/tasks/${task.id}`, undefined, { 'if-match': String(changed.headers.etag) }), 204);
  });

  it('DELETE emits task.deleted with the task as it was; the task is gone', async () => {
    const task = await createTask(lead, prj, { assignee_id: rita.id });
    const { events } = await emittedBy(ws.id, async () => ok(await api(t, lead, 'DELETE', `/v1/tasks/${task.id}`), 204));
    assert.deepEqual(kinds(events), ['task.deleted']);
    assert.deepEqual(events[0]!.data, task);
    assertProblem(await api(t, lead, 'GET', `/v1/tasks/${task.id}`), 404, 'not_found');
    assertProblem(await api(t, lead, 'DELETE', `/v1/tasks/${task.id}`), 404, 'not_found');
  });

  it('deleting the project deletes its tasks', async () => {
    const doomed = await project(ws.admin);
    const task = await createTask(lead, doomed);
    ok(await api(t, ws.admin, 'DELETE', `/v1/projects/${doomed}`), 204);
    assertProblem(await api(t, lead, 'GET', `/v1/tasks/${task.id}`), 404, 'not_found');
  });
});

describe('tasks: complete and reopen', () => {
  let ws: TestWorkspace;
  let a: TestUser;
  let b: TestUser;
  let prj: string;
  before(async () => {
    ws = await newWorkspace(t);
    a = await newUser(t, ws, 'standard');
    b = await newUser(t, ws, 'restricted');
    prj = await project(ws.admin);
    await addMember(ws, prj, b.id);
  });

  it('complete sets status, completed_at and completed_by and emits task.completed; again is a no-op without an event', async () => {
    const task = await createTask(a, prj);
    const { result: done, events } = await emittedBy(ws.id, async () => ok(await api(t, b, 'POST', `/v1/tasks/${task.id}/complete`)));
    assert.deepEqual(kinds(events), ['task.completed']);
    assert.deepEqual(events[0]!.data, done);
    assert.equal(done.status, 'completed');
    assert.equal(done.completed_by, b.id);
    assert.match(done.completed_at, RFC3339_MS);
    assert.ok(done.updated_at > task.updated_at);
    const again = await emittedBy(ws.id, async () => ok(await api(t, a, 'POST', `/v1/tasks/${task.id}/complete`)));
    assert.deepEqual(again.events, []);
    assert.deepEqual(again.result, done);
  });

  it('reopen clears completion and emits task.reopened; reopening an open task is a no-op', async () => {
    const task = await createTask(a, prj);
    ok(await api(t, a, 'POST', `/v1/tasks/${task.id}/complete`));
    const { result: open, events } = await emittedBy(ws.id, async () => ok(await api(t, b, 'POST', `/v1/tasks/${task.id}/reopen`)));
    assert.deepEqual(kinds(events), ['task.reopened']);
    assert.equal(open.status, 'open');
    assert.equal(open.completed_at, null);
    assert.equal(open.completed_by, null);
    const again = await emittedBy(ws.id, async () => ok(await api(t, b, 'POST', `/v1/tasks/${task.id}/reopen`)));
    assert.deepEqual(again.events, []);
    assert.deepEqual(again.result, open);
    // And it can be completed again, by someone else.
    assert.equal(ok(await api(t, a, 'POST', `/v1/tasks/${task.id}/complete`)).completed_by, a.id);
  });

  it('two people completing at once: one completion, one completed_by, one task.completed event', async () => {
    for (let round = 0; round < 5; round++) {
      const task = await createTask(a, prj);
      const { result, events } = await emittedBy(ws.id, () => Promise.all([
        api(t, a, 'POST', `/v1/tasks/${task.id}/complete`),
        api(t, b, 'POST', `/v1/tasks/${task.id}/complete`),
      ]));
      const [first, second] = result.map((r) => ok(r));
      assert.deepEqual(first, second);
      assert.ok([a.id, b.id].includes(first.completed_by));
      assert.deepEqual(kinds(events), ['task.completed']);
      assert.deepEqual(events[0]!.data, first);
    }
  });

  it('completing and reopening a missing task is a 404; a body is refused', async () => {
    assertProblem(await api(t, a, 'POST', `/v1/tasks/${fakeId('tsk')}/complete`), 404, 'not_found');
    assertProblem(await api(t, a, 'POST', `/v1/tasks/${fakeId('tsk')}/reopen`), 404, 'not_found');
  });

  it('PATCH works on a completed task and keeps it completed', async () => {
    const task = await createTask(a, prj);
    const done = ok(await api(t, a, 'POST', `/v1/tasks/${task.id}/complete`));
    const edited = ok(await api(t, a, 'PATCH', `/v1/tasks/${task.id}`, { title: 'Renamed' }));
    assert.equal(edited.status, 'completed');
    assert.equal(edited.completed_at, done.completed_at);
  });
});

describe('tasks: lists', () => {
  let ws: TestWorkspace;
  let rita: TestUser;
  let sam: TestUser;
  let prj: string;
  let other: string;
  const made: Record<string, any>[] = [];
  before(async () => {
    ws = await newWorkspace(t);
    rita = await newUser(t, ws, 'standard');
    sam = await newUser(t, ws, 'standard');
    prj = await project(ws.admin);
    other = await project(ws.admin);
    const specs: [string | null, string | null][] = [
      ['2026-04-03T00:00:00Z', rita.id], [null, sam.id], ['2026-04-01T00:00:00Z', rita.id], ['2026-04-02T00:00:00Z', null],
      [null, rita.id], ['2026-04-01T00:00:00Z', sam.id], ['2026-04-05T00:00:00Z', null],
    ];
    for (const [dueAt, assignee] of specs) made.push(await createTask(ws.admin, prj, { due_at: dueAt, assignee_id: assignee }));
    ok(await api(t, ws.admin, 'POST', `/v1/tasks/${made[0]!.id}/complete`));
    ok(await api(t, ws.admin, 'POST', `/v1/tasks/${made[5]!.id}/complete`));
    await createTask(ws.admin, other, { due_at: '2026-04-01T00:00:00Z', assignee_id: rita.id });
  });

  /** Every page, following next_cursor and the Link header. */
  async function walk(url: string, limit: number) {
    const ids: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const sep = url.includes('?') ? '&' : '?';
      const res = await api(t, ws.admin, 'GET', `${url}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const page = ok(res);
      ids.push(...page.data.map((x: { id: string }) => x.id));
      if (!page.has_more) {
        assert.equal(page.next_cursor, null);
        assert.equal(res.headers.link, undefined);
        return ids;
      }
      assert.match(String(res.headers.link), /rel="next"$/);
      cursor = page.next_cursor;
    }
    throw new Error('too many pages');
  }

  const idsOf = (res: Response) => ok(res).data.map((x: { id: string }) => x.id);
  const byIndex = (...indexes: number[]) => indexes.map((i) => made[i]!.id);

  it('a project\'s tasks, newest first, across pages of every size', async () => {
    const newestFirst = [...made].reverse().map((x) => x.id);
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks`)), newestFirst);
    for (const limit of [1, 2, 3, 7, 100]) assert.deepEqual(await walk(`/v1/projects/${prj}/tasks`, limit), newestFirst);
    assert.deepEqual(await walk(`/v1/tasks?project_id=${prj}`, 2), newestFirst);
  });

  it('sort=due_at: soonest first, undated last, ties by id; cursors page through it', async () => {
    const expected = byIndex(2, 5, 3, 0, 6, 1, 4);
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?sort=due_at`)), expected);
    for (const limit of [1, 2, 3, 5]) assert.deepEqual(await walk(`/v1/projects/${prj}/tasks?sort=due_at`, limit), expected);
  });

  it('a page never skips or repeats a task inserted during the scan', async () => {
    const first = ok(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?sort=due_at&limit=3`));
    const inserted = await createTask(ws.admin, prj, { due_at: '2026-04-01T00:00:00Z' });
    const restPage = ok(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?sort=due_at&limit=100&cursor=${encodeURIComponent(first.next_cursor)}`));
    const seen = [...first.data, ...restPage.data].map((x: { id: string }) => x.id);
    assert.equal(new Set(seen).size, seen.length);
    for (const id of made.map((x) => x.id)) assert.ok(seen.includes(id));
    ok(await api(t, ws.admin, 'DELETE', `/v1/tasks/${inserted.id}`), 204);
  });

  it('filters: assignee_id, status, due_before (exclusive), due_after (inclusive), combined', async () => {
    const url = `/v1/projects/${prj}/tasks?sort=due_at`;
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&assignee_id=${rita.id}`)), byIndex(2, 0, 4));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&status=completed`)), byIndex(5, 0));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&status=open`)), byIndex(2, 3, 6, 1, 4));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&due_before=2026-04-03T00:00:00Z`)), byIndex(2, 5, 3));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&due_after=2026-04-03T00:00:00Z`)), byIndex(0, 6));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&due_after=2026-04-02T00:00:00Z&due_before=2026-04-05T00:00:00Z&status=open`)), byIndex(3));
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `${url}&assignee_id=${rita.id}&status=open`)), byIndex(2, 4));
    // Across projects: rita's tasks in both projects, soonest first.
    const all = ok(await api(t, ws.admin, 'GET', `/v1/tasks?assignee_id=${rita.id}&sort=due_at&due_before=2026-04-02T00:00:00Z`)).data;
    assert.deepEqual(all.map((x: { project_id: string }) => x.project_id).sort(), [other, prj].sort());
    assert.deepEqual(idsOf(await api(t, ws.admin, 'GET', `/v1/tasks?assignee_id=${fakeId('usr')}`)), []);
  });

  it('refuses bad filters, sorts and cursors with 400', async () => {
    for (const query of ['status=done', 'due_before=soon', 'due_after=2026-13-01T00:00:00Z', 'project_id=prj_x', 'assignee_id=rita', 'sort=title', 'limit=0', 'limit=101', 'color=red']) {
      assertProblem(await api(t, ws.admin, 'GET', `/v1/tasks?${query}`), 400, 'validation_failed');
    }
    assertProblem(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?project_id=${prj}`), 400, 'validation_failed');
    const createdCursor = ok(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?limit=1`)).next_cursor;
    assertProblem(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?sort=due_at&cursor=${createdCursor}`), 400, 'invalid_cursor');
    for (const cursor of ['garbage', cursorOf('due_at', ['yesterday', made[0]!.id]), cursorOf('due_at', [made[0]!.id]), cursorOf('created_at', [42])]) {
      const sort = cursor === 'garbage' ? '' : `&sort=${JSON.parse(Buffer.from(cursor, 'base64url').toString()).s}`;
      assertProblem(await api(t, ws.admin, 'GET', `/v1/tasks?cursor=${cursor}${sort}`), 400, 'invalid_cursor');
    }
    // An undated position is a valid due_at cursor.
    const tail = ok(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/tasks?sort=due_at&cursor=${cursorOf('due_at', [null, made[1]!.id])}`));
    assert.deepEqual(tail.data.map((x: { id: string }) => x.id), byIndex(4));
  });
});

describe('tasks and users', () => {
  let ws: TestWorkspace;
  let prj: string;
  before(async () => {
    ws = await newWorkspace(t);
    prj = await project(ws.admin);
  });

  it('deactivating a user (DELETE) unassigns their open tasks, each with task.assigned, in the same change as user.removed', async () => {
    const leaving = await newUser(t, ws, 'standard');
    const other = await project(ws.admin);
    const open1 = await createTask(ws.admin, prj, { assignee_id: leaving.id });
    const open2 = await createTask(ws.admin, other, { assignee_id: leaving.id });
    const done = await createTask(ws.admin, prj, { assignee_id: leaving.id });
    ok(await api(t, ws.admin, 'POST', `/v1/tasks/${done.id}/complete`));
    const someoneElses = await createTask(ws.admin, prj, { assignee_id: ws.admin.id });
    const { events } = await emittedBy(ws.id, async () => ok(await api(t, ws.admin, 'DELETE', `/v1/users/${leaving.id}`), 204));
    assert.deepEqual(kinds(events), ['task.assigned', 'task.assigned', 'user.removed']);
    assert.deepEqual(events.slice(0, 2).map((e) => e.data.id).sort(), [open1.id, open2.id].sort());
    for (const e of events.slice(0, 2)) {
      assert.equal(e.data.assignee_id, null);
      assert.equal(e.project_id, e.data.project_id);
      assert.deepEqual(e.data, ok(await api(t, ws.admin, 'GET', `/v1/tasks/${e.data.id}`)));
    }
    // Completed tasks keep who was assigned; others' tasks are untouched.
    assert.equal(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${done.id}`)).assignee_id, leaving.id);
    assert.deepEqual(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${someoneElses.id}`)), someoneElses);
    assert.deepEqual(idsOfList(ok(await api(t, ws.admin, 'GET', `/v1/tasks?assignee_id=${leaving.id}&status=open`))), []);
    // They cannot be assigned again while deactivated.
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/tasks/${open1.id}`, { assignee_id: leaving.id }), 422, 'user_inactive');
    // Deactivating again changes nothing and emits nothing.
    const again = await emittedBy(ws.id, async () => ok(await api(t, ws.admin, 'DELETE', `/v1/users/${leaving.id}`), 204));
    assert.deepEqual(again.events, []);
  });

  it('deactivating by PATCH status unassigns the same way', async () => {
    const leaving = await newUser(t, ws, 'manager');
    const task = await createTask(ws.admin, prj, { assignee_id: leaving.id });
    const { events } = await emittedBy(ws.id, async () => ok(await api(t, ws.admin, 'PATCH', `/v1/users/${leaving.id}`, { status: 'deactivated' })));
    assert.deepEqual(kinds(events), ['task.assigned', 'user.removed']);
    assert.equal(events[0]!.data.id, task.id);
    assert.equal(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`)).assignee_id, null);
  });

  it('a refused deactivation (last admin) unassigns nothing', async () => {
    const task = await createTask(ws.admin, prj, { assignee_id: ws.admin.id });
    const { result, events } = await emittedBy(ws.id, () => api(t, ws.admin, 'DELETE', `/v1/users/${ws.admin.id}`));
    assertProblem(result, 422, 'last_admin');
    assert.deepEqual(events, []);
    assert.equal(ok(await api(t, ws.admin, 'GET', `/v1/tasks/${task.id}`)).assignee_id, ws.admin.id);
  });

  it('changing a role emits user.updated with the new role', async () => {
    const user = await newUser(t, ws, 'standard');
    const { result, events } = await emittedBy(ws.id, async () => ok(await api(t, ws.admin, 'PATCH', `/v1/users/${user.id}`, { role: 'restricted' })));
    assert.deepEqual(kinds(events), ['user.updated']);
    assert.equal(events[0]!.data.role, 'restricted');
    assert.deepEqual(events[0]!.data, result);
    // Now restricted and not on the crew: no longer a valid assignee for the project.
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title: 'x', assignee_id: user.id }), 422, 'assignee_cannot_see_project');
  });
});

describe('tasks in the OpenAPI document', () => {
  it('documents every task route, the Task schema, its events and the 422s', async () => {
    const doc = ok(await api(t, null, 'GET', '/v1/openapi.json'));
    for (const [path, methods] of Object.entries({
      '/v1/projects/{id}/tasks': ['get', 'post'], '/v1/tasks': ['get'], '/v1/tasks/{id}': ['get', 'patch', 'delete'],
      '/v1/tasks/{id}/complete': ['post'], '/v1/tasks/{id}/reopen': ['post'],
    })) {
      for (const method of methods) assert.ok(doc.paths[path]?.[method], `${method} ${path}`);
    }
    assert.deepEqual(Object.keys(doc.components.schemas.Task.properties).sort(), TASK_FIELDS);
    for (const event of ['task.created', 'task.assigned', 'task.completed', 'task.reopened', 'task.updated', 'task.deleted']) {
      assert.equal(doc.webhooks[event].post.requestBody.content['application/json'].schema.properties.data.$ref, '#/components/schemas/Task', event);
    }
    assert.ok(doc.paths['/v1/tasks/{id}'].patch.responses['422'], 'PATCH documents 422');
    assert.ok(doc.paths['/v1/projects/{id}/tasks'].post.responses['422'], 'POST documents 422');
    for (const code of ['assignee_not_found', 'assignee_cannot_see_project', 'photo_not_in_project', 'user_inactive']) {
      assert.match(doc.info.description, new RegExp(`\`${code}\``));
    }
  });
});
