import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { newId } from '../src/ids.ts';
import { ReportJobs } from '../src/features/reports/reports.jobs.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif, noisyJpeg } from './fixtures/images.ts';
import { multipart } from './multipart.ts';
import { parsePdf } from './pdf.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

type Who = { key: string };

async function project(ws: TestWorkspace, who: Who = ws.admin, fields: Record<string, unknown> = {}): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}`, ...fields });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

interface PhotoSpec {
  caption?: string;
  captured_at: string;
  lat?: number;
  lon?: number;
}

/** Uploads real JPEGs through the API (not yet processed). */
async function upload(who: Who, projectId: string, spec: PhotoSpec, bytes?: Buffer): Promise<string> {
  const fields: Record<string, string> = { captured_at: spec.captured_at };
  if (spec.caption) fields.caption = spec.caption;
  if (spec.lat !== undefined && spec.lon !== undefined) Object.assign(fields, { lat: String(spec.lat), lon: String(spec.lon) });
  const data = bytes ?? await noisyJpeg(900, 600, 80);
  const { payload, headers } = multipart(fields, { data, contentType: 'image/jpeg' });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

async function requestReport(who: Who, projectId: string, body: Record<string, unknown>) {
  return api(t, who, 'POST', `/v1/projects/${projectId}/reports`, { title: 'Site report', ...body });
}

/** Requests a report, runs the jobs, and answers the report as the API shows it afterwards. */
async function rendered(who: Who, projectId: string, body: Record<string, unknown>) {
  const res = await requestReport(who, projectId, body);
  assert.equal(res.statusCode, 202, res.body);
  await t.runJobs();
  return (await api(t, who, 'GET', `/v1/reports/${res.json().id}`)).json();
}

async function download(who: Who, reportId: string, headers: Record<string, string> = {}) {
  return api(t, who, 'GET', `/v1/reports/${reportId}/download`, undefined, headers);
}

async function pdfOf(who: Who, reportId: string) {
  const res = await download(who, reportId);
  assert.equal(res.statusCode, 200, res.body);
  return parsePdf(res.rawPayload);
}

function assertProblem(res: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

async function tag(ws: TestWorkspace, name: string, photoIds: string[]): Promise<string> {
  const id = newId('tag');
  await t.db.insertInto('tags').values({ id, workspace_id: ws.id, name, color: '#336699', created_by: ws.admin.id }).execute();
  for (const photoId of photoIds) await t.db.insertInto('photo_tags').values({ photo_id: photoId, tag_id: id, workspace_id: ws.id }).execute();
  return id;
}

async function events(ws: TestWorkspace, name: string) {
  return t.db.selectFrom('events').select(['payload']).where('workspace_id', '=', ws.id).where('event', '=', name).execute()
    .then((rows) => rows.map((r) => (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as { data: Record<string, unknown> }));
}

describe('a report of real photos', () => {
  let ws: TestWorkspace;
  let prj: string;
  const ids: string[] = [];
  let roofTag: string;

  before(async () => {
    ws = await newWorkspace(t, 'Acme Builders');
    await t.db.updateTable('users').set({ first_name: 'Jane', last_name: 'Doe' }).where('id', '=', ws.admin.id).execute();
    prj = await project(ws, ws.admin, { name: 'Tower A', address: { street_address_1: '1 Main Street', city: 'Paris', postal_code: '75001', country: 'FR' } });
    // Two days in Paris time: three photos on the 4th, two on the 5th (one taken 23:30 UTC on the 4th = the 5th in Paris).
    const specs: PhotoSpec[] = [
      { caption: 'North wall before', captured_at: '2026-05-04T07:30:00Z', lat: 48.8584, lon: 2.2945 },
      { caption: 'Scaffold east', captured_at: '2026-05-04T09:05:00Z', lat: -33.8568, lon: 151.2153 },
      { captured_at: '2026-05-04T12:00:00Z' },
      { caption: 'Late pour', captured_at: '2026-05-04T23:30:00Z', lat: 40.7128, lon: -74.006 },
      { caption: 'Roof membrane', captured_at: '2026-05-05T10:15:00Z', lat: 51.5007, lon: -0.1246 },
    ];
    // Uploaded out of order: the report sorts by capture time.
    for (const spec of [...specs].reverse()) ids.unshift(await upload(ws.admin, prj, spec));
    await t.runJobs();
    roofTag = await tag(ws, 'Roof', [ids[4]!, ids[0]!]);
    await tag(ws, 'Safety', [ids[1]!]);
  });

  it('answers 202 queued, renders a paginated PDF with every photo, caption, time and place, and emits report.finished', async () => {
    const res = await requestReport(ws.admin, prj, { title: 'Weekly report', options: { layout: 2, time_zone: 'Europe/Paris' } });
    assert.equal(res.statusCode, 202, res.body);
    const queued = res.json();
    assert.match(queued.id, /^rep_/);
    assert.equal(res.headers.location, `/v1/reports/${queued.id}`);
    assert.equal(queued.status, 'queued');
    assert.equal(queued.url, null);
    assert.equal(queued.page_count, null);
    assert.deepEqual(queued.options, { layout: 2, time_zone: 'Europe/Paris', page_size: 'letter', include_annotations: true, include_tasks: false, include_comments: false });
    assert.deepEqual(queued.selection, { photo_ids: null, captured_after: null, captured_before: null, tag_ids: null });
    assert.equal(queued.requested_by, ws.admin.id);

    await t.runJobs();
    const report = (await api(t, ws.admin, 'GET', `/v1/reports/${queued.id}`)).json();
    assert.equal(report.status, 'finished', report.error);
    assert.equal(report.error, null);
    assert.equal(report.photo_count, 5);
    assert.ok(report.finished_at);
    // Cover; the 4th in Paris: 3 photos, 2 a page; the 5th's first photo under its heading on
    // the 4th's second page, its second on the next page.
    assert.equal(report.page_count, 4);

    const res2 = await download(ws.admin, report.id);
    assert.equal(res2.statusCode, 200);
    assert.equal(res2.headers['content-type'], 'application/pdf');
    assert.match(String(res2.headers['content-disposition']), /^attachment; filename="Weekly report\.pdf"/);
    assert.equal(Number(res2.headers['content-length']), report.byte_size);
    assert.equal(res2.rawPayload.length, report.byte_size);
    assert.equal(res2.rawPayload.subarray(0, 5).toString('latin1'), '%PDF-');

    const pdf = await parsePdf(res2.rawPayload);
    assert.equal(pdf.pageCount, 4);
    assert.equal(pdf.title, 'Weekly report');
    assert.deepEqual(pdf.imagesPerPage, [1, 2, 2, 1]);
    const [cover, day1, day1b, day2] = pdf.pages as [string, string, string, string];
    for (const text of ['Weekly report', 'Tower A', '1 Main Street', 'Paris', 'Acme Builders', 'Jane Doe', 'Europe/Paris', 'Monday 4 May 2026 to Tuesday 5 May 2026']) {
      assert.ok(cover.includes(text), `cover lacks "${text}": ${cover}`);
    }
    assert.match(cover, /Photos 5/);
    assert.match(day1, /^Monday 4 May 2026 /);
    assert.ok(day1.includes('North wall before') && day1.includes('Taken 2026-05-04 09:30 GMT+2') && day1.includes('GPS 48.85840, 2.29450'), day1);
    assert.ok(day1.includes('Scaffold east') && day1.includes('Taken 2026-05-04 11:05 GMT+2') && day1.includes('GPS -33.85680, 151.21530'), day1);
    assert.ok(day1.includes('Tags: Roof') && day1.includes('Tags: Safety') && day1.includes('By Jane Doe'), day1);
    assert.ok(day1b.includes('Monday 4 May 2026 (continued)') && day1b.includes('Taken 2026-05-04 14:00 GMT+2') && day1b.includes('GPS: not recorded'), day1b);
    assert.ok(day1b.includes('Tuesday 5 May 2026') && day1b.includes('Late pour') && day1b.includes('Taken 2026-05-05 01:30 GMT+2'), day1b);
    assert.ok(day2.includes('Tuesday 5 May 2026 (continued)') && day2.includes('Roof membrane') && day2.includes('GPS 51.50070, -0.12460'), day2);
    pdf.pages.forEach((page, i) => assert.ok(page.includes(`Page ${i + 1} of 4`), page));
    assert.ok(day2.includes('Weekly report · ') && !day2.includes('Tower A'), day2);

    // The signed URL serves the same bytes; the event carries id and url.
    const signed = await t.app.inject({ method: 'GET', url: report.url.slice(t.config.publicUrl.length) });
    assert.equal(signed.statusCode, 200);
    assert.ok(signed.rawPayload.equals(res2.rawPayload));
    const finished = (await events(ws, 'report.finished')).filter((e) => e.data.id === report.id);
    assert.equal(finished.length, 1);
    assert.equal(finished[0]!.data.status, 'finished');
    assert.match(String(finished[0]!.data.url), /^http:\/\/jobsite\.test\/v1\/files\/reports\//);

    // Ranges.
    const part = await download(ws.admin, report.id, { range: 'bytes=0-99' });
    assert.equal(part.statusCode, 206);
    assert.equal(part.headers['content-range'], `bytes 0-99/${report.byte_size}`);
    assert.ok(part.rawPayload.equals(res2.rawPayload.subarray(0, 100)));

    // In the project's list, newest first.
    const list = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/reports?status=finished`)).json();
    assert.equal(list.data[0].id, report.id);
  });

  it('prints the images downscaled to their printed size (a report stays small)', async () => {
    const big = await upload(ws.admin, prj, { caption: 'Big one', captured_at: '2026-06-01T10:00:00Z' }, await noisyJpeg(4000, 3000, 90));
    await t.runJobs();
    const report = await rendered(ws.admin, prj, { photo_ids: [big], options: { layout: 4 } });
    assert.equal(report.status, 'finished', report.error);
    // A 2048 px noisy JPEG is well over 1 MB; printed a quarter page at 150 dpi it is far less.
    assert.ok(report.byte_size < 400_000, `${report.byte_size} bytes`);
    await t.db.deleteFrom('photos').where('id', '=', big).execute();
  });

  it('lays out 1 or 4 photos per page', async () => {
    const one = await rendered(ws.admin, prj, { options: { layout: 1, time_zone: 'UTC' } });
    assert.equal(one.page_count, 1 + 5);
    const pdf1 = await pdfOf(ws.admin, one.id);
    assert.deepEqual(pdf1.imagesPerPage, [1, 1, 1, 1, 1, 1]);
    // In UTC all five were taken on the 4th except the last.
    const four = await rendered(ws.admin, prj, { options: { layout: 4, time_zone: 'UTC', page_size: 'a4' } });
    const pdf4 = await pdfOf(ws.admin, four.id);
    assert.deepEqual(pdf4.imagesPerPage, [1, 4, 1]);
    assert.ok(pdf4.pages[1]!.includes('Taken 2026-05-04 07:30 GMT'), pdf4.pages[1]);
  });

  it('selects by photo ids, capture range and tags (combined), and prints only those', async () => {
    const byIds = await rendered(ws.admin, prj, { photo_ids: [ids[3], ids[1]] });
    assert.equal(byIds.photo_count, 2);
    assert.deepEqual(byIds.selection.photo_ids, [ids[3], ids[1]]);
    const pdfIds = await pdfOf(ws.admin, byIds.id);
    assert.equal(pdfIds.imagesPerPage.slice(1).reduce((a, b) => a + b, 0), 2);
    assert.ok(pdfIds.pages.join(' ').includes('Scaffold east') && pdfIds.pages.join(' ').includes('Late pour'));
    assert.ok(!pdfIds.pages.join(' ').includes('North wall before'));

    const byRange = await rendered(ws.admin, prj, { captured_after: '2026-05-04T09:05:00Z', captured_before: '2026-05-05T00:00:00Z' });
    assert.equal(byRange.photo_count, 3); // 09:05 (included), 12:00, 23:30
    assert.equal(byRange.selection.captured_after, '2026-05-04T09:05:00.000Z');

    const byTag = await rendered(ws.admin, prj, { tag_ids: [roofTag] });
    assert.equal(byTag.photo_count, 2);
    const tagText = (await pdfOf(ws.admin, byTag.id)).pages.join(' ');
    assert.ok(tagText.includes('North wall before') && tagText.includes('Roof membrane') && !tagText.includes('Scaffold east'), tagText);

    const combined = await rendered(ws.admin, prj, { tag_ids: [roofTag], captured_after: '2026-05-05T00:00:00Z' });
    assert.equal(combined.photo_count, 1);

    const nothing = await rendered(ws.admin, prj, { captured_after: '2030-01-01T00:00:00Z' });
    assert.equal(nothing.status, 'finished');
    assert.equal(nothing.photo_count, 0);
    assert.equal(nothing.page_count, 1);
  });

  it('lists a project\'s reports newest first, a page at a time, and by status', async () => {
    const all = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/reports?limit=100`)).json().data as { id: string; status: string }[];
    assert.ok(all.length >= 5);
    assert.deepEqual(all.map((r) => r.id), [...all.map((r) => r.id)].sort().reverse());
    const seen: string[] = [];
    let url = `/v1/projects/${prj}/reports?limit=2`;
    for (;;) {
      const page = await api(t, ws.admin, 'GET', url);
      assert.equal(page.statusCode, 200, page.body);
      const body = page.json();
      seen.push(...body.data.map((r: { id: string }) => r.id));
      if (!body.has_more) break;
      assert.match(String(page.headers.link), /rel="next"/);
      url = `/v1/projects/${prj}/reports?limit=2&cursor=${body.next_cursor}`;
    }
    assert.deepEqual(seen, all.map((r) => r.id));
    const failed = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/reports?status=failed`)).json().data;
    assert.deepEqual(failed, []);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/projects/${prj}/reports?cursor=bogus`), 400, 'invalid_cursor');
  });

  it('adds the tasks (open and completed) and the comments when asked', async () => {
    const me = ws.admin.id;
    await t.db.insertInto('tasks').values([
      { id: newId('task'), workspace_id: ws.id, project_id: prj, title: 'Fix flashing on roof', status: 'open', assignee_id: me, created_by: me },
      { id: newId('task'), workspace_id: ws.id, project_id: prj, title: 'Pour level 2 slab', status: 'completed', completed_at: new Date('2026-05-05T08:00:00Z'), completed_by: me, created_by: me },
    ]).execute();
    await t.db.insertInto('comments').values([
      { id: newId('comment'), workspace_id: ws.id, project_id: prj, subject_type: 'project', author_id: me, body: 'Crane arrives Monday.' },
      { id: newId('comment'), workspace_id: ws.id, project_id: prj, subject_type: 'photo', photo_id: ids[0]!, author_id: me, body: 'Crack near the window.' },
      { id: newId('comment'), workspace_id: ws.id, project_id: prj, subject_type: 'photo', photo_id: ids[4]!, author_id: me, body: 'Membrane lapped correctly.' },
    ]).execute();
    const report = await rendered(ws.admin, prj, { photo_ids: [ids[0]], options: { include_tasks: true, include_comments: true, time_zone: 'America/New_York' } });
    assert.equal(report.page_count, 4);
    const pdf = await pdfOf(ws.admin, report.id);
    const [, , tasks, comments] = pdf.pages as [string, string, string, string];
    assert.ok(tasks.startsWith('Tasks') && tasks.includes('Open (1)') && tasks.includes('Fix flashing on roof') && tasks.includes('assigned to Jane Doe'), tasks);
    assert.ok(tasks.includes('Completed (1)') && tasks.includes('Pour level 2 slab') && tasks.includes('completed 2026-05-05 04:00 GMT-4'), tasks);
    assert.ok(comments.startsWith('Comments') && comments.includes('Crane arrives Monday.') && comments.includes('Crack near the window.'), comments);
    assert.ok(comments.includes('on photo "North wall before"'), comments);
    // Comments on photos left out of the report are left out too.
    assert.ok(!comments.includes('Membrane lapped correctly.'), comments);
  });

  it('prints the annotated render instead of the photo when there is one (and the option is on)', async () => {
    const shapes = [{ type: 'rectangle', x: 0.1, y: 0.1, w: 0.5, h: 0.5, color: '#ff0000', width: 0.01 }];
    const put = await api(t, ws.admin, 'PUT', `/v1/photos/${ids[0]}/annotations`, { shapes });
    assert.equal(put.statusCode, 200, put.body);
    await t.runJobs();
    const photo = (await api(t, ws.admin, 'GET', `/v1/photos/${ids[0]}`)).json();
    assert.ok(photo.variants.annotated, 'annotated variant rendered');
    const row = await t.db.selectFrom('photos').select('variants').where('id', '=', ids[0]!).executeTakeFirstOrThrow();
    // Without its annotated render, the report fails: so it printed that render, not `large`.
    await t.app.blobs.delete(row.variants.annotated!.key);
    const withAnnotations = await rendered(ws.admin, prj, { photo_ids: [ids[0]] });
    assert.equal(withAnnotations.status, 'failed');
    assert.match(withAnnotations.error, new RegExp(ids[0]!));
    const plain = await rendered(ws.admin, prj, { photo_ids: [ids[0]], options: { include_annotations: false } });
    assert.equal(plain.status, 'finished', plain.error);
    await api(t, ws.admin, 'PUT', `/v1/photos/${ids[0]}/annotations`, { shapes: [] });
  });
});

describe('report requests that are refused', () => {
  it('refuses photos of another project (422 naming the id), unknown tags, a bad time zone and an empty range', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const other = await project(ws);
    const mine = await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' }, await jpegWithExif({}, 200, 150));
    const theirs = await upload(ws.admin, other, { captured_at: '2026-05-04T07:30:00Z' }, await jpegWithExif({}, 200, 150));

    const res = await requestReport(ws.admin, prj, { photo_ids: [mine, theirs] });
    assertProblem(res, 422, 'photo_not_in_project');
    assert.match(res.json().detail, new RegExp(theirs));
    assert.deepEqual(res.json().errors, [{ path: 'body.photo_ids[1]', message: `${theirs} is not a photo of this project` }]);
    assertProblem(await requestReport(ws.admin, prj, { photo_ids: ['pho_nonsense'] }), 422, 'photo_not_in_project');

    const otherWs = await newWorkspace(t);
    const foreignTag = newId('tag');
    await t.db.insertInto('tags').values({ id: foreignTag, workspace_id: otherWs.id, name: 'Theirs', color: '#000000' }).execute();
    const tagRes = await requestReport(ws.admin, prj, { tag_ids: [foreignTag] });
    assertProblem(tagRes, 422, 'tag_not_found');
    assert.match(tagRes.json().detail, new RegExp(foreignTag));

    const tz = await requestReport(ws.admin, prj, { options: { time_zone: 'Mars/Olympus_Mons' } });
    assertProblem(tz, 400, 'validation_failed');
    assert.equal(tz.json().errors[0].path, 'body.options.time_zone');
    assertProblem(await requestReport(ws.admin, prj, { options: { layout: 3 } }), 400, 'validation_failed');
    assertProblem(await requestReport(ws.admin, prj, { captured_after: '2026-05-05T00:00:00Z', captured_before: '2026-05-04T00:00:00Z' }), 400, 'validation_failed');
    assertProblem(await requestReport(ws.admin, prj, { title: '' }), 400, 'validation_failed');
    assertProblem(await requestReport(ws.admin, 'prj_00000000000000000000000000', {}), 404, 'not_found');

    // Nothing was queued by the refused requests.
    const list = (await api(t, ws.admin, 'GET', `/v1/projects/${prj}/reports`)).json();
    assert.deepEqual(list.data, []);
  });
});

describe('a report that cannot be rendered', () => {
  it('ends failed with the reason and report.failed when a photo\'s image is gone from storage; it has no PDF', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const good = await upload(ws.admin, prj, { caption: 'fine', captured_at: '2026-05-04T07:30:00Z' });
    const broken = await upload(ws.admin, prj, { caption: 'gone', captured_at: '2026-05-04T08:30:00Z' });
    await t.runJobs();
    const row = await t.db.selectFrom('photos').select('variants').where('id', '=', broken).executeTakeFirstOrThrow();
    await t.app.blobs.delete(row.variants.large!.key);

    const report = await rendered(ws.admin, prj, {});
    assert.equal(report.status, 'failed');
    assert.match(report.error, new RegExp(`${broken}.*missing from storage`));
    assert.equal(report.url, null);
    assert.equal(report.page_count, null);
    const failed = await events(ws, 'report.failed');
    assert.equal(failed.length, 1);
    assert.equal(failed[0]!.data.id, report.id);
    assert.equal(failed[0]!.data.error, report.error);
    assert.equal((await events(ws, 'report.finished')).length, 0);
    assertProblem(await download(ws.admin, report.id), 409, 'report_not_ready');
    // No PDF was left behind.
    const stored = await t.db.selectFrom('reports').select('blob_key').where('id', '=', report.id).executeTakeFirstOrThrow();
    assert.equal(stored.blob_key, null);
    void good;
  });

  it('ends failed when an image is not a decodable image', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const photo = await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const row = await t.db.selectFrom('photos').select('variants').where('id', '=', photo).executeTakeFirstOrThrow();
    const { Readable } = await import('node:stream');
    await t.app.blobs.delete(row.variants.large!.key);
    await t.app.blobs.put(row.variants.large!.key, Readable.from([Buffer.from('not a jpeg at all')]), { contentType: 'image/jpeg' });
    const report = await rendered(ws.admin, prj, {});
    assert.equal(report.status, 'failed');
    assert.match(report.error, new RegExp(`${photo} cannot be read`));
  });

  it('is safe to run twice: a finished report is left alone, and a queued report whose job runs twice is recorded once', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const res = await requestReport(ws.admin, prj, {});
    const id = res.json().id;
    const jobs = new ReportJobs(t.jobDeps());
    const helpers = { job: { attempts: 1, max_attempts: 3 }, logger: { error: () => undefined } } as never;
    await jobs.render(id, helpers);
    const first = (await api(t, ws.admin, 'GET', `/v1/reports/${id}`)).json();
    assert.equal(first.status, 'finished');
    await jobs.render(id, helpers);
    await t.runJobs(); // the queued job itself
    const again = (await api(t, ws.admin, 'GET', `/v1/reports/${id}`)).json();
    assert.equal(again.updated_at, first.updated_at);
    assert.equal(again.url, first.url);
    assert.equal((await events(ws, 'report.finished')).length, 1);
  });
});

describe('who may see and delete reports', () => {
  it('another workspace cannot read, list, download or delete them (404); restricted users off the project neither', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const report = await rendered(ws.admin, prj, {});
    assert.equal(report.status, 'finished');

    const stranger = await newWorkspace(t);
    const restricted = await newUser(t, ws, 'restricted');
    for (const who of [stranger.admin, restricted]) {
      assertProblem(await api(t, who, 'GET', `/v1/reports/${report.id}`), 404, 'not_found');
      assertProblem(await download(who, report.id), 404, 'not_found');
      assertProblem(await api(t, who, 'DELETE', `/v1/reports/${report.id}`), 404, 'not_found');
      assertProblem(await api(t, who, 'GET', `/v1/projects/${prj}/reports`), 404, 'not_found');
      assertProblem(await requestReport(who, prj, {}), 404, 'not_found');
    }
    // Once on the crew, the restricted user sees it.
    const added = await api(t, ws.admin, 'PUT', `/v1/projects/${prj}/members/${restricted.id}`);
    assert.ok(added.statusCode < 300, added.body);
    assert.equal((await api(t, restricted, 'GET', `/v1/reports/${report.id}`)).statusCode, 200);
  });

  it('deletes a report with its PDF; standard users only their own', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const standard = await newUser(t, ws, 'standard');
    const admins = await rendered(ws.admin, prj, {});
    const own = await rendered(standard, prj, {});
    assertProblem(await api(t, standard, 'DELETE', `/v1/reports/${admins.id}`), 403, 'forbidden');

    const del = await api(t, standard, 'DELETE', `/v1/reports/${own.id}`);
    assert.equal(del.statusCode, 204, del.body);
    assertProblem(await api(t, standard, 'GET', `/v1/reports/${own.id}`), 404, 'not_found');
    const signed = await t.app.inject({ method: 'GET', url: own.url.slice(t.config.publicUrl.length) });
    assert.equal(signed.statusCode, 404);

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/reports/${admins.id}`)).statusCode, 204);
  });

  it('a report deleted while it renders keeps no PDF', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    await upload(ws.admin, prj, { captured_at: '2026-05-04T07:30:00Z' });
    await t.runJobs();
    const id = (await requestReport(ws.admin, prj, {})).json().id;
    const before = new Set(await listBlobs('reports'));
    // The job claims the report, then it is deleted before the render is recorded.
    const deps = t.jobDeps();
    const jobs = new ReportJobs({
      ...deps,
      blobs: new Proxy(deps.blobs, {
        get(target, prop) {
          if (prop === 'put') {
            return async (...args: Parameters<typeof target.put>) => {
              const result = await target.put(...args);
              await t.db.deleteFrom('reports').where('id', '=', id).execute();
              return result;
            };
          }
          const value = Reflect.get(target, prop, target) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      }),
    });
    await jobs.render(id, { job: { attempts: 1, max_attempts: 3 }, logger: { error: () => undefined } } as never);
    assert.deepEqual((await listBlobs('reports')).filter((k) => !before.has(k)), []);
    assert.equal((await events(ws, 'report.finished')).length, 0);
  });
});

/** Keys of the stored blobs of a kind (file driver: files under the data directory). */
async function listBlobs(kind: string): Promise<string[]> {
  const fs = await import('node:fs/promises');
  const path = await import('node:path');
  const storage = t.config.storage;
  assert.equal(storage.driver, 'file');
  const root = path.join((storage as { directory: string }).directory, kind);
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else found.push(path.relative(root, full));
    }
  };
  await walk(root);
  return found;
}
