import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { csv, docx, dwg, dxf, elf, exe, legacyDoc, pdf, plainZip, pptx, script, xlsx } from './fixtures/documents.ts';
import { jpegWithExif } from './fixtures/images.ts';
import { multipart, type FilePart } from './multipart.ts';

let t: TestContext;
before(async () => {
  t = await startTestApp({ JOBSITE_DOCUMENT_MAX_BYTES: String(1024 * 1024) });
});
after(async () => t?.close());

type Who = { key: string };

function upload(who: Who, projectId: string, file?: FilePart | FilePart[], fields: Record<string, string> = {}, options: { fileFirst?: boolean } = {}) {
  const { payload, headers } = multipart(fields, file, options);
  return t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/documents`, payload, headers: { ...headers, authorization: `Bearer ${who.key}` } });
}

async function project(ws: TestWorkspace, who: Who = ws.admin): Promise<string> {
  const res = await api(t, who, 'POST', '/v1/projects', { name: `Site ${crypto.randomBytes(3).toString('hex')}` });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}

function assertProblem(res: { statusCode: number; body: string }, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.equal(JSON.parse(res.body).code, code, res.body);
}

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

describe('documents', () => {
  it('uploads a permit PDF and downloads the same bytes, by the API and by the signed URL', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const bytes = pdf();
    const res = await upload(ws.admin, prj, { data: bytes, filename: 'permit-4471.pdf', contentType: 'application/octet-stream' });
    assert.equal(res.statusCode, 201, res.body);
    const doc = res.json();
    assert.match(doc.id, /^doc_/);
    assert.equal(res.headers.location, `/v1/documents/${doc.id}`);
    assert.deepEqual([doc.name, doc.content_type, doc.byte_size, doc.sha256, doc.uploaded_by, doc.project_id],
      ['permit-4471.pdf', 'application/pdf', bytes.length, sha(bytes), ws.admin.id, prj]);

    const download = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download`);
    assert.equal(download.statusCode, 200);
    assert.ok(download.rawPayload.equals(bytes));
    assert.equal(download.headers['content-type'], 'application/pdf');
    assert.equal(download.headers['content-length'], String(bytes.length));
    assert.match(String(download.headers['content-disposition']), /^attachment; filename="permit-4471\.pdf"/);
    assert.equal(download.headers.etag, `"${sha(bytes)}"`);
    const range = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download`, undefined, { range: 'bytes=0-7' });
    assert.equal(range.statusCode, 206);
    assert.equal(range.body, '%PDF-1.4');
    assert.equal(range.headers['content-range'], `bytes 0-7/${bytes.length}`);
    const cached = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download`, undefined, { 'if-none-match': download.headers.etag as string });
    assert.equal(cached.statusCode, 304);

    const signed = await t.app.inject({ method: 'GET', url: doc.url.slice(t.config.publicUrl.length) });
    assert.equal(signed.statusCode, 200);
    assert.ok(signed.rawPayload.equals(bytes));
    assert.match(String(signed.headers['content-disposition']), /attachment; filename="permit-4471\.pdf"/);

    const events = (await api(t, ws.admin, 'GET', '/v1/events?event=document.uploaded')).json().data;
    assert.equal(events[0].data.id, doc.id);
    assert.match(events[0].data.url, /^http:\/\/jobsite\.test\/v1\/files\/documents\//);
    assert.deepEqual((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/documents`)).json().data.map((d: { id: string }) => d.id), [doc.id]);
  });

  it('serves a PDF inline for a preview framed by this origin only when asked; other types stay attachments', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const doc = (await upload(ws.admin, prj, { filename: 'plan.pdf', data: pdf() })).json();
    const inline = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download?disposition=inline`);
    assert.equal(inline.statusCode, 200);
    assert.equal(inline.headers['content-type'], 'application/pdf');
    assert.match(String(inline.headers['content-disposition']), /^inline; filename="plan\.pdf"/);
    assert.equal(inline.headers['content-security-policy'], "frame-ancestors 'self'");
    assert.equal(inline.headers['x-frame-options'], 'SAMEORIGIN');
    const attachment = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download`);
    assert.match(String(attachment.headers['content-disposition']), /^attachment;/);
    assert.equal(attachment.headers['x-frame-options'], undefined);

    const text = (await upload(ws.admin, prj, { filename: 'notes.txt', data: Buffer.from('<script>alert(1)</script>\n') })).json();
    const asked = await api(t, ws.admin, 'GET', `/v1/documents/${text.id}/download?disposition=inline`);
    assert.equal(asked.statusCode, 200);
    assert.match(String(asked.headers['content-disposition']), /^attachment; filename="notes\.txt"/);
    assert.match(String(asked.headers['content-security-policy']), /sandbox/);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download?disposition=embed`), 400, 'validation_failed');
  });

  it('accepts the allow-list, sniffed from the bytes', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const cases: [Buffer, string, string][] = [
      [docx(), 'spec.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [xlsx(), 'takeoff.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      [pptx(), 'kickoff.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      [csv(), 'hours.csv', 'text/csv'],
      [Buffer.from('Gate code 4471. Café opens at 7.\n'), 'notes.txt', 'text/plain'],
      [dwg(), 'plan.dwg', 'image/vnd.dwg'],
      [dxf(), 'plan.dxf', 'image/vnd.dxf'],
      [await jpegWithExif(), 'site.jpg', 'image/jpeg'],
    ];
    for (const [data, filename, type] of cases) {
      const res = await upload(ws.admin, prj, { data, filename });
      assert.equal(res.statusCode, 201, `${filename}: ${res.body}`);
      assert.equal(res.json().content_type, type, filename);
      const back = await api(t, ws.admin, 'GET', `/v1/documents/${res.json().id}/download`);
      assert.ok(back.rawPayload.equals(data), filename);
    }
  });

  it('refuses executables, scripts, archives and legacy binaries with 415, and anything too large with 413, keeping nothing', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    for (const [data, filename] of [[exe(), 'setup.pdf'], [elf(), 'tool'], [script(), 'install.txt'], [plainZip(), 'photos.zip'], [legacyDoc(), 'old.doc']] as const) {
      assertProblem(await upload(ws.admin, prj, { data, filename }), 415, 'unsupported_media_type');
    }
    assertProblem(await upload(ws.admin, prj, { data: Buffer.concat([pdf(), crypto.randomBytes(1024 * 1024)]), filename: 'big.pdf' }), 413, 'payload_too_large');
    assertProblem(await upload(ws.admin, prj, { data: Buffer.alloc(0), filename: 'empty.pdf' }), 400, 'empty_file');
    assertProblem(await upload(ws.admin, prj, undefined, { name: 'x' }), 400, 'missing_file');
    assertProblem(await upload(ws.admin, prj, { data: pdf() }, { colour: 'red' }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${prj}/documents`, { name: 'json' }), 415, 'unsupported_media_type');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${prj}/documents`)).json().data.length, 0);
    assert.equal((await t.db.selectFrom('documents').select('id').where('project_id', '=', prj).execute()).length, 0);
  });

  it('takes the name field (before or after the file), cleans names, renames with document.updated, deletes with the file', async () => {
    const ws = await newWorkspace(t);
    const prj = await project(ws);
    const named = await upload(ws.admin, prj, { data: pdf(), filename: 'scan0001.pdf' }, { name: 'Permit (signed).pdf' }, { fileFirst: true });
    assert.equal(named.json().name, 'Permit (signed).pdf');
    const pathy = await upload(ws.admin, prj, { data: pdf(), filename: '..\\..\\etc\\passwd.pdf' });
    assert.equal(pathy.json().name, 'passwd.pdf');
    const doc = named.json();
    const renamed = await api(t, ws.admin, 'PATCH', `/v1/documents/${doc.id}`, { name: 'Permit 4471.pdf' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.equal(renamed.json().name, 'Permit 4471.pdf');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/documents/${doc.id}`, { name: '' }), 400, 'validation_failed');
    assertProblem(await api(t, ws.admin, 'PATCH', `/v1/documents/${doc.id}`, { content_type: 'text/html' }), 400, 'validation_failed');
    const download = await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}/download`);
    assert.match(String(download.headers['content-disposition']), /filename="Permit 4471\.pdf"/);
    assert.equal((await api(t, ws.admin, 'GET', '/v1/events?event=document.updated')).json().data[0].data.name, 'Permit 4471.pdf');

    assert.equal((await api(t, ws.admin, 'DELETE', `/v1/documents/${doc.id}`)).statusCode, 204);
    assertProblem(await api(t, ws.admin, 'GET', `/v1/documents/${doc.id}`), 404, 'not_found');
    assertProblem(await t.app.inject({ method: 'GET', url: renamed.json().url.slice(t.config.publicUrl.length) }), 404, 'not_found');
    assert.equal((await api(t, ws.admin, 'GET', '/v1/events?event=document.deleted')).json().data[0].data.id, doc.id);
  });

  it('another workspace cannot read, download, rename or delete; restricted users only see their projects and change only their own', async () => {
    const ws = await newWorkspace(t);
    const other = await newWorkspace(t);
    const restricted = await newUser(t, ws, 'restricted');
    const open = await project(ws);
    const theirs = await project(ws, restricted);
    const doc = (await upload(ws.admin, open, { data: pdf(), filename: 'a.pdf' })).json();
    for (const [method, url, body] of [['GET', `/v1/documents/${doc.id}`], ['GET', `/v1/documents/${doc.id}/download`], ['PATCH', `/v1/documents/${doc.id}`, { name: 'x' }], ['DELETE', `/v1/documents/${doc.id}`], ['GET', `/v1/projects/${open}/documents`]] as const) {
      assertProblem(await api(t, other.admin, method, url, body), 404, 'not_found');
      assertProblem(await api(t, restricted, method, url, body), 404, 'not_found');
    }
    assertProblem(await upload(other.admin, open, { data: pdf() }), 404, 'not_found');
    const adminsInTheirs = (await upload(ws.admin, theirs, { data: pdf(), filename: 'b.pdf' })).json();
    const own = (await upload(restricted, theirs, { data: pdf(), filename: 'c.pdf' })).json();
    assert.equal((await api(t, restricted, 'GET', `/v1/documents/${adminsInTheirs.id}/download`)).statusCode, 200);
    assertProblem(await api(t, restricted, 'PATCH', `/v1/documents/${adminsInTheirs.id}`, { name: 'mine now' }), 403, 'forbidden');
    assertProblem(await api(t, restricted, 'DELETE', `/v1/documents/${adminsInTheirs.id}`), 403, 'forbidden');
    assert.equal((await api(t, restricted, 'PATCH', `/v1/documents/${own.id}`, { name: 'mine.pdf' })).statusCode, 200);
    assert.equal((await api(t, restricted, 'DELETE', `/v1/documents/${own.id}`)).statusCode, 204);
  });
});
