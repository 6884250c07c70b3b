/**
 * What a report's PDF prints, read back as a viewer does: text in any script (embedded fonts,
 * never `?` for a character they have), days flowing on the page, 1/2/4 photos per page, the
 * cover photo, and the footer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runsOf } from '../src/features/reports/report-fonts.ts';
import { newId } from '../src/ids.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { parsePdf } from './pdf.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp();
});
after(async () => t?.close());

const POLISH = 'Zażółć gęślą jaźń';
const TURKISH = 'İşçi ğüş';
const GREEK = 'Καλημέρα';
const CYRILLIC = 'Привет';
const CJK = '工地照片 現場写真 현장';

type Who = { key: string };

async function project(who: Who, name: string): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** A small real JPEG through the API (landscape unless told), processed by the jobs later. */
async function upload(who: Who, projectId: string, capturedAt: string, caption?: string, size: [number, number] = [240, 160]): Promise<string> {
  const fields: Record<string, string> = { captured_at: capturedAt, ...(caption ? { caption } : {}) };
  const { payload, headers } = multipart(fields, { data: await jpegWithExif({}, size[0], size[1]), contentType: 'image/jpeg' });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

/** Requests a report, runs the jobs, and reads its PDF back. */
async function renderedPdf(who: Who, projectId: string, body: Record<string, unknown>) {
  const res = await api(t, who, 'POST', `/v1/projects/${projectId}/reports`, { title: 'Site report', ...body });
  assert.equal(res.statusCode, 202, res.body);
  await t.runJobs();
  const report = (await api(t, who, 'GET', `/v1/reports/${res.json().id}`)).json();
  assert.equal(report.status, 'finished', report.error);
  const file = await api(t, who, 'GET', `/v1/reports/${report.id}/download`);
  assert.equal(file.statusCode, 200);
  const pdf = await parsePdf(file.rawPayload);
  assert.equal(pdf.pageCount, report.page_count);
  return { report, pdf };
}

describe('text in any script', () => {
  it('splits a string into runs by the first font that has each character; one no font has prints as ?', () => {
    const runs = runsOf(`${POLISH} ${GREEK} 工地 현장 😀!`, 'regular');
    assert.deepEqual(runs.map((r) => [r.face.name, r.text]), [
      ['NotoSans-Regular', `${POLISH} ${GREEK} `],
      ['NotoSansHans-Regular', '工地 '],
      ['NotoSansKR-Regular', '현장 '],
      ['NotoSans-Regular', '?!'],
    ]);
    assert.equal(runsOf('Straße', 'bold')[0]!.face.name, 'NotoSans-Bold');
    // A line break opens the next run (pdfkit ignores one that ends a continued fragment).
    assert.deepEqual(runsOf('현장\nsecond line\n', 'regular').map((r) => [r.face.name, r.text]), [
      ['NotoSansKR-Regular', '현장'],
      ['NotoSans-Regular', '\nsecond line\n'],
    ]);
  });

  it('prints Polish, Turkish, Greek, Cyrillic and CJK captions, project name, names, tasks and comments exactly', async () => {
    const ws: TestWorkspace = await newWorkspace(t, `Firma ${POLISH}`);
    await t.db.updateTable('users').set({ first_name: TURKISH, last_name: GREEK }).where('id', '=', ws.admin.id).execute();
    const crew = await newUser(t, ws, 'standard');
    await t.db.updateTable('users').set({ first_name: '現場', last_name: '현장' }).where('id', '=', crew.id).execute();
    const prj = await project(ws.admin, `Budowa ${POLISH} ${CJK}`);
    const captions = [POLISH, TURKISH, GREEK, CYRILLIC, CJK];
    for (const [i, caption] of captions.entries()) await upload(ws.admin, prj, `2026-05-04T0${i + 1}:00:00Z`, caption);
    await t.runJobs();
    await t.db.insertInto('comments').values([
      { id: newId('comment'), workspace_id: ws.id, project_id: prj, subject_type: 'project', author_id: crew.id, body: `${CYRILLIC} ${CJK} ${GREEK}` },
    ]).execute();
    await t.db.insertInto('tasks').values({ id: newId('task'), workspace_id: ws.id, project_id: prj, title: `${TURKISH} ${CJK}`, status: 'open', created_by: ws.admin.id }).execute();

    const { report, pdf } = await renderedPdf(ws.admin, prj, { title: `Raport ${POLISH} ${CJK}`, options: { layout: 1, include_tasks: true, include_comments: true } });
    assert.equal(pdf.title, `Raport ${POLISH} ${CJK}`);
    const [cover, ...rest] = pdf.pages;
    for (const text of [`Budowa ${POLISH}`, `Firma ${POLISH}`, `${TURKISH} ${GREEK}`]) assert.ok(cover!.includes(text), `cover lacks "${text}": ${cover}`);
    captions.forEach((caption, i) => {
      assert.ok(rest[i]!.includes(caption), `page ${i + 2} lacks "${caption}": ${rest[i]}`);
      assert.ok(rest[i]!.includes(`By ${TURKISH} ${GREEK}`), rest[i]);
    });
    const [tasks, comments] = rest.slice(captions.length);
    assert.ok(tasks!.includes(`${TURKISH} ${CJK}`), tasks);
    assert.ok(comments!.includes('現場 현장') && comments!.includes(`${CYRILLIC} ${CJK} ${GREEK}`), comments);
    // Nothing turned into a question mark.
    assert.ok(!pdf.pages.join(' ').includes('?'), pdf.pages.join('\n'));
    // The fonts are subsets: the CJK font alone is 8 MB whole.
    assert.ok(report.byte_size < 400_000, `${report.byte_size} bytes`);
  });
});

describe('layout', () => {
  let ws: TestWorkspace;
  let prj: string;
  const ids: string[] = [];

  before(async () => {
    ws = await newWorkspace(t);
    prj = await project(ws.admin, 'Harbour Bridge');
    // Three photos on Monday 4 May, one on Tuesday 5 May, one on Thursday 7 May (UTC).
    const times = ['2026-05-04T08:00:00Z', '2026-05-04T09:00:00Z', '2026-05-04T10:00:00Z', '2026-05-05T08:00:00Z', '2026-05-07T08:00:00Z'];
    for (const [i, at] of times.entries()) ids.push(await upload(ws.admin, prj, at, `Photo ${i + 1}`));
    await t.runJobs();
  });

  it('2 per page: days flow on, a new day starts under its heading on the same page when it fits (cover + 3 pages)', async () => {
    const { pdf } = await renderedPdf(ws.admin, prj, { options: { layout: 2 } });
    assert.equal(pdf.pageCount, 1 + 3);
    assert.deepEqual(pdf.imagesPerPage, [1, 2, 2, 1]);
    const [, first, second, third] = pdf.pages as [string, string, string, string];
    assert.match(first, /^Monday 4 May 2026 Photo 1 .*Photo 2 /);
    assert.match(second, /^Monday 4 May 2026 \(continued\) Photo 3 .*Tuesday 5 May 2026 Photo 4 /);
    assert.match(third, /^Thursday 7 May 2026 Photo 5 /);
  });

  it('1 per page gives a page a photo; 4 per page a 2 × 2 grid where a new day starts a new row', async () => {
    const one = await renderedPdf(ws.admin, prj, { options: { layout: 1 } });
    assert.equal(one.pdf.pageCount, 1 + 5);
    assert.deepEqual(one.pdf.imagesPerPage, [1, 1, 1, 1, 1, 1]);
    const four = await renderedPdf(ws.admin, prj, { options: { layout: 4, page_size: 'a4' } });
    // Page 2: Monday's row of two and row of one; page 3: Tuesday's row and Thursday's row.
    assert.deepEqual(four.pdf.imagesPerPage, [1, 3, 2]);
    assert.match(four.pdf.pages[2]!, /^Tuesday 5 May 2026 Photo 4 .*Thursday 7 May 2026 Photo 5 /);
  });

  it('the footer says the title, the page and the page count, not the project name', async () => {
    const { pdf } = await renderedPdf(ws.admin, prj, { title: 'Week 19', options: { layout: 2 } });
    pdf.pages.forEach((page, i) => {
      assert.ok(page.includes(`Week 19 · `) && page.endsWith(`Page ${i + 1} of ${pdf.pageCount}`), page);
    });
    assert.ok(pdf.pages[0]!.includes('Harbour Bridge'), 'the cover names the project');
    for (const page of pdf.pages.slice(1)) assert.ok(!page.includes('Harbour Bridge'), page);
  });

  it('the cover shows the project\'s cover photo, else the report\'s first photo', async () => {
    const first = await renderedPdf(ws.admin, prj, { photo_ids: [ids[1]] });
    assert.equal(first.pdf.imagesPerPage[0], 1);
    const landscape = first.pdf.imageSizes[0]![0]!;
    assert.ok(landscape.width > landscape.height, JSON.stringify(landscape));

    const portrait = await upload(ws.admin, prj, '2026-04-01T08:00:00Z', 'Front elevation', [160, 240]);
    await t.runJobs();
    const patched = await api(t, ws.admin, 'PATCH', `/v1/projects/${prj}`, { cover_photo_id: portrait });
    assert.equal(patched.statusCode, 200, patched.body);
    // The cover photo is on the cover even when the report does not print it.
    const withCover = await renderedPdf(ws.admin, prj, { photo_ids: [ids[1]] });
    assert.deepEqual(withCover.pdf.imagesPerPage, [1, 1]);
    const cover = withCover.pdf.imageSizes[0]![0]!;
    assert.ok(cover.height > cover.width, JSON.stringify(cover));
    assert.ok(!withCover.pdf.pages.join(' ').includes('Front elevation'));
  });
});
