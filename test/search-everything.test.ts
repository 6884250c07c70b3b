/**
 * GET /v1/search: one search box across projects, captions, tasks, comments and documents, on a
 * real PostgreSQL with real uploads (a PDF made with pdfkit, a text file), the extraction job run
 * by the real queue. (test/search.test.ts is the `q` filter of the project and tag lists.)
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import { sql } from 'kysely';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart, type FilePart } from './multipart.ts';
import { FEW_PROJECTS } from '../src/features/search/search.repository.ts';

let t: TestContext;
let jpeg: Buffer;
before(async () => {
  t = await startTestApp();
  jpeg = await jpegWithExif({}, 64, 48);
});
after(async () => t?.close());

type Who = { key: string };
interface Hit { type: string; id: string; project_id: string | null; title: string; snippet: string; score: number }

function assertProblem(res: { statusCode: number; body: string; headers?: Record<string, unknown> }, status: number, code: string, path?: string) {
  assert.equal(res.statusCode, status, res.body);
  const problem = JSON.parse(res.body);
  assert.equal(problem.code, code, res.body);
  assert.match(String(res.headers?.['content-type'] ?? 'application/problem+json'), /problem\+json/);
  if (path) assert.ok(problem.errors.some((e: { path: string }) => e.path === path), res.body);
}

async function search(who: Who, params: Record<string, string>): Promise<Hit[]> {
  const res = await api(t, who, 'GET', `/v1/search?${new URLSearchParams(params)}`);
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(Object.keys(res.json()), ['data']);
  return res.json().data;
}
const ids = (hits: Hit[]) => hits.map((h) => h.id);
const sorted = (xs: string[]) => [...xs].sort();

async function created(who: Who, method: string, url: string, body: unknown): Promise<{ id: string }> {
  const res = await api(t, who, method, url, body);
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json();
}
const project = (who: Who, body: Record<string, unknown>) => created(who, 'POST', '/v1/projects', body);
const task = (who: Who, projectId: string, body: Record<string, unknown>) => created(who, 'POST', `/v1/projects/${projectId}/tasks`, body);
const comment = (who: Who, projectId: string, body: string) => created(who, 'POST', `/v1/projects/${projectId}/comments`, { body });

async function upload(who: Who, url: string, fields: Record<string, string>, file: FilePart): Promise<{ id: string }> {
  const { payload, headers } = multipart(fields, file);
  const res = await t.app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}
const photo = (who: Who, projectId: string, caption: string) =>
  upload(who, `/v1/projects/${projectId}/photos`, { caption }, { data: jpeg, filename: 'site.jpg', contentType: 'image/jpeg' });
const documentOf = (who: Who, projectId: string, filename: string, data: Buffer, name?: string) =>
  upload(who, `/v1/projects/${projectId}/documents`, name ? { name } : {}, { data, filename });

/** A real PDF with a text layer (pdfkit), one page per paragraph. */
function pdfWith(...pages: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', autoFirstPage: false });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    for (const text of pages) doc.addPage().fontSize(14).text(text, 72, 72);
    doc.end();
  });
}

const tag = () => crypto.randomBytes(4).toString('hex');

