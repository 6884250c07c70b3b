import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { newId } from '../src/ids.ts';
import { smallJpeg } from './fixtures/images.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { eventually, Receiver, startWebhookDispatcher } from './webhook-receiver.ts';

let t: TestContext;
let receiver: Receiver;
let dispatcher: WebhookDispatcher;

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' });
  receiver = await Receiver.start();
  dispatcher = await startWebhookDispatcher(t);
});

after(async () => {
  await dispatcher?.stop();
  await receiver?.close();
  await t?.close();
});

type Who = { key: string };
type Res = { statusCode: number; body: string; json(): any; headers: Record<string, unknown> };

const suffix = () => crypto.randomBytes(3).toString('hex');

function assertStatus(res: Res, status: number, code?: string) {
  assert.equal(res.statusCode, status, res.body);
  if (code) assert.equal(res.json().code, code, res.body);
}

async function project(ws: TestWorkspace, who: Who = ws.admin): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${suffix()}` });
  assertStatus(res, 201);
  return res.json().id;
}

async function addMember(ws: TestWorkspace, projectId: string, user: TestUser) {
  assertStatus(await api(t, ws.admin, 'PUT', `/v1/projects/${projectId}/members/${user.id}`), 200);
}

async function photo(who: Who, projectId: string): Promise<string> {
  const { payload, headers } = multipart({}, { data: await smallJpeg() });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assertStatus(res, 201);
  return res.json().id;
}

/** A task written straight into its table: comments read tasks with SQL and do not need the tasks API. */
async function task(ws: TestWorkspace, projectId: string, assigneeId: string | null = null): Promise<string> {
  const id = newId('task');
  await t.db.insertInto('tasks').values({
    id, workspace_id: ws.id, project_id: projectId, title: `Task ${suffix()}`, created_by: ws.admin.id, assignee_id: assigneeId,
  }).execute();
  return id;
}

async function comment(who: Who, path: string, body: string) {
  const res = await api(t, who, 'POST', `${path}/comments`, { body });
  assertStatus(res, 201);
  return res.json();
}

async function notificationsOf(who: Who, query = '') {
  const res = await api(t, who, 'GET', `/v1/notifications${query}`);
  assertStatus(res, 200);
  return res.json().data as any[];
}

async function eventsOf(ws: TestWorkspace, event: string) {
  const res = await api(t, ws.admin, 'GET', `/v1/events?event=${event}&limit=100`);
  assertStatus(res, 200);
  return res.json().data as any[];
}

const userWith = (ws: TestWorkspace, role: TestUser['role'], handle: string) => newUser(t, ws, role, { handle });

describe('a comment with @rita', () => {
  it('notifies Rita and no one else, with a notification.created event and webhook', async () => {
    const ws = await newWorkspace(t);
    const rita = await userWith(ws, 'standard', 'rita');
    const joe = await userWith(ws, 'standard', 'joe');
    const restricted = await userWith(ws, 'restricted', 'rex');
    const prj = await project(ws);
    const hook = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url(`/rita-${ws.id}`), events: ['notification.created', 'comment.*'] });
    assertStatus(hook, 201);

    const res = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/comments`, { body: '@rita, can you check the rebar? (mail joe@example.com for the delivery)' });
    assertStatus(res, 201);
    const c = res.json();
    assert.equal(res.headers.location, `/v1/comments/${c.id}`);
    assert.match(c.id, /^cmt_/);
    assert.deepEqual(Object.keys(c).sort(), ['author_id', 'body', 'created_at', 'id', 'mentions', 'project_id', 'subject', 'updated_at']);
    assert.deepEqual(c.subject, { type: 'project', id: prj });
    assert.equal(c.project_id, prj);
    assert.equal(c.author_id, ws.admin.id);
    assert.deepEqual(c.mentions, [{ user_id: rita.id, handle: 'rita' }]);

    const [n, ...more] = await notificationsOf(rita);
    assert.equal(more.length, 0);
    assert.equal(n.kind, 'mention');
    assert.equal(n.user_id, rita.id);
    assert.equal(n.actor_id, ws.admin.id);
    assert.equal(n.project_id, prj);
    assert.deepEqual(n.subject, { type: 'comment', id: c.id });
    assert.equal(n.comment_id, c.id);
    assert.equal(n.read_at, null);
    for (const other of [ws.admin, joe, restricted]) assert.deepEqual(await notificationsOf(other), []);

    const created = await eventsOf(ws, 'notification.created');
    assert.equal(created.length, 1);
    assert.deepEqual(created[0].data, n);
    assert.equal(created[0].project_id, prj);
    const commentEvents = await eventsOf(ws, 'comment.created');
    assert.equal(commentEvents.length, 1);
    assert.deepEqual(commentEvents[0].data, c);
    assert.ok(commentEvents[0].id < created[0].id, 'comment.created comes before the notification it causes');

    const delivered = await eventually('the notification webhook', () => {
      const bodies = receiver.received.filter((r) => r.path === `/rita-${ws.id}`).map((r) => JSON.parse(r.body));
      return bodies.length >= 2 ? bodies : undefined;
    });
    await dispatcher.idle();
    const all = receiver.received.filter((r) => r.path === `/rita-${ws.id}`).map((r) => JSON.parse(r.body));
    assert.deepEqual(all.map((b) => b.event).sort(), ['comment.created', 'notification.created']);
    const pushed = delivered.find((b) => b.event === 'notification.created');
    assert.equal(pushed.data.user_id, rita.id);
    assert.equal(pushed.data.kind, 'mention');
    assert.deepEqual(pushed.data.subject, { type: 'comment', id: c.id });
  });
});

