/**
 * The README's webhook receiver, run exactly as the README says (`node receiver.mjs`, the secret in
 * JOBSITE_WEBHOOK_SECRET), receives real deliveries from the dispatcher and refuses forged ones.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import { REPO } from './cli-process.ts';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { eventually } from './webhook-receiver.ts';

/** The first ```js block after the sentence that names receiver.mjs. */
async function readmeReceiver(): Promise<string> {
  const readme = await fs.readFile(path.join(REPO, 'README.md'), 'utf8');
  const from = readme.indexOf('receiver.mjs');
  assert.ok(from > 0, 'the README names receiver.mjs');
  const block = /```js\n([\s\S]*?)```/.exec(readme.slice(from));
  assert.ok(block, 'a js block follows');
  return block[1]!;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().on('error', reject).listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let t: TestContext;
let dispatcher: WebhookDispatcher;
let dir: string;
let receiver: ChildProcess;
let output = '';
let port: number;

before(async () => {
  t = await startTestApp({ JOBSITE_WEBHOOK_ALLOW_PRIVATE: '127.0.0.1' });
  dispatcher = new WebhookDispatcher({ db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }) });
  await dispatcher.start();
  // Inside the repository, so that the receiver's imports resolve from its node_modules (devDependencies).
  dir = await fs.mkdtemp(path.join(REPO, '.readme-receiver-'));
});

after(async () => {
  receiver?.kill();
  await dispatcher.stop();
  await t.close();
  await fs.rm(dir, { recursive: true, force: true });
});

describe('the README webhook receiver', () => {
  it('runs as written, verifies real deliveries, and refuses a forged one', async () => {
    const ws = await newWorkspace(t);
    port = await freePort();
    const created = await api(t, ws.admin, 'POST', '/v1/webhooks', { url: `http://127.0.0.1:${port}/`, events: ['*'] });
    assert.equal(created.statusCode, 201, created.body);
    const { secret } = created.json();

    await fs.writeFile(path.join(dir, 'receiver.mjs'), await readmeReceiver());
    receiver = spawn(process.execPath, ['receiver.mjs'], {
      cwd: dir, env: { ...process.env, JOBSITE_WEBHOOK_SECRET: secret, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    receiver.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    await eventually('the receiver listens', () => new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => { socket.end(); resolve(true); }).on('error', () => resolve(false));
    }));

    const project = await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Maple St. remodel' });
    assert.equal(project.statusCode, 201, project.body);
    const ping = await api(t, ws.admin, 'POST', `/v1/webhooks/${created.json().id}/ping`);
    assert.equal(ping.statusCode, 202, ping.body);
    await eventually('both events printed', () => output.includes(`project.created ${project.json().id}`) && output.includes(`webhook.ping ${created.json().id}`));
    // The receiver prints before it answers; the attempts are recorded after the answer.
    const statuses = await eventually('both attempts recorded', async () => {
      const rows = await t.db.selectFrom('webhook_attempts').innerJoin('webhook_deliveries as d', 'd.id', 'webhook_attempts.delivery_id')
        .select('webhook_attempts.status_code').where('d.endpoint_id', '=', created.json().id).execute();
      return rows.length >= 2 && rows;
    });
    assert.deepEqual(statuses.map((s) => s.status_code), [204, 204], output);

    const forged = await fetch(`http://127.0.0.1:${port}/`, {
      method: 'POST', body: '{"event":"project.deleted","data":{"id":"prj_x"}}',
      headers: { 'content-type': 'application/json', 'x-service-signature': `sha256=${'0'.repeat(64)}`, 'webhook-id': 'evt_forged', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' },
    });
    assert.equal(forged.status, 401);
    assert.doesNotMatch(output, /prj_x/);
  });
});
