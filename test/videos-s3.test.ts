import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { androidMp4, ffmpegPath } from './fixtures/videos.ts';
import { multipart } from './multipart.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

// The SDK's notice that its 2027 releases will need Node 22 says nothing about these tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** The video pipeline on the S3 driver (a real S3-compatible server): streamed in, probed from a download, presigned URLs out. */
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

describe('videos on S3', { skip: ffmpegPath ? false : 'no ffmpeg' }, () => {
  it('uploads to the bucket, probes, makes a poster, serves presigned URLs (with ranges), and deletes both objects', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'S3 site' })).json().id;
    const bytes = await androidMp4();
    const { payload, headers } = multipart({}, { data: bytes, filename: 'clip.mp4' });
    const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/videos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(res.statusCode, 201, res.body);
    const video = res.json();
    assert.ok(video.url.startsWith(`${s3.endpoint}/`), video.url);
    assert.match(video.url, /X-Amz-Signature=/);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/videos/${video.id}`)).json();
    assert.equal(done.processing_status, 'processed', done.processing_error);
    assert.deepEqual([done.duration_s, done.width, done.height, done.codec], [2, 320, 240, 'h264']);
    assert.deepEqual(done.coordinates, { lat: 48.8584, lon: 2.2945, altitude: 35 });

    const original = await fetch(done.url);
    assert.equal(original.status, 200);
    assert.equal(crypto.createHash('sha256').update(Buffer.from(await original.arrayBuffer())).digest('hex'), video.sha256);
    const range = await fetch(done.url, { headers: { range: 'bytes=0-31' } });
    assert.equal(range.status, 206);
    assert.ok(Buffer.from(await range.arrayBuffer()).equals(bytes.subarray(0, 32)));
    const poster = await fetch(done.poster_url);
    assert.equal(poster.status, 200);
    assert.equal((await sharp(Buffer.from(await poster.arrayBuffer())).metadata()).width, 320);

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/videos/${video.id}`)).statusCode, 204);
    assert.equal((await fetch(done.url)).status, 404);
    assert.equal((await fetch(done.poster_url)).status, 404);
  });
});