describe('mentions', () => {
  it('resolve only active users of the workspace who can see the project, case-insensitively, once each', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const rita = await userWith(ws, 'standard', 'Rita');
    const dee = await userWith(ws, 'manager', 'dee');
    const rosa = await userWith(ws, 'restricted', 'rosa'); // not on the crew
    const rex = await userWith(ws, 'restricted', 'rex'); // on the crew
    const olga = await userWith(other, 'admin', 'olga'); // another workspace
    const prj = await project(ws);
    await addMember(ws, prj, rex);
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/users/${dee.id}`), 204);

    const c = await comment(ws.admin, `/v1/projects/${prj}`,
      `@RITA and @rita again; @dee is gone, @rosa can't see it, @olga is elsewhere, @nobody exists, rita@example.com is mail. @rex. @${ws.admin.handle} is me.`);
    assert.deepEqual(c.mentions, [{ user_id: rita.id, handle: 'Rita' }, { user_id: rex.id, handle: 'rex' }, { user_id: ws.admin.id, handle: ws.admin.handle }]);
    assert.equal((await notificationsOf(rita)).length, 1);
    assert.equal((await notificationsOf(rex)).length, 1);
    for (const none of [dee, rosa, ws.admin]) {
      const count = await t.db.selectFrom('notifications').select((eb) => eb.fn.countAll<string>().as('n')).where('user_id', '=', none.id).executeTakeFirstOrThrow();
      assert.equal(Number(count.n), 0, `${none.handle} is not notified`);
    }
    assert.deepEqual(await notificationsOf(olga), []);
    assert.equal((await eventsOf(ws, 'notification.created')).length, 2);
    assert.equal((await eventsOf(other, 'notification.created')).length, 0);
  });

  it('on an edit, notify only users newly mentioned', async () => {
    const ws = await newWorkspace(t);
    const rita = await userWith(ws, 'standard', 'rita');
    const joe = await userWith(ws, 'standard', 'joe');
    const ann = await userWith(ws, 'standard', 'ann');
    const prj = await project(ws);
    const c = await comment(ws.admin, `/v1/projects/${prj}`, 'first @rita');

    const edited = await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'first @rita, then @joe' });
    assertStatus(edited, 200);
    assert.deepEqual(edited.json().mentions, [{ user_id: rita.id, handle: 'rita' }, { user_id: joe.id, handle: 'joe' }]);
    assert.notEqual(edited.json().updated_at, c.updated_at);
    assert.equal(edited.json().created_at, c.created_at);
    assert.equal((await notificationsOf(rita)).length, 1);
    assert.equal((await notificationsOf(joe)).length, 1);

    // "Newly" is against the version edited: still mentioned is not newly mentioned; dropped and mentioned again is.
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'only @ann now' }), 200);
    assert.equal((await notificationsOf(ann)).length, 1);
    assert.equal((await notificationsOf(rita)).length, 1);
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'only @ann now, really' }), 200);
    assert.equal((await notificationsOf(ann)).length, 1, 'still mentioned, not newly');
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: '@ann and @rita after all' }), 200);
    assert.equal((await notificationsOf(rita)).length, 2, 'mentioned again after an edit dropped her');
    assert.equal((await notificationsOf(ann)).length, 1);
    assert.equal((await notificationsOf(joe)).length, 1);

    const updates = await eventsOf(ws, 'comment.updated');
    assert.equal(updates.length, 4);
    assert.equal(updates[0].data.body, '@ann and @rita after all');
  });

  it('stop at 50 users per comment', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const handles: string[] = [];
    for (let i = 0; i < 52; i++) {
      const u = await userWith(ws, 'standard', `crew${i}`);
      handles.push(u.handle);
    }
    const c = await comment(ws.admin, `/v1/projects/${prj}`, handles.map((h) => `@${h}`).join(' '));
    assert.equal(c.mentions.length, 50);
    assert.deepEqual(c.mentions.map((m: any) => m.handle), handles.slice(0, 50));
    assert.equal((await eventsOf(ws, 'notification.created')).length, 50);
  });
});

