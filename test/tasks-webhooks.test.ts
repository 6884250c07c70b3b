import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verify as verifyGithub } from '@octokit/webhooks-methods';
import type { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
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

describe('tasks end to end', () => {
  it('a crew lead assigns a task with a photo: the assignee is notified and signed webhooks fire', async () => {
    const ws = await newWorkspace(t);
    const lead = await newUser(t, ws, 'manager');
    const rita = await newUser(t, ws, 'restricted');
    const prj = (await api(t, lead, 'POST', '/v1/projects', { name: 'Depot roof' })).json().id;
    assert.equal((await api(t, lead, 'PUT', `/v1/projects/${prj}/members/${rita.id}`)).statusCode, 200);
    const hook = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: receiver.url('/tasks'), events: ['task.*', 'notification.created'] });
    assert.equal(hook.statusCode, 201, hook.body);
    const secret: string = hook.json().secret;

    const { payload, headers } = multipart({ caption: 'Flashing lifted' }, { data: await jpegWithExif() });
    const upload = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/photos`, payload, headers: { ...headers, authorization: `Bearer ${lead.key}` } });
    assert.equal(upload.statusCode, 201, upload.body);
    const photo = upload.json().id;

    const created = await api(t, lead, 'POST', `/v1/projects/${prj}/tasks`, { title: 'Refit the flashing', assignee_id: rita.id, photo_ids: [photo] });
    assert.equal(created.statusCode, 201, created.body);
    const task = created.json();

    // The assignee sees the notification (and the task) with their own key.
    const mine = (await api(t, rita, 'GET', '/v1/notifications?unread=true')).json().data;
    assert.equal(mine.length, 1);
    assert.equal(mine[0].kind, 'task_assigned');
    assert.deepEqual(mine[0].subject, { type: 'task', id: task.id });
    assert.equal((await api(t, rita, 'GET', `/v1/tasks/${task.id}`)).json().photo_ids[0], photo);

    const got = await eventually('three deliveries', () => (receiver.at('/tasks').length >= 3 ? receiver.at('/tasks') : null));
    const bodies = got.map((r) => JSON.parse(r.body));
    assert.deepEqual(bodies.map((b) => b.event).sort(), ['notification.created', 'task.assigned', 'task.created']);
    for (const r of got) assert.ok(await verifyGithub(secret, r.body, String(r.headers['x-service-signature'])));
    const assigned = bodies.find((b) => b.event === 'task.assigned');
    assert.deepEqual(assigned.data, task);
    assert.equal(assigned.project_id, prj);
    const notified = bodies.find((b) => b.event === 'notification.created');
    assert.equal(notified.data.user_id, rita.id);
    assert.deepEqual(notified.data.subject, { type: 'task', id: task.id });

    // Completing it by the (restricted) assignee fires task.completed.
    assert.equal((await api(t, rita, 'POST', `/v1/tasks/${task.id}/complete`)).statusCode, 200);
    const completed = await eventually('task.completed', () => receiver.at('/tasks').map((r) => JSON.parse(r.body)).find((b) => b.event === 'task.completed'));
    assert.equal(completed.data.completed_by, rita.id);
  });
});