describe('GET /v1/search', () => {
  let ws: TestWorkspace;
  let maple: { id: string };
  let harbor: { id: string };

  before(async () => {
    ws = await newWorkspace(t);
    maple = await project(ws.admin, { name: 'Maple Street Remodel', description: 'Kitchen and basement for the Nguyen family', address: { city: 'Springfield', state: 'IL' } });
    harbor = await project(ws.admin, { name: 'Harbor Café Fit-Out', address: { city: 'Portland', state: 'OR' } });
  });

  it('finds every kind of object by its words, in any form, case and accent', async () => {
    const leak = await task(ws.admin, maple.id, { title: 'Fix basement leak', description: 'Water is cracking the drywall near the sump pump' });
    const note = await comment(ws.admin, maple.id, 'Basement drywall is cracked again.\nCall the plumber Monday.');
    const pic = await photo(ws.admin, maple.id, 'Cracks in basement drywall, north wall');

    const hits = await search(ws.admin, { q: 'CRACK drywall' });
    assert.deepEqual(sorted(ids(hits)), sorted([leak.id, note.id, pic.id]));
    const byId = new Map(hits.map((h) => [h.id, h]));
    assert.deepEqual({ ...byId.get(leak.id)!, snippet: '', score: 0 }, { type: 'task', id: leak.id, project_id: maple.id, title: 'Fix basement leak', snippet: '', score: 0 });
    assert.equal(byId.get(note.id)!.title, 'Basement drywall is cracked again.');
    assert.equal(byId.get(note.id)!.type, 'comment');
    assert.equal(byId.get(pic.id)!.type, 'photo');
    assert.match(byId.get(leak.id)!.snippet, /«cracking» the «drywall»/);
    for (const h of hits) assert.ok(h.score > 0);

    // Accents and case, both ways: "cafe" finds "Café", "CAFÉ" too, and "Nguyen" a description.
    assert.deepEqual(ids(await search(ws.admin, { q: 'cafe' })), [harbor.id]);
    assert.deepEqual(ids(await search(ws.admin, { q: 'CAFÉ fit-out' })), [harbor.id]);
    const accented = await comment(ws.admin, harbor.id, 'Résumé of the façade inspection');
    assert.deepEqual(ids(await search(ws.admin, { q: 'facade resume' })), [accented.id]);
    assert.deepEqual(ids(await search(ws.admin, { q: 'nguyen' })), [maple.id]);
    assert.deepEqual(ids(await search(ws.admin, { q: 'springfield' })), [maple.id]);
  });

  it('ranks a match in a name or title above one in a body, and takes the syntax: phrases, -exclusions, or', async () => {
    const word = `gravel${tag()}`;
    const body = await task(ws.admin, maple.id, { title: 'Order materials', description: `Need ${word} for the drive` });
    const title = await task(ws.admin, maple.id, { title: `Spread ${word} on the drive`, description: 'Before the rain' });
    const hits = await search(ws.admin, { q: word });
    assert.deepEqual(ids(hits), [title.id, body.id]);
    assert.ok(hits[0]!.score > hits[1]!.score);

    const first = await comment(ws.admin, maple.id, `The ${word} pile blocks the north gate`);
    const second = await comment(ws.admin, maple.id, `North ${word} gate pile is gone`);
    assert.deepEqual(ids(await search(ws.admin, { q: `"${word} pile"` })), [first.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: `${word} pile` }))), sorted([first.id, second.id]));
    assert.deepEqual(ids(await search(ws.admin, { q: `${word} pile -gone` })), [first.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: `${word} -pile` }))), sorted([body.id, title.id]));
    const other = `sand${tag()}`;
    const sand = await comment(ws.admin, maple.id, `Sand ${other} arrives Friday`);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: `"${word} pile" or ${other}` }))), sorted([first.id, sand.id]));
    assert.deepEqual(await search(ws.admin, { q: `${word} nothingmatchesthis` }), []);
  });

  it('marks matches in a plain-text snippet, never as HTML; « and » of the text itself are shown as ‹ and ›', async () => {
    const word = `rebar${tag()}`;
    const c = await comment(ws.admin, maple.id, `<b>Check</b> the «${word}» spacing <script>alert(1)</script> before the pour`);
    const [hit] = await search(ws.admin, { q: word });
    assert.equal(hit!.id, c.id);
    assert.equal(hit!.snippet, `<b>Check</b> the ‹«${word}»› spacing <script>alert(1)</script> before the pour`);
    assert.equal(hit!.title, `<b>Check</b> the «${word}» spacing <script>alert(1)</script> before the pour`);
  });

  it('filters by types and project_id, and limits', async () => {
    const word = `stucco${tag()}`;
    const t1 = await task(ws.admin, maple.id, { title: `Patch ${word}` });
    const t2 = await task(ws.admin, harbor.id, { title: `Paint ${word}` });
    const c1 = await comment(ws.admin, harbor.id, `${word} looks good`);
    const p1 = await photo(ws.admin, harbor.id, `${word} corner`);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word, types: 'task' }))), sorted([t1.id, t2.id]));
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word, types: 'comment,photo' }))), sorted([c1.id, p1.id]));
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word, project_id: harbor.id }))), sorted([t2.id, c1.id, p1.id]));
    assert.deepEqual(ids(await search(ws.admin, { q: word, project_id: harbor.id, types: 'task,project' })), [t2.id]);
    assert.equal((await search(ws.admin, { q: word, limit: '2' })).length, 2);
    assert.equal((await search(ws.admin, { q: word })).length, 4);
  });

  it('finds documents by name, and PDFs and text files by their text once the extraction job ran', async () => {
    const word = `permit${tag()}`;
    const pdf = await documentOf(ws.admin, maple.id, 'building.pdf', await pdfWith('City of Springfield', `Electrical ${word} approved for the Crème Brûlée Bakery, 14 Oak St.`),
      `Electrical ${word}.pdf`);
    const txt = await documentOf(ws.admin, maple.id, 'notes.txt', Buffer.from(`Gate code 4471. The ${word} inspector is Zoë Ávila.\n`));
    const sheet = await documentOf(ws.admin, harbor.id, 'hours.csv', Buffer.from(`name,hours\nZoë Ávila,8\nbakery${word},3\n`));
    // Before the job: the name only.
    assert.deepEqual(ids(await search(ws.admin, { q: word })), [pdf.id]);
    assert.deepEqual(await search(ws.admin, { q: 'creme brulee bakery' }), []);

    await t.runJobs();
    const hits = await search(ws.admin, { q: word, types: 'document' });
    assert.deepEqual(ids(hits), [pdf.id, txt.id]); // the name match first
    assert.match(hits[1]!.snippet, new RegExp(`The «${word}» inspector`));
    assert.deepEqual(ids(await search(ws.admin, { q: 'creme brulee bakery' })), [pdf.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: 'zoe avila' }))), sorted([txt.id, sheet.id]));
    const texts = await sql<{ document_id: string; status: string; page_count: number | null; truncated: boolean }>`
      select document_id, status, page_count, truncated from document_texts where document_id in (${pdf.id}, ${txt.id})`.execute(t.db);
    assert.deepEqual(texts.rows.map((r) => [r.document_id, r.status, r.page_count, r.truncated]).sort(),
      [[pdf.id, 'extracted', 2, false], [txt.id, 'extracted', null, false]].sort());

    // A rename keeps the text; a delete takes the document out.
    await api(t, ws.admin, 'PATCH', `/v1/documents/${pdf.id}`, { name: 'Electrical.pdf' });
    assert.deepEqual(ids(await search(ws.admin, { q: 'creme brulee' })), [pdf.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word, types: 'document' }))), sorted([pdf.id, txt.id]));
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/documents/${pdf.id}`)).statusCode, 204);
    assert.deepEqual(await search(ws.admin, { q: 'creme brulee' }), []);
  });

  it('makes the snippet of a long text around its match', async () => {
    const word = `sumppump${tag()}`;
    const filler = 'The crew checked the footings and the forms on the east side. '.repeat(1500); // ~95,000 characters
    const doc = await documentOf(ws.admin, harbor.id, 'daily-log.txt', Buffer.from(`${filler}Found the ${word} flooded at noon. ${filler}`));
    await t.runJobs();
    const [hit] = await search(ws.admin, { q: word });
    assert.equal(hit!.id, doc.id);
    assert.match(hit!.snippet, new RegExp(`«${word}» flooded at noon`));
    assert.ok(hit!.snippet.length < 400, hit!.snippet);
  });

  it('records a PDF it cannot read as failed, without failing the document; a scan without text is empty', async () => {
    const broken = Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), crypto.randomBytes(2000)]);
    const bad = await documentOf(ws.admin, harbor.id, 'broken.pdf', broken);
    const blank = await documentOf(ws.admin, harbor.id, 'scan.pdf', await pdfWith(''));
    await t.runJobs();
    const rows = (await sql<{ document_id: string; status: string; error: string | null }>`
      select document_id, status, error from document_texts where document_id in (${bad.id}, ${blank.id})`.execute(t.db)).rows;
    const of = new Map(rows.map((r) => [r.document_id, r]));
    assert.equal(of.get(bad.id)?.status, 'failed');
    assert.match(of.get(bad.id)!.error!, /not a readable PDF/);
    assert.equal(of.get(blank.id)?.status, 'empty');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/documents/${bad.id}`)).statusCode, 200);
    assert.deepEqual(ids(await search(ws.admin, { q: 'broken' })), [bad.id]);
  });

  it('follows edits and deletes: captions, task titles, comments, projects with their content', async () => {
    const word = `shingle${tag()}`;
    const p = await project(ws.admin, { name: `Roof ${word}` });
    const pic = await photo(ws.admin, p.id, `Old ${word}`);
    const tk = await task(ws.admin, p.id, { title: `Tear off ${word}` });
    const c = await comment(ws.admin, p.id, `Delivered ${word}`);
    assert.equal((await search(ws.admin, { q: word })).length, 4);

    await api(t, ws.admin, 'PATCH', `/v1/photos/${pic.id}`, { caption: 'Ridge vent' });
    await api(t, ws.admin, 'PATCH', `/v1/tasks/${tk.id}`, { title: 'Tear off the old roof' });
    await api(t, ws.admin, 'PATCH', `/v1/comments/${c.id}`, { body: 'Delivered the vents' });
    assert.deepEqual(ids(await search(ws.admin, { q: word })), [p.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: 'vent', project_id: p.id }))), sorted([pic.id, c.id]));
    assert.equal((await search(ws.admin, { q: 'vent', project_id: p.id })).find((h) => h.id === pic.id)!.title, 'Ridge vent');

    // Videos are found by their caption too (made here in SQL: the upload path is videos.test.ts's).
    await sql`insert into videos (id, workspace_id, project_id, creator_id, blob_key, content_type, byte_size, sha256, caption, captured_at, captured_at_source)
      values ('vid_01jdq9a1b3c5d7e9f1g3h5j7k9', ${ws.id}, ${p.id}, ${ws.admin.id}, ${`videos/${tag()}`}, 'video/mp4', 1, ${'a'.repeat(64)}, 'Vent flashing walkthrough', now(), 'upload')`.execute(t.db);
    assert.deepEqual(ids(await search(ws.admin, { q: 'walkthrough', types: 'video' })), ['vid_01jdq9a1b3c5d7e9f1g3h5j7k9']);
    await sql`delete from videos where id = 'vid_01jdq9a1b3c5d7e9f1g3h5j7k9'`.execute(t.db);
    assert.deepEqual(await search(ws.admin, { q: 'walkthrough' }), []);

    // A caption taken away takes the photo out; a comment deleted is gone.
    await api(t, ws.admin, 'PATCH', `/v1/photos/${pic.id}`, { caption: null });
    assert.deepEqual(ids(await search(ws.admin, { q: 'vent', project_id: p.id })), [c.id]);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/comments/${c.id}`)).statusCode, 204);
    assert.deepEqual(await search(ws.admin, { q: 'vent', project_id: p.id }), []);

    // Deleting the project takes everything in it.
    await comment(ws.admin, p.id, `More ${word}`);
    await api(t, ws.admin, 'PATCH', `/v1/tasks/${tk.id}`, { title: `Tear off ${word}` });
    assert.equal((await search(ws.admin, { q: word })).length, 3);
    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/projects/${p.id}`)).statusCode, 204);
    assert.deepEqual(await search(ws.admin, { q: word }), []);
    const left = await sql<{ n: string }>`select count(*) as n from search_entries where workspace_id = ${ws.id} and (project_id = ${p.id} or id = ${p.id})`.execute(t.db);
    assert.equal(Number(left.rows[0]!.n), 0);
  });

  it('shows restricted users only their projects\' content, following crew changes; archived projects stay searchable', async () => {
    const word = `drywall${tag()}`;
    const sub = await newUser(t, ws, 'restricted');
    const theirs = await project(ws.admin, { name: `Crew ${word}` });
    const mine = await project(sub, { name: `Own ${word}` });
    const hidden = await project(ws.admin, { name: `Hidden ${word}` });
    const t1 = await task(ws.admin, theirs.id, { title: `Hang ${word}` });
    const t2 = await task(ws.admin, hidden.id, { title: `Tape ${word}` });
    assert.deepEqual(ids(await search(sub, { q: word })), [mine.id]);

    await api(t, ws.admin, 'PUT', `/v1/projects/${theirs.id}/members/${sub.id}`);
    assert.deepEqual(sorted(ids(await search(sub, { q: word }))), sorted([mine.id, theirs.id, t1.id]));
    assertProblem(await api(t, sub, 'GET', `/v1/search?q=${word}&project_id=${hidden.id}`), 404, 'not_found');
    assert.deepEqual(ids(await search(sub, { q: word, project_id: theirs.id, types: 'task' })), [t1.id]);

    await api(t, ws.admin, 'POST', `/v1/projects/${theirs.id}/archive`);
    assert.deepEqual(sorted(ids(await search(sub, { q: word }))), sorted([mine.id, theirs.id, t1.id]));
    await api(t, ws.admin, 'DELETE', `/v1/projects/${theirs.id}/members/${sub.id}`);
    assert.deepEqual(ids(await search(sub, { q: word })), [mine.id]);

    // Everyone else sees the whole workspace.
    const standard = await newUser(t, ws, 'standard');
    assert.deepEqual(sorted(ids(await search(standard, { q: word }))), sorted([theirs.id, mine.id, hidden.id, t1.id, t2.id]));
  });

  it('never shows another workspace\'s content', async () => {
    const word = `caulk${tag()}`;
    const other = await newWorkspace(t);
    const theirs = await project(other.admin, { name: `Their ${word}` });
    await task(other.admin, theirs.id, { title: `Their task ${word}` });
    const ours = await task(ws.admin, maple.id, { title: `Our ${word}` });
    assert.deepEqual(ids(await search(ws.admin, { q: word })), [ours.id]);
    assert.equal((await search(other.admin, { q: word })).length, 2);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/search?q=${word}&project_id=${theirs.id}`), 404, 'not_found');
  });

  it('ranks only the 200 most recent matches of a common word, and finds the rest by narrowing', async () => {
    const word = `plywood${tag()}`;
    const p = await project(ws.admin, { name: `Deck ${tag()}` });
    // An old task titled with the word (the best match there is), then 220 newer comments with it in their body.
    const old = await task(ws.admin, p.id, { title: `${word} ${word} delivery` });
    await sql`update tasks set updated_at = now() - interval '2 years' where id = ${old.id}`.execute(t.db);
    await sql`insert into comments (id, workspace_id, project_id, subject_type, author_id, body, created_at, updated_at)
      select 'cmt_' || lpad(to_hex(g), 26, '0'), ${ws.id}, ${p.id}, 'project', ${ws.admin.id}, 'Stack the ' || ${word} || ' sheets, batch ' || g,
             now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval
      from generate_series(1, 220) g`.execute(t.db);
    const hits = await search(ws.admin, { q: word, limit: '50' });
    assert.equal(hits.length, 50);
    assert.ok(hits.every((h) => h.type === 'comment'), 'the old task is not among the 200 most recent matches');
    // Narrowed by type, the task is found (and a restricted user on the crew walks the project's own entries: same answer).
    assert.deepEqual(ids(await search(ws.admin, { q: word, types: 'task' })), [old.id]);
    assert.deepEqual(ids(await search(ws.admin, { q: `${word} delivery` })), [old.id]);
    const sub = await newUser(t, ws, 'restricted');
    await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${sub.id}`);
    assert.deepEqual(ids(await search(sub, { q: word, limit: '50' })), ids(hits));
  });

  it('looks past the recent window: a rare word in all time, a sparser one in the hours its rate calls for', async () => {
    const own = await newWorkspace(t);
    const p = await project(own.admin, { name: `Tower ${tag()}` });
    const [sparse, rare, thin] = [`sparse${tag()}`, `rare${tag()}`, `thin${tag()}`];
    // 6,000 comments, one a minute back from now (more than RECENT_WINDOW, 5,000). `sparse` is in
    // every 100th of the newest 5,000 (50: too few to rank, enough to tell its rate; in long
    // texts) and twice in each of the 1,000 older, short ones (they rank higher); `rare` in 5 older
    // ones only; `thin` in every 200th.
    // 500 rows a statement: 6,000 through the triggers at once can outlast the client's timeout on a busy machine.
    const suffix = tag();
    for (let from = 1; from <= 6000; from += 500) {
      await sql`insert into comments (id, workspace_id, project_id, subject_type, author_id, body, created_at, updated_at)
        select 'cmt_' || lpad(to_hex(g), 20, '0') || ${suffix}, ${own.id}, ${p.id}, 'project', ${own.admin.id},
               'Note ' || g
                 || case when g > 5000 then ' ' || ${sparse} || ' and ' || ${sparse} when g % 100 = 0 then ' ' || ${sparse} || repeat(' and so on', 20) else '' end
                 || case when g between 5500 and 5504 then ' ' || ${rare} else '' end
                 || case when g % 200 = 0 then ' ' || ${thin} else '' end,
               now() - (g || ' minutes')::interval, now() - (g || ' minutes')::interval
        from generate_series(${from}::int, ${from + 499}::int) g`.execute(t.db);
    }
    const titled = async (title: string, age: string) => {
      const tk = await task(own.admin, p.id, { title });
      await sql`update tasks set updated_at = now() - ${age}::interval where id = ${tk.id}`.execute(t.db);
      return tk.id;
    };
    // Old tasks: the best matches there are, but older than the 200 most recent matches of `sparse`.
    const oldSparse = await titled(`${sparse} ${sparse}`, '2 years');
    const oldThin = await Promise.all(Array.from({ length: 10 }, () => titled(`${thin} check`, '2 years')));

    const body = (h: Hit) => Number(/Note (\d+)/.exec(h.snippet)?.[1] ?? NaN);
    const top = await search(own.admin, { q: sparse, limit: '50' });
    assert.equal(top.length, 50);
    assert.ok(!ids(top).includes(oldSparse), 'the old task is not among the 200 most recent matches');
    // The 200 most recent: 50 in the window, then the 150 newest older ones, which rank first.
    assert.deepEqual(top.map(body).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => 5001 + i));
    assert.deepEqual(ids(await search(own.admin, { q: sparse, types: 'task' })), [oldSparse]);

    const rareHits = await search(own.admin, { q: rare });
    assert.deepEqual(rareHits.map(body).sort((a, b) => a - b), [5500, 5501, 5502, 5503, 5504]);
    // 30 comments in the last 6,000 minutes and 10 tasks two years old: the hours asked for hold
    // too few, so all of them are ranked.
    const thinHits = await search(own.admin, { q: thin, limit: '50' });
    assert.equal(thinHits.length, 40);
    assert.deepEqual(sorted(ids(thinHits).filter((id) => id.startsWith('tsk_'))), sorted(oldThin));
  });

  it('finds a restricted user\'s own photos waiting for a project, never another\'s, with few crews and with many', async () => {
    const word = `rebar${tag()}`;
    const [sub, other] = [await newUser(t, ws, 'restricted'), await newUser(t, ws, 'restricted')];
    const unfiled = (who: Who, caption: string) => upload(who, '/v1/photos', { caption }, { data: jpeg, filename: 'site.jpg', contentType: 'image/jpeg' });
    const mine = await unfiled(sub, `Bent ${word}`);
    const theirs = await unfiled(other, `Cut ${word}`);
    assert.deepEqual(ids(await search(sub, { q: word })), [mine.id], 'on no crew at all');
    assert.deepEqual(ids(await search(other, { q: word })), [theirs.id]);
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word }))), sorted([mine.id, theirs.id]));

    const crew = await project(ws.admin, { name: `Yard ${tag()}` });
    await api(t, ws.admin, 'PUT', `/v1/projects/${crew.id}/members/${sub.id}`);
    const filed = await task(ws.admin, crew.id, { title: `Tie the ${word}` });
    assert.deepEqual(sorted(ids(await search(sub, { q: word }))), sorted([mine.id, filed.id]));
    assert.deepEqual(ids(await search(sub, { q: word, project_id: crew.id })), [filed.id], 'a project narrows to its content');
    // On more crews than a search walks one by one, the same answer from the workspace-wide statements.
    for (let i = 0; i < FEW_PROJECTS; i++) {
      const p = await project(ws.admin, { name: `Site ${i} ${tag()}` });
      await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${sub.id}`);
    }
    assert.deepEqual(sorted(ids(await search(sub, { q: word }))), sorted([mine.id, filed.id]));

    // Filed into a project she is not on, her photo is out of her sight, in search as in the photo list.
    const elsewhere = await project(ws.admin, { name: `Depot ${tag()}` });
    assert.equal((await api(t, ws.admin, 'PATCH', `/v1/photos/${mine.id}`, { project_id: elsewhere.id })).statusCode, 200);
    assert.deepEqual(ids(await search(sub, { q: word })), [filed.id]);
    assert.equal((await api(t, sub, 'GET', `/v1/photos/${mine.id}`)).statusCode, 404);
  });

  it('gives a restricted user on many crews the same answer as the workspace-wide search of those projects', async () => {
    const word = `joist${tag()}`;
    const sub = await newUser(t, ws, 'restricted');
    const mine: string[] = [];
    const seen: string[] = [];
    // More crews than a search walks one by one (FEW_PROJECTS, 30): the crew is checked on the rows.
    for (let i = 0; i < 36; i++) {
      const p = await project(ws.admin, { name: `Crew site ${i} ${tag()}` });
      const tk = await task(ws.admin, p.id, { title: `Sister the ${word} ${i}` });
      if (i < 32) {
        await api(t, ws.admin, 'PUT', `/v1/projects/${p.id}/members/${sub.id}`);
        mine.push(tk.id);
      }
      seen.push(tk.id);
    }
    assert.ok(mine.length > FEW_PROJECTS && mine.length < seen.length);
    assert.deepEqual(sorted(ids(await search(sub, { q: word, limit: '50' }))), sorted(mine));
    assert.deepEqual(sorted(ids(await search(ws.admin, { q: word, limit: '50' }))), sorted(seen));
  });

  it('refuses bad input with problem+json', async () => {
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search'), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q='), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=%20%20'), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/search?q=${'a'.repeat(201)}`), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=roof&types=photo,report'), 400, 'validation_failed', 'query.types');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=roof&types='), 400, 'validation_failed', 'query.types');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=roof&project_id=nope'), 400, 'validation_failed', 'query.project_id');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=roof&limit=51'), 400, 'validation_failed', 'query.limit');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=roof&cursor=abc'), 400, 'validation_failed', 'query.cursor');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=-roof'), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/search?q=${encodeURIComponent('"!!" & -- ()')}`), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/search?q=%00roof'), 400, 'validation_failed', 'query.q');
    assertProblem(await api(t, null, 'GET', '/v1/search?q=roof'), 401, 'missing_api_key');
    // Query syntax characters are words to websearch, never errors.
    assert.ok(Array.isArray(await search(ws.admin, { q: 'roof & (gutter | !x) <-> :*' })));
    assert.ok(Array.isArray(await search(ws.admin, { q: '"unclosed phrase' })));
  });
});