describe('comments on tasks', () => {
  it('notify the assignee (task_comment) unless they wrote it; a mention of the assignee is one notification', async () => {
    const ws = await newWorkspace(t);
    const joe = await userWith(ws, 'standard', 'joe');
    const rita = await userWith(ws, 'standard', 'rita');
    const prj = await project(ws);
    const tsk = await task(ws, prj, joe.id);

    const c1 = await comment(rita, `/v1/tasks/${tsk}`, 'Done with the framing?');
    assert.deepEqual(c1.subject, { type: 'task', id: tsk });
    let joes = await notificationsOf(joe);
    assert.equal(joes.length, 1);
    assert.equal(joes[0].kind, 'task_comment');
    assert.deepEqual(joes[0].subject, { type: 'comment', id: c1.id });
    assert.equal(joes[0].comment_id, c1.id);
    assert.equal(joes[0].actor_id, rita.id);

    await comment(joe, `/v1/tasks/${tsk}`, 'Yes, all done');
    assert.equal((await notificationsOf(joe)).length, 1, 'the assignee is not notified of their own comment');

    const c3 = await comment(rita, `/v1/tasks/${tsk}`, '@joe please upload a photo');
    joes = await notificationsOf(joe);
    assert.equal(joes.length, 2);
    assert.equal(joes[0].kind, 'mention');
    assert.equal(joes[0].comment_id, c3.id);
    assert.equal((await eventsOf(ws, 'notification.created')).length, 2);

    const unassigned = await task(ws, prj, null);
    await comment(rita, `/v1/tasks/${unassigned}`, 'Nobody owns this');
    assert.equal((await eventsOf(ws, 'notification.created')).length, 2);
  });

  it('follow the task API: the current assignee is notified, and deleting the task deletes its comments', async () => {
    const ws = await newWorkspace(t);
    const joe = await userWith(ws, 'standard', 'joe');
    const rita = await userWith(ws, 'standard', 'rita');
    const prj = await project(ws);
    const created = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/tasks`, { title: 'Pour the slab', assignee_id: joe.id });
    assertStatus(created, 201);
    const tsk = created.json().id;
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/tasks/${tsk}`, { assignee_id: rita.id }), 200);
    const c = await comment(ws.admin, `/v1/tasks/${tsk}`, 'Concrete arrives at 7');
    const ritas = await notificationsOf(rita);
    assert.deepEqual(ritas.map((n) => n.kind).sort(), ['task_assigned', 'task_comment']);
    assert.equal(ritas.find((n) => n.kind === 'task_comment').comment_id, c.id);
    assert.deepEqual((await notificationsOf(joe)).map((n) => n.kind), ['task_assigned'], 'the former assignee is not notified');

    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/tasks/${tsk}`), 204);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${c.id}`), 404);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/tasks/${tsk}/comments`), 404, 'not_found');
    assert.deepEqual((await notificationsOf(rita)).map((n) => n.kind), ['task_assigned']);
  });

  it('do not notify an assignee who can no longer see the project or was deactivated', async () => {
    const ws = await newWorkspace(t);
    const rex = await userWith(ws, 'restricted', 'rex');
    const dee = await userWith(ws, 'standard', 'dee');
    const prj = await project(ws);
    await addMember(ws, prj, rex);
    const rexTask = await task(ws, prj, rex.id);
    const deeTask = await task(ws, prj, dee.id);
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/projects/${prj}/members/${rex.id}`), 204);
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/users/${dee.id}`), 204);
    // Deactivation may unassign open tasks; put the assignee back to test the rule here.
    await t.db.updateTable('tasks').set({ assignee_id: dee.id }).where('id', '=', deeTask).execute();
    await comment(ws.admin, `/v1/tasks/${rexTask}`, 'Anyone?');
    await comment(ws.admin, `/v1/tasks/${deeTask}`, 'Anyone?');
    assert.equal((await eventsOf(ws, 'notification.created')).length, 0);
  });
});

describe('who may comment, and where', () => {
  it('restricted users read and write comments on their projects, their photos and tasks, and get 404 elsewhere', async () => {
    const ws = await newWorkspace(t);
    const rex = await userWith(ws, 'restricted', 'rex');
    const mine = await project(ws);
    await addMember(ws, mine, rex);
    const own = await project(ws, rex); // created by rex, not crewed
    const elsewhere = await project(ws);
    for (const prj of [mine, own]) {
      const subjects = [`/v1/projects/${prj}`, `/v1/photos/${await photo(ws.admin, prj)}`, `/v1/tasks/${await task(ws, prj)}`];
      for (const path of subjects) {
        const c = await comment(rex, path, 'seen');
        const list = await api(t, rex, 'GET', `${path}/comments`);
        assertStatus(list, 200);
        assert.deepEqual(list.json().data.map((x: any) => x.id), [c.id]);
        assertStatus(await api(t, rex, 'GET', `/v1/comments/${c.id}`), 200);
      }
    }
    const hidden = [`/v1/projects/${elsewhere}`, `/v1/photos/${await photo(ws.admin, elsewhere)}`, `/v1/tasks/${await task(ws, elsewhere)}`];
    for (const path of hidden) {
      const c = await comment(ws.admin, path, 'not for rex');
      assertStatus(await api(t, rex, 'GET', `${path}/comments`), 404, 'not_found');
      assertStatus(await api(t, rex, 'POST', `${path}/comments`, { body: 'hello?' }), 404, 'not_found');
      assertStatus(await api(t, rex, 'GET', `/v1/comments/${c.id}`), 404, 'not_found');
      assertStatus(await api(t, rex, 'PATCH', `/v1/comments/${c.id}`, { body: 'x' }), 404, 'not_found');
      assertStatus(await api(t, rex, 'DELETE', `/v1/comments/${c.id}`), 404, 'not_found');
    }
    // The 404 names what was asked for, exactly as for a missing one.
    const res = await api(t, rex, 'GET', `${hidden[1]}/comments`);
    assert.match(res.json().detail, /No photo with id/);
    // Taken off the crew, rex no longer sees even their own comments there.
    const c = await comment(rex, `/v1/projects/${mine}`, 'mine');
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/projects/${mine}/members/${rex.id}`), 204);
    assertStatus(await api(t, rex, 'GET', `/v1/comments/${c.id}`), 404);
    assertStatus(await api(t, rex, 'PATCH', `/v1/comments/${c.id}`, { body: 'edit' }), 404);
  });

  it('another workspace answers 404 everywhere, as do missing and malformed ids', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const prj = await project(ws);
    const subjects = [`/v1/projects/${prj}`, `/v1/photos/${await photo(ws.admin, prj)}`, `/v1/tasks/${await task(ws, prj)}`];
    for (const path of subjects) {
      const c = await comment(ws.admin, path, 'ours');
      for (const [method, url, body] of [
        ['GET', `${path}/comments`], ['POST', `${path}/comments`, { body: 'theirs' }],
        ['GET', `/v1/comments/${c.id}`], ['PATCH', `/v1/comments/${c.id}`, { body: 'x' }], ['DELETE', `/v1/comments/${c.id}`],
      ] as const) {
        assertStatus(await api(t, other.admin, method, url, body), 404, 'not_found');
      }
    }
    const missing = [`/v1/projects/prj_${'0'.repeat(26)}`, `/v1/photos/pho_${'0'.repeat(26)}`, `/v1/tasks/tsk_${'0'.repeat(26)}`, '/v1/projects/nope', '/v1/tasks/tsk_bad'];
    for (const path of missing) {
      assertStatus(await api(t, ws.admin, 'GET', `${path}/comments`), 404, 'not_found');
      assertStatus(await api(t, ws.admin, 'POST', `${path}/comments`, { body: 'x' }), 404, 'not_found');
    }
    for (const id of [`cmt_${'0'.repeat(26)}`, 'cmt_x', prj]) assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${id}`), 404, 'not_found');
    assert.equal((await eventsOf(other, 'comment.created')).length, 0);
  });

  it('every role comments; authors edit and delete their own; admins and managers delete any; others 403', async () => {
    const ws = await newWorkspace(t);
    const users = {
      admin: ws.admin,
      manager: await newUser(t, ws, 'manager'),
      standard: await newUser(t, ws, 'standard'),
      restricted: await newUser(t, ws, 'restricted'),
    };
    const prj = await project(ws);
    await addMember(ws, prj, users.restricted);
    const path = `/v1/projects/${prj}`;
    const expectedDelete = { admin: 204, manager: 204, standard: 403, restricted: 403 } as const;

    for (const [role, actor] of Object.entries(users) as [keyof typeof users, TestUser][]) {
      // comment.create: yes for every role
      const own = await comment(actor, path, `by the ${role}`);
      // comment.edit: own only, every role
      const edited = await api(t, actor, 'PATCH', `/v1/comments/${own.id}`, { body: `by the ${role}, edited` });
      assertStatus(edited, 200);
      assert.equal(edited.json().body, `by the ${role}, edited`);
      for (const author of Object.values(users).filter((u) => u !== actor)) {
        const theirs = await comment(author, path, 'someone else');
        assertStatus(await api(t, actor, 'PATCH', `/v1/comments/${theirs.id}`, { body: 'hijacked' }), 403, 'forbidden');
        // comment.delete: own for everyone; any for admin and manager
        assertStatus(await api(t, actor, 'DELETE', `/v1/comments/${theirs.id}`), expectedDelete[role], expectedDelete[role] === 403 ? 'forbidden' : undefined);
        const after = await api(t, author, 'GET', `/v1/comments/${theirs.id}`);
        assertStatus(after, expectedDelete[role] === 204 ? 404 : 200);
        if (after.statusCode === 200) assert.equal(after.json().body, 'someone else');
      }
      assertStatus(await api(t, actor, 'DELETE', `/v1/comments/${own.id}`), 204);
      assertStatus(await api(t, actor, 'GET', `/v1/comments/${own.id}`), 404);
    }
  });

  it('a read-only key reads comments but does not write them', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const c = await comment(ws.admin, `/v1/projects/${prj}`, 'hello');
    const key = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'ro', read_only: true });
    assertStatus(key, 201);
    const ro = key.json().key as string;
    assertStatus(await api(t, ro, 'GET', `/v1/projects/${prj}/comments`), 200);
    assertStatus(await api(t, ro, 'POST', `/v1/projects/${prj}/comments`, { body: 'no' }), 403, 'read_only_key');
    assertStatus(await api(t, ro, 'DELETE', `/v1/comments/${c.id}`), 403, 'read_only_key');
  });
});

describe('the comment resource', () => {
  it('lists oldest first per subject, pages without repeats or gaps, and keeps subjects apart', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const pho = await photo(ws.admin, prj);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await comment(ws.admin, `/v1/projects/${prj}`, `comment ${i}`)).id);
    const onPhoto = await comment(ws.admin, `/v1/photos/${pho}`, 'on the photo');
    assert.deepEqual(onPhoto.subject, { type: 'photo', id: pho });
    assert.equal(onPhoto.project_id, prj);

    const seen: string[] = [];
    let url = `/v1/projects/${prj}/comments?limit=2`;
    for (let pages = 0; ; pages++) {
      const res = await api(t, ws.admin, 'GET', url);
      assertStatus(res, 200);
      const page = res.json();
      seen.push(...page.data.map((c: any) => c.id));
      if (!page.has_more) {
        assert.equal(page.next_cursor, null);
        break;
      }
      assert.match(String(res.headers.link), /rel="next"/);
      url = `/v1/projects/${prj}/comments?limit=2&cursor=${page.next_cursor}`;
      assert.ok(pages < 5);
    }
    assert.deepEqual(seen, made);
    const photoList = await api(t, ws.admin, 'GET', `/v1/photos/${pho}/comments`);
    assert.deepEqual(photoList.json().data.map((c: any) => c.id), [onPhoto.id]);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/comments?cursor=bogus`), 400, 'invalid_cursor');
  });

  it('validates the body', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const path = `/v1/projects/${prj}/comments`;
    assertStatus(await api(t, ws.admin, 'POST', path, { body: '' }), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'POST', path, { body: ' \n\t ' }), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'POST', path, { body: 'a\u0000b' }), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'POST', path, { body: 'x'.repeat(10_001) }), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'POST', path, {}), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'POST', path, { body: 'hi', author_id: ws.admin.id }), 400, 'validation_failed');
    const long = await api(t, ws.admin, 'POST', path, { body: '🙂'.repeat(10_000) });
    assertStatus(long, 201);
    const c = long.json();
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: '  ' }), 400, 'validation_failed');
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'x', mentions: [] }), 400, 'validation_failed');
  });

  it('carries an ETag, honours If-Match, and emits comment.updated and comment.deleted', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const c = await comment(ws.admin, `/v1/projects/${prj}`, 'v1');
    const got = await api(t, ws.admin, 'GET', `/v1/comments/${c.id}`);
    assertStatus(got, 200);
    assert.deepEqual(got.json(), c);
    const etag = String(got.headers.etag);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${c.id}`, undefined, { 'if-none-match': etag }), 304);

    // The same body changes nothing.
    const same = await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'v1' });
    assertStatus(same, 200);
    assert.equal(same.json().updated_at, c.updated_at);
    assert.equal((await eventsOf(ws, 'comment.updated')).length, 0);

    const v2 = await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'v2' }, { 'if-match': etag });
    assertStatus(v2, 200);
    assertStatus(await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'v3' }, { 'if-match': etag }), 412, 'precondition_failed');
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/comments/${c.id}`, undefined, { 'if-match': etag }), 412, 'precondition_failed');
    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/comments/${c.id}`, undefined, { 'if-match': String(v2.headers.etag) }), 204);

    const [updated] = await eventsOf(ws, 'comment.updated');
    assert.deepEqual(updated.data, v2.json());
    const [deleted] = await eventsOf(ws, 'comment.deleted');
    assert.deepEqual(deleted.data, v2.json());
    assert.equal(deleted.project_id, prj);
  });

  it('never fails with a 500 when its photo is deleted at the same time', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    for (let round = 0; round < 3; round++) {
      const pho = await photo(ws.admin, prj);
      const [deleted, ...posted] = await Promise.all([
        api(t, ws.admin, 'DELETE', `/v1/photos/${pho}`),
        ...Array.from({ length: 4 }, (_, i) => api(t, ws.admin, 'POST', `/v1/photos/${pho}/comments`, { body: `race ${i}` })),
      ]);
      assertStatus(deleted!, 204);
      for (const res of posted) assert.ok(res.statusCode === 201 || res.statusCode === 404, res.body);
      for (const res of posted.filter((r) => r.statusCode === 404)) assert.equal(res.json().code, 'not_found');
      const left = await t.db.selectFrom('comments').select('id').where('photo_id', '=', pho).execute();
      assert.deepEqual(left, [], 'no comment outlives its photo');
    }
  });

  it('goes with its photo or task, and takes its notifications with it when deleted', async () => {
    const ws = await newWorkspace(t);
    const rita = await userWith(ws, 'standard', 'rita');
    const prj = await project(ws);
    const pho = await photo(ws.admin, prj);
    const tsk = await task(ws, prj);
    const onPhoto = await comment(ws.admin, `/v1/photos/${pho}`, 'photo @rita');
    const onTask = await comment(ws.admin, `/v1/tasks/${tsk}`, 'task @rita');
    const onProject = await comment(ws.admin, `/v1/projects/${prj}`, 'project @rita');
    assert.equal((await notificationsOf(rita)).length, 3);

    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/photos/${pho}`), 204);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${onPhoto.id}`), 404);
    await t.db.deleteFrom('tasks').where('id', '=', tsk).execute();
    assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${onTask.id}`), 404);
    assertStatus(await api(t, ws.admin, 'GET', `/v1/comments/${onProject.id}`), 200);
    assert.deepEqual((await notificationsOf(rita)).map((n) => n.comment_id), [onProject.id]);

    assertStatus(await api(t, ws.admin, 'DELETE', `/v1/comments/${onProject.id}`), 204);
    assert.deepEqual(await notificationsOf(rita), []);
    const left = await t.db.selectFrom('comments').select('id').where('workspace_id', '=', ws.id).execute();
    assert.deepEqual(left, []);
  });
});

