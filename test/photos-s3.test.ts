import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

// The SDK's notice that its 2027 releases will need Node 22 says nothing about these tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/**
 * The photo pipeline on the S3 driver (a real S3-compatible server): upload streamed to the
 * bucket, variants made by the job, presigned URLs that fetch them without credentials; and what
 * happens when the store is down while a photo is processed.
 */
let s3: S3TestServer;
let t: TestContext;
before(async () => {
  s3 = await startS3Server();
  t = await startTestApp(s3.env);
});
after(async () => {
  await t?.close();
  await s3?.stop();
});

async function upload(who: { key: string }, projectId: string, data: Buffer) {
  const { payload, headers } = multipart({}, { data });
  return t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
}

describe('photos on S3', () => {
  it('uploads to the bucket, processes, and serves presigned URLs of the original and the variants', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'S3 site' })).json().id;
    const bytes = await jpegWithExif({ lat: 52.52, lon: 13.405 }, 2400, 1600);
    const res = await upload(ws.admin, prj, bytes);
    assert.equal(res.statusCode, 201, res.body);
    const photo = res.json();
    assert.ok(photo.url.startsWith(`${s3.endpoint}/`), photo.url);
    assert.match(photo.url, /X-Amz-Signature=/);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.deepEqual(done.coordinates, { lat: 52.52, lon: 13.405, altitude: null });
    const original = await fetch(done.url);
    assert.equal(original.status, 200);
    assert.equal(crypto.createHash('sha256').update(Buffer.from(await original.arrayBuffer())).digest('hex'), photo.sha256);
    const large = await fetch(done.variants.large);
    assert.equal(large.status, 200);
    assert.equal((await sharp(Buffer.from(await large.arrayBuffer())).metadata()).width, 2048);

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/photos/${photo.id}`)).statusCode, 204);
    assert.equal((await fetch(done.url)).status, 404);
    assert.equal((await fetch(done.variants.thumbnail)).status, 404);
  });

  it('keeps a photo pending while the store is down, even on the last attempt (an outage is retried, not a failure)', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Outage' })).json().id;
    const res = await upload(ws.admin, prj, await jpegWithExif());
    assert.equal(res.statusCode, 201, res.body);
    const id = res.json().id;
    // The store goes away; the job's tries are down to the last one.
    await s3.stop();
    await t.db.updateTable('graphile_worker._private_jobs' as never).set({ max_attempts: 1 } as never).execute();
    await t.runJobs();
    const row = await t.db.selectFrom('photos').select(['processing_status', 'processing_error']).where('id', '=', id).executeTakeFirstOrThrow();
    assert.equal(row.processing_status, 'pending');
    assert.equal(row.processing_error, null);
    // No photo.created yet: it fires once the variants exist (test/outage-storage.test.ts: after the store is back).
    const event = await t.db.selectFrom('events').select('id').where('event', '=', 'photo.created').where('workspace_id', '=', ws.id).executeTakeFirst();
    assert.equal(event, undefined);
  });
});
