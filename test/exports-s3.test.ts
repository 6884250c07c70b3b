import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { noisyJpeg } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

// The SDK's notice that its 2027 releases will need Node 22 says nothing about these tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** An export written with the S3 driver: originals streamed out of the bucket and the ZIP streamed into it (a multipart upload). */
let s3: S3TestServer;
let t: TestContext;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-exports-s3-'));
before(async () => {
  s3 = await startS3Server();
  t = await startTestApp(s3.env);
});
after(async () => {
  await t?.close();
  await s3?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('exports on S3', () => {
  it('streams the ZIP into the bucket; the presigned URL gives a ZIP that unzip -t accepts; deletion removes it', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'S3 site' })).json().id;
    const sizes: number[] = [];
    for (const [i, at] of ['2026-05-04T07:30:00Z', '2026-05-04T08:30:00Z', '2026-05-05T09:00:00Z'].entries()) {
      // ~2.5 MB each: the ZIP is larger than one 5 MB upload part.
      const data = await noisyJpeg(1600, 1200, 95);
      sizes.push(data.length);
      const { payload, headers } = multipart({ caption: `S3 photo ${i}`, captured_at: at }, { data });
      const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
      assert.equal(res.statusCode, 201, res.body);
    }
    await t.runJobs();
    const queued = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/exports`, {});
    assert.equal(queued.statusCode, 202, queued.body);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/exports/${queued.json().id}`)).json();
    assert.equal(done.status, 'finished', done.error);
    assert.equal(done.photo_count, 3);
    assert.ok(done.byte_size > sizes.reduce((a, b) => a + b, 0), `${done.byte_size} bytes`);
    assert.ok(done.url.startsWith(`${s3.endpoint}/`), done.url);

    const viaUrl = await fetch(done.url);
    assert.equal(viaUrl.status, 200);
    const bytes = Buffer.from(await viaUrl.arrayBuffer());
    assert.equal(bytes.length, done.byte_size);
    const file = path.join(tmp, 'export.zip');
    fs.writeFileSync(file, bytes);
    const test = spawnSync('unzip', ['-t', file], { encoding: 'utf8' });
    assert.equal(test.status, 0, test.stdout + test.stderr);
    const list = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8' }).stdout.trim().split('\n');
    assert.deepEqual(list, ['photos.csv', 'photos.json', '2026-05-04 0730 S3 photo 0.jpg', '2026-05-04 0830 S3 photo 1.jpg', '2026-05-05 0900 S3 photo 2.jpg']);
    const downloaded = await api(t, ws.admin, 'GET', `/v1/exports/${done.id}/download`);
    assert.ok(downloaded.rawPayload.equals(bytes));

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/exports/${done.id}`)).statusCode, 204);
    assert.equal((await fetch(done.url)).status, 404);
  });
});