describe('the OpenAPI document', () => {
  it('has the comment routes, the Comment schema, and comment events carrying it', async () => {
    const res = await api(t, null, 'GET', '/v1/openapi.json');
    assertStatus(res, 200);
    const doc = res.json();
    for (const subject of ['projects', 'photos', 'tasks']) {
      assert.ok(doc.paths[`/v1/${subject}/{id}/comments`]?.get, subject);
      assert.ok(doc.paths[`/v1/${subject}/{id}/comments`]?.post, subject);
    }
    assert.deepEqual(Object.keys(doc.paths['/v1/comments/{id}']).filter((m) => ['get', 'patch', 'delete'].includes(m)).sort(), ['delete', 'get', 'patch']);
    assert.deepEqual(Object.keys(doc.components.schemas.Comment.properties).sort(),
      ['author_id', 'body', 'created_at', 'id', 'mentions', 'project_id', 'subject', 'updated_at']);
    for (const event of ['comment.created', 'comment.updated', 'comment.deleted']) {
      const data = doc.webhooks[event].post.requestBody.content['application/json'].schema.properties.data;
      assert.equal(data.$ref, '#/components/schemas/Comment', event);
    }
  });
});

describe('notifications API', () => {
  it('lists the caller\'s own (unread filter), marks one read idempotently and all read; another user\'s is 404', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const rita = await userWith(ws, 'standard', 'rita');
    const joe = await userWith(ws, 'standard', 'joe');
    const prj = await project(ws);
    const c1 = await comment(ws.admin, `/v1/projects/${prj}`, '@rita one');
    const c2 = await comment(ws.admin, `/v1/projects/${prj}`, '@rita two @joe');
    const c3 = await comment(ws.admin, `/v1/projects/${prj}`, '@rita three');

    const all = await notificationsOf(rita);
    assert.deepEqual(all.map((n) => n.comment_id), [c3.id, c2.id, c1.id], 'newest first');
    const page = await api(t, rita, 'GET', '/v1/notifications?limit=2');
    assert.equal(page.json().has_more, true);
    const rest = await api(t, rita, 'GET', `/v1/notifications?limit=2&cursor=${page.json().next_cursor}`);
    assert.deepEqual([...page.json().data, ...rest.json().data].map((n: any) => n.id), all.map((n) => n.id));

    const read = await api(t, rita, 'POST', `/v1/notifications/${all[1].id}/read`);
    assertStatus(read, 200);
    assert.ok(read.json().read_at);
    const again = await api(t, rita, 'POST', `/v1/notifications/${all[1].id}/read`);
    assertStatus(again, 200);
    assert.equal(again.json().read_at, read.json().read_at, 'reading twice keeps the first read_at');
    assert.deepEqual((await notificationsOf(rita, '?unread=true')).map((n) => n.id), [all[0].id, all[2].id]);
    assert.deepEqual((await notificationsOf(rita, '?unread=false')).map((n) => n.id), [all[1].id]);

    // Someone else's notification, another workspace's, a missing and a malformed id: 404.
    const joes = await notificationsOf(joe);
    assert.equal(joes.length, 1);
    assertStatus(await api(t, rita, 'POST', `/v1/notifications/${joes[0].id}/read`), 404, 'not_found');
    assertStatus(await api(t, other.admin, 'POST', `/v1/notifications/${joes[0].id}/read`), 404, 'not_found');
    assertStatus(await api(t, rita, 'POST', `/v1/notifications/ntf_${'0'.repeat(26)}/read`), 404, 'not_found');
    assertStatus(await api(t, rita, 'POST', '/v1/notifications/nope/read'), 404, 'not_found');
    assert.equal((await notificationsOf(joe, '?unread=true')).length, 1, 'joe\'s is still unread');

    const readAll = await api(t, rita, 'POST', '/v1/notifications/read-all');
    assertStatus(readAll, 200);
    assert.deepEqual(readAll.json(), { marked: 2 });
    assert.deepEqual(await notificationsOf(rita, '?unread=true'), []);
    assert.deepEqual((await api(t, rita, 'POST', '/v1/notifications/read-all')).json(), { marked: 0 });
    assert.equal((await notificationsOf(joe, '?unread=true')).length, 1, 'read-all touches only the caller\'s');
    assert.deepEqual(await notificationsOf(other.admin), []);
    assertStatus(await api(t, rita, 'GET', '/v1/notifications?unread=maybe'), 400, 'validation_failed');
  });
});
