import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import { parseCrontab, type JobHelpers } from 'graphile-worker';
import { taskList, WORKER_CRONTAB } from '../src/jobs/queue.ts';
import { REQUEUE_LOST_JOBS } from '../src/jobs/requeue.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { androidMp4, ffmpegPath } from './fixtures/videos.ts';
import { multipart } from './multipart.ts';

/**
 * A photo, video, report or export whose job was lost (a wiped queue, a database restored without the
 * graphile_worker schema's rows) is queued again by the one periodic requeue task, and then done.
 */
let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

const loseAllJobs = () => sql`delete from graphile_worker._private_jobs`.execute(t.db);
const age = (table: 'photos' | 'videos' | 'reports' | 'exports', id: string, interval: string) =>
  sql`update ${sql.table(table)} set created_at = now() - ${interval}::interval where id = ${id}`.execute(t.db);
const requeueLostJobs = () => taskList(t.jobDeps())[REQUEUE_LOST_JOBS]!(undefined, {} as JobHelpers);

async function uploadTo(ws: TestWorkspace, prj: string, kind: 'photos' | 'videos', data: Buffer, filename: string): Promise<string> {
  const { payload, headers } = multipart({}, { data, filename });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/${kind}`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

describe('requeueing lost jobs', () => {
  it('one periodic task, instead of one per kind of work', () => {
    const tasks = parseCrontab(WORKER_CRONTAB).map((item) => item.task);
    assert.equal(tasks.filter((task) => task === REQUEUE_LOST_JOBS).length, 1, WORKER_CRONTAB);
    assert.deepEqual(tasks.filter((task) => /requeue/.test(task)), [REQUEUE_LOST_JOBS], WORKER_CRONTAB);
    assert.ok(taskList(t.jobDeps())[REQUEUE_LOST_JOBS]);
  });

  it('processes a photo and a video and renders a report and an export whose jobs were lost, in one run, and leaves fresh ones alone', { skip: !ffmpegPath && 'no ffmpeg to make a test video' }, async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Lost jobs' })).json().id;
    const photoId = await uploadTo(ws, prj, 'photos', await jpegWithExif(), 'site.jpg');
    const videoId = await uploadTo(ws, prj, 'videos', await androidMp4(), 'clip.mp4');
    const report = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/reports`, { title: 'Lost' });
    assert.equal(report.statusCode, 202, report.body);
    const reportId = report.json().id;
    const exported = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/exports`, {});
    assert.equal(exported.statusCode, 202, exported.body);
    const exportId = exported.json().id;
    const states = async () => [
      (await api(t, ws.admin, 'GET', `/v1/photos/${photoId}`)).json().processing_status,
      (await api(t, ws.admin, 'GET', `/v1/videos/${videoId}`)).json().processing_status,
      (await api(t, ws.admin, 'GET', `/v1/reports/${reportId}`)).json().status,
      (await api(t, ws.admin, 'GET', `/v1/exports/${exportId}`)).json().status,
    ];

    await loseAllJobs();
    await t.runJobs();
    assert.deepEqual(await states(), ['pending', 'pending', 'queued', 'queued'], 'nothing runs: the jobs are gone');

    // Fresh waiting work is left alone (its job may just be waiting its turn).
    await requeueLostJobs();
    await t.runJobs();
    assert.deepEqual(await states(), ['pending', 'pending', 'queued', 'queued']);

    // Each kind has its own patience: a video waits an hour, the others half an hour.
    await age('photos', photoId, '40 minutes');
    await age('videos', videoId, '40 minutes');
    await age('reports', reportId, '40 minutes');
    await age('exports', exportId, '40 minutes');
    await requeueLostJobs();
    await t.runJobs();
    assert.deepEqual(await states(), ['processed', 'pending', 'finished', 'finished']);

    await age('videos', videoId, '2 hours');
    await requeueLostJobs();
    await t.runJobs();
    assert.deepEqual(await states(), ['processed', 'processed', 'finished', 'finished']);
  });
});
