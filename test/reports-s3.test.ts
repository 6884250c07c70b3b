import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { noisyJpeg } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { parsePdf } from './pdf.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';

// The SDK's notice that its 2027 releases will need Node 22 says nothing about these tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** A report rendered with the S3 driver: the PDF streamed into the bucket, served by presigned URL and by the download route. */
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

describe('reports on S3', () => {
  it('streams the PDF into the bucket; the presigned URL and the download give the same PDF; deletion removes it', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'S3 site' })).json().id;
    for (const [i, at] of ['2026-05-04T07:30:00Z', '2026-05-04T08:30:00Z', '2026-05-05T09:00:00Z'].entries()) {
      const { payload, headers } = multipart({ caption: `S3 photo ${i}`, captured_at: at }, { data: await noisyJpeg(800, 600, 80) });
      const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
      assert.equal(res.statusCode, 201, res.body);
    }
    await t.runJobs();
    const queued = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/reports`, { title: 'S3 report', options: { layout: 4 } });
    assert.equal(queued.statusCode, 202, queued.body);
    await t.runJobs();
    const report = (await api(t, ws.admin, 'GET', `/v1/reports/${queued.json().id}`)).json();
    assert.equal(report.status, 'finished', report.error);
    assert.ok(report.url.startsWith(`${s3.endpoint}/`), report.url);

    const viaUrl = await fetch(report.url);
    assert.equal(viaUrl.status, 200);
    const bytes = Buffer.from(await viaUrl.arrayBuffer());
    assert.equal(bytes.length, report.byte_size);
    const downloaded = await api(t, ws.admin, 'GET', `/v1/reports/${report.id}/download`);
    assert.equal(downloaded.statusCode, 200);
    assert.ok(downloaded.rawPayload.equals(bytes));
    const pdf = await parsePdf(bytes);
    assert.equal(pdf.pageCount, report.page_count);
    // The cover (with the first photo as cover photo), then all three in the 2 × 2 grid: the new day starts a new row.
    assert.deepEqual(pdf.imagesPerPage, [1, 3]);
    assert.ok(pdf.pages[1]!.includes('S3 photo 2'), pdf.pages[1]);

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/reports/${report.id}`)).statusCode, 204);
    assert.equal((await fetch(report.url)).status, 404);
  });
});
