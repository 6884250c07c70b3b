import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { after, before, describe, it } from 'node:test';
import type { JobHelpers } from 'graphile-worker';
import { photoTasks, REQUEUE_STALE_PHOTOS } from '../src/features/photos/photos.jobs.ts';
import { reportTasks, REQUEUE_STALE_REPORTS } from '../src/features/reports/reports.jobs.ts';
import { api, newWorkspace, startTestApp, type TestContext } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart } from './multipart.ts';

/**
 * A photo or report whose job was lost (a wiped queue, a database restored without the
 * graphile_worker schema's rows) is queued again by the periodic requeue tasks, and then done.
 */
let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

const loseAllJobs = () => sql`delete from graphile_worker._private_jobs`.execute(t.db);
const age = (table: 'photos' | 'reports', id: string) =>
  sql`update ${sql.table(table)} set created_at = now() - interval '2 hours' where id = ${id}`.execute(t.db);

describe('requeueing lost jobs', () => {
  it('processes a photo and renders a report whose jobs were lost', async () => {
    const ws = await newWorkspace(t);
    const prj = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Lost jobs' })).json().id;
    const { payload, headers } = multipart({}, { data: await jpegWithExif() });
    const up = await t.app.inject({ method: 'POST', url: `/v1/projects/${prj}/photos`, payload, headers: { ...headers, authorization: `Bearer ${ws.admin.key}` } });
    assert.equal(up.statusCode, 201, up.body);
    const photoId = up.json().id;
    await loseAllJobs();
    await t.runJobs();
    assert.equal((await api(t, ws.admin, 'GET', `/v1/photos/${photoId}`)).json().processing_status, 'pending');

    // Fresh pending photos are left alone (their job may just be waiting); old ones are queued again.
    await photoTasks(t.jobDeps())[REQUEUE_STALE_PHOTOS]!(undefined, {} as JobHelpers);
    await t.runJobs();
    assert.equal((await api(t, ws.admin, 'GET', `/v1/photos/${photoId}`)).json().processing_status, 'pending');
    await age('photos', photoId);
    await photoTasks(t.jobDeps())[REQUEUE_STALE_PHOTOS]!(undefined, {} as JobHelpers);
    await t.runJobs();
    assert.equal((await api(t, ws.admin, 'GET', `/v1/photos/${photoId}`)).json().processing_status, 'processed');

    const report = await api(t, ws.admin, 'POST', `/v1/projects/${prj}/reports`, { title: 'Lost' });
    assert.equal(report.statusCode, 202, report.body);
    const reportId = report.json().id;
    await loseAllJobs();
    await age('reports', reportId);
    await reportTasks(t.jobDeps())[REQUEUE_STALE_REPORTS]!(undefined, {} as JobHelpers);
    await t.runJobs();
    const done = (await api(t, ws.admin, 'GET', `/v1/reports/${reportId}`)).json();
    assert.equal(done.status, 'finished', JSON.stringify(done));
  });
});
