/**
 * The S3 blob store goes away (a real s3rver, stopped and started again on the same port). An
 * upload answers 503 storage_unavailable with Retry-After and leaves no row behind; a photo job
 * that cannot read its original retries (even on its last attempt) instead of marking the photo
 * failed, and finishes once the store is back; the outage is logged once, not per request.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { EventLog } from '../src/features/events/events.log.ts';
import type { App } from '../src/http/types.ts';
import { runJobsOnce } from '../src/jobs/queue.ts';
import { pdf } from './fixtures/documents.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { createTestDatabase, newWorkspace, api, type TestContext } from './helpers.ts';
import { multipart } from './multipart.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';
import { eventually } from './webhook-receiver.ts';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

let s3: S3TestServer;
let database: { url: string; drop(): Promise<void> };
let handle: DatabaseHandle;
let app: App;
let t: TestContext;
/** The app's log lines (pino JSON). */
const logged: { level: number; msg: string }[] = [];

before(async () => {
  [s3, database] = await Promise.all([startS3Server(), createTestDatabase()]);
  const config = loadConfig({ JOBSITE_PUBLIC_URL: 'http://jobsite.test', LOG_LEVEL: 'info', JOBSITE_RATE_LIMIT: '100000', ...s3.env });
  handle = openDatabase(database.url, { max: 5 });
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as { level: number; msg: string });
      done();
    },
  });
  app = await buildApp({ config, db: handle.db, logger: { level: 'info', stream } });
  await app.ready();
  const jobDeps = () => ({ db: handle.db, blobs: app.blobs, config, events: new EventLog() });
  t = { app, db: handle.db, config, url: database.url, jobDeps, runJobs: () => runJobsOnce(database.url, jobDeps()), close: async () => undefined };
});

after(async () => {
  await app?.close();
  await handle?.close();
  await database?.drop();
  await s3?.stop();
});

const outageLines = () => logged.filter((l) => l.msg !== 'incoming request' && l.msg !== 'request completed');

async function post(key: string, url: string, data: Buffer, filename: string) {
  const { payload, headers } = multipart({}, { data, filename });
  const started = performance.now();
  const res = await app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: `Bearer ${key}` } });
  return { res, ms: performance.now() - started };
}

const count = async (table: 'photos' | 'documents', projectId: string) =>
  Number((await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where project_id = ${projectId}`.execute(handle.db)).rows[0]!.n);

describe('blob store outage', () => {
  it('answers uploads with 503 storage_unavailable and keeps no row, logging the outage once', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'No store' })).json().id as string;
    const photo = await jpegWithExif();
    await s3.pause();
    const linesBefore = outageLines().length;
    const times: number[] = [];
    try {
      for (let i = 0; i < 5; i++) {
        for (const [url, data, filename] of [[`/v1/projects/${prj}/photos`, photo, 'site.jpg'], [`/v1/projects/${prj}/documents`, pdf(), 'permit.pdf']] as const) {
          const { res, ms } = await post(ws.admin.key, url, data, filename);
          assert.equal(res.statusCode, 503, res.body);
          assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
          assert.equal(res.json().code, 'storage_unavailable');
          assert.ok(Number(res.headers['retry-after']) > 0);
          assert.ok(ms < 5000, `${url} took ${ms} ms`);
          times.push(Math.round(ms));
        }
      }
      console.log(`uploads refused in ${times.join(', ')} ms`);
      assert.equal(await count('photos', prj), 0);
      assert.equal(await count('documents', prj), 0);
      const lines = outageLines().slice(linesBefore);
      assert.deepEqual(lines.map((l) => l.msg), ['blob store unreachable; answering 503 and retrying until it is back'], JSON.stringify(lines));
    } finally {
      await s3.resume();
    }
    await eventually('the recovery to be logged', () => outageLines().some((l) => l.msg === 'blob store reachable again'), 10_000);
    const ok = await post(ws.admin.key, `/v1/projects/${prj}/photos`, photo, 'site.jpg');
    assert.equal(ok.res.statusCode, 201, ok.res.body);
    assert.equal(await count('photos', prj), 1);
  });

  it('retries a photo job while the store is down, even on its last attempt, and finishes it once the store is back', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Later' })).json().id as string;
    const up = await post(ws.admin.key, `/v1/projects/${prj}/photos`, await jpegWithExif(), 'site.jpg');
    assert.equal(up.res.statusCode, 201, up.res.body);
    const id = up.res.json().id as string;
    await s3.pause();
    try {
      // The last attempt: a job that gives up now would mark the photo failed for good.
      await sql`update graphile_worker._private_jobs set max_attempts = 1 where payload->>'photo_id' = ${id}`.execute(handle.db);
      await t.runJobs();
      const row = await handle.db.selectFrom('photos').select(['processing_status', 'processing_error']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.processing_status, 'pending', row.processing_error ?? '');
      const job = (await sql<{ attempts: number; last_error: string }>`
        select attempts, last_error from graphile_worker._private_jobs where payload->>'photo_id' = ${id}`.execute(handle.db)).rows[0]!;
      assert.equal(job.attempts, 1);
      assert.match(job.last_error, /blob store is unreachable/);
    } finally {
      await s3.resume();
    }
    // Once it has run out of attempts, the stale-photo sweep queues it again (after 30 min; here at once).
    await sql`update graphile_worker._private_jobs set max_attempts = 5, run_at = now() where payload->>'photo_id' = ${id}`.execute(handle.db);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    const created = await handle.db.selectFrom('events').select('id').where('event', '=', 'photo.created').where('workspace_id', '=', ws.id).execute();
    assert.equal(created.length, 1);
  });
});
