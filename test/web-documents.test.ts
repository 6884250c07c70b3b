/**
 * A project's Documents in the web app (issue 15), in Chromium: several files chosen at once and
 * one dropped, each with its progress; a refused type in the API's words; the list with type, size,
 * who and when; a rename in place (and a 412 when someone renamed it first); the PDF (made with
 * pdfkit) previewed in the browser's viewer from the API's inline download, and downloaded with
 * its exact bytes; delete behind a dialog that Escape cancels; paging. A restricted user on a
 * phone may rename and delete only their own; a user whose role dropped meanwhile gets the API's
 * 403 in words. The API is checked after each action.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import PDFDocument from 'pdfkit';
import type { Browser, Page } from 'playwright-core';
import { newId } from '../src/ids.ts';
import { newBlobKey } from '../src/storage/keys.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, userWithPassword } from './web-server.ts';

/** Small, so that a refused size is a real 413 from a small file. */
const DOCUMENT_MAX_BYTES = 100_000;
const { t, origin } = await listeningTestApp({ JOBSITE_DOCUMENT_MAX_BYTES: String(DOCUMENT_MAX_BYTES) });
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

/** A one-page PDF with `text` on it, as pdfkit writes one. */
function makePdf(text: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({ size: 'A4', info: { Title: text } });
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.fontSize(24).text(text, 72, 72);
    doc.end();
  });
}

/** A real upload with the API key: multipart over HTTP. */
async function uploadByApi(key: string, projectId: string, name: string, data: Buffer): Promise<Json> {
  const form = new FormData();
  form.set('file', new Blob([new Uint8Array(data)]), name);
  const res = await fetch(`${origin}/v1/projects/${projectId}/documents`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
  assert.equal(res.status, 201, await res.clone().text());
  return await res.json() as Json;
}

describe('documents in the web app', { skip: SKIP, timeout: 90_000 }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const emails = { olga: `olga-${stamp}@example.test`, rex: `rex-${stamp}@example.test`, bea: `bea-${stamp}@example.test` };
  const people: Record<keyof typeof emails, Json> = {} as never;
  let project: Json;
  let pdf: Buffer;

  before(async () => {
    ws = await newWorkspace(t);
    const invite = (email: string, first_name: string, last_name: string, role: string) => userWithPassword(origin, ws, email, role, { first_name, last_name });
    people.olga = await invite(emails.olga, 'Olga', 'Office', 'standard');
    people.rex = await invite(emails.rex, 'Rex', 'Helper', 'restricted');
    people.bea = await invite(emails.bea, 'Bea', 'Builder', 'standard');
    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    for (const who of [people.olga, people.rex, people.bea]) await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${who.id}`);
    pdf = await makePdf('Site plan, revision C');
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const apiDocs = async (projectId = project.id) => (await call(ws.admin.key, 'GET', `/v1/projects/${projectId}/documents?limit=100`)).data as Json[];
  const list = (page: Page) => page.getByRole('list', { name: 'Documents' });
  const rowOf = (page: Page, name: string) => list(page).getByRole('listitem').filter({ has: page.getByText(name, { exact: true }) });
  const uploadRow = (page: Page, name: string) => page.getByRole('list', { name: 'Uploads' }).getByRole('listitem').filter({ hasText: name });
  const progressFull = (page: Page, name: string) => page.getByRole('progressbar', { name: `Upload of ${name}` })
    .evaluate((el) => (el as HTMLProgressElement).max > 0 && (el as HTMLProgressElement).value === (el as HTMLProgressElement).max);
  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

  it('on a desktop: uploads several files with progress (a refusal in words), renames (a 412 in words), previews and downloads the PDF, deletes behind a dialog', async () => {
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, emails.olga);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Documents' }).click();
    await page.getByRole('heading', { name: 'Documents', level: 2 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/projects/${project.id}/documents`);
    await page.getByText('No documents yet.').waitFor();

    // Four files chosen at once: a PDF, a CSV, and two the API refuses: a Windows program, a text over the size limit.
    const csv = Buffer.from('day,pour\nMon,deck A\nTue,deck B\n');
    await page.getByLabel('Choose documents').setInputFiles([
      { name: 'Site plan.pdf', mimeType: 'application/pdf', buffer: pdf },
      { name: 'schedule.csv', mimeType: 'text/csv', buffer: csv },
      { name: 'setup.exe', mimeType: 'application/octet-stream', buffer: Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]) },
      { name: 'survey.txt', mimeType: 'text/plain', buffer: Buffer.alloc(DOCUMENT_MAX_BYTES + 1, 'level 12.5\n') },
    ]);
    for (const name of ['Site plan.pdf', 'schedule.csv']) {
      await uploadRow(page, name).getByText('Uploaded').waitFor();
      assert.ok(await progressFull(page, name), `${name}: the progress bar is full`);
    }
    const refused = uploadRow(page, 'setup.exe').getByRole('alert');
    await refused.waitFor();
    assert.match(await refused.innerText(), /Unsupported media type.*PDF/s, 'the API\'s 415 in words');
    const tooLarge = uploadRow(page, 'survey.txt').getByRole('alert');
    await tooLarge.waitFor();
    assert.match(await tooLarge.innerText(), /Payload too large.*limit/s, 'the API\'s 413 in words');
    await page.getByRole('status').filter({ hasText: '2 uploaded, 2 not uploaded.' }).waitFor();

    // One more dropped on the zone (a synthetic drop of a file made in the page).
    const transfer = await page.evaluateHandle(() => {
      const data = new DataTransfer();
      data.items.add(new File(['Gate code 4471\n'], 'notes.txt', { type: 'text/plain' }));
      return data;
    });
    const zone = page.getByRole('group', { name: 'Upload documents' });
    for (const type of ['dragenter', 'dragover', 'drop']) await zone.dispatchEvent(type, { dataTransfer: transfer });
    await uploadRow(page, 'notes.txt').getByText('Uploaded').waitFor();

    // Listed as they arrive (the newest first, as the API lists them), with type, size, who and when; the same on the server.
    await rowOf(page, 'notes.txt').waitFor();
    const names = () => list(page).getByRole('listitem').locator('.document-name').allInnerTexts();
    const uploaded = ['Site plan.pdf', 'notes.txt', 'schedule.csv'];
    assert.equal((await names())[0], 'notes.txt', 'the last upload is on top');
    assert.deepEqual((await names()).sort(), uploaded);
    const docs = await apiDocs();
    assert.deepEqual(docs.map((d) => d.name).sort(), uploaded);
    assert.ok(docs.every((d) => d.uploaded_by === people.olga.id));
    const pdfDoc = docs.find((d) => d.name === 'Site plan.pdf')!;
    assert.equal(pdfDoc.byte_size, pdf.length);
    assert.match(await rowOf(page, 'Site plan.pdf').innerText(), new RegExp(`PDF · ${(pdf.length / 1024).toFixed(1).replace(/\.0$/, '')} KB · uploaded by you on \\w{3} \\d+, \\d{4}`));
    assert.match(await rowOf(page, 'schedule.csv').innerText(), new RegExp(`CSV · ${csv.length} bytes · uploaded by you on`));
    await page.screenshot({ path: screenshotPath('web-documents-desktop'), fullPage: true });
    assert.deepEqual(await seriousAxeViolations(page), []);

    // Rename in place: the name without its extension is selected; the server has the new name.
    await page.getByRole('button', { name: 'Rename schedule.csv' }).click();
    const renameForm = page.getByRole('form', { name: 'Rename schedule.csv' });
    const field = renameForm.getByLabel('New name');
    assert.equal(await field.evaluate((el) => (el as HTMLInputElement).value.slice((el as HTMLInputElement).selectionStart!, (el as HTMLInputElement).selectionEnd!)), 'schedule');
    await page.keyboard.type('Pour schedule');
    await renameForm.getByRole('button', { name: 'Save name' }).click();
    await page.getByRole('status').filter({ hasText: '“schedule.csv” is renamed to “Pour schedule.csv”.' }).waitFor();
    await page.waitForFunction(() => document.activeElement?.textContent === 'Rename Pour schedule.csv');
    const csvDoc = docs.find((d) => d.name === 'schedule.csv')!;
    assert.equal((await call(ws.admin.key, 'GET', `/v1/documents/${csvDoc.id}`)).name, 'Pour schedule.csv');

    // Someone renames notes.txt while the form is open: Save is a 412 in words, the row shows their name; a second Save wins.
    await page.getByRole('button', { name: 'Rename notes.txt' }).click();
    const notesForm = page.getByRole('form', { name: 'Rename notes.txt' });
    await notesForm.getByLabel('New name').fill('Gate codes.txt');
    const notesDoc = docs.find((d) => d.name === 'notes.txt')!;
    await call(ws.admin.key, 'PATCH', `/v1/documents/${notesDoc.id}`, { name: 'notes (office).txt' });
    await notesForm.getByRole('button', { name: 'Save name' }).click();
    const stale = page.getByRole('form', { name: 'Rename notes (office).txt' }).getByRole('alert');
    await stale.waitFor();
    assert.match(await stale.innerText(), /Someone else changed this document meanwhile\..*It is now called “notes \(office\)\.txt”/s);
    assert.equal((await call(ws.admin.key, 'GET', `/v1/documents/${notesDoc.id}`)).name, 'notes (office).txt', 'the 412 changed nothing');
    await page.getByRole('form', { name: 'Rename notes (office).txt' }).getByRole('button', { name: 'Save name' }).click();
    await rowOf(page, 'Gate codes.txt').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/documents/${notesDoc.id}`)).name, 'Gate codes.txt');
    // Escape closes a rename without saving.
    await page.getByRole('button', { name: 'Rename Gate codes.txt' }).click();
    await page.getByRole('form', { name: 'Rename Gate codes.txt' }).getByLabel('New name').fill('x.txt');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Rename Gate codes.txt' }).waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/documents/${notesDoc.id}`)).name, 'Gate codes.txt');

    // Non-PDFs download straight from the list, with their bytes and name.
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), rowOf(page, 'Pour schedule.csv').getByRole('link', { name: 'Download Pour schedule.csv' }).click()]);
    assert.equal(csvDownload.suggestedFilename(), 'Pour schedule.csv');
    assert.ok((await fs.readFile((await csvDownload.path())!)).equals(csv));

    // The PDF's preview: the browser's viewer in a frame, fed by the API's inline download.
    const inline = page.waitForResponse((r) => r.url().endsWith(`/v1/documents/${pdfDoc.id}/download?disposition=inline`));
    await page.getByRole('link', { name: 'Preview Site plan.pdf' }).click();
    await page.getByRole('heading', { name: 'Site plan.pdf', level: 2 }).waitFor();
    assert.equal(new URL(page.url()).pathname, `/projects/${project.id}/documents/${pdfDoc.id}`);
    const frame = page.getByTitle('Preview of Site plan.pdf');
    assert.equal(await frame.evaluate((el) => el.tagName), 'IFRAME');
    const response = await inline;
    assert.equal(response.status(), 200);
    assert.equal(await response.headerValue('content-type'), 'application/pdf');
    assert.match((await response.headerValue('content-disposition'))!, /^inline; filename="Site plan\.pdf"/);
    assert.equal(await response.headerValue('content-security-policy'), "frame-ancestors 'self'");
    // The frame holds the PDF, and Chromium's own PDF viewer (its built-in extension) took it: shown, not downloaded.
    const framed = () => page.frames().some((f) => f.url() === `${origin}/v1/documents/${pdfDoc.id}/download?disposition=inline`);
    const viewer = () => page.frames().some((f) => /^chrome-extension:\/\/[a-p]{32}\/index\.html$/.test(f.url()));
    for (let tries = 0; !(framed() && viewer()) && tries < 100; tries++) await page.waitForTimeout(100);
    assert.ok(framed(), 'the frame holds the PDF');
    assert.ok(viewer(), 'the PDF viewer opened in the frame');
    await frame.scrollIntoViewIfNeeded();
    await page.waitForTimeout(1000); // the viewer draws the page, for the screenshot only
    await page.screenshot({ path: screenshotPath('web-documents-preview-desktop') });
    assert.deepEqual(await seriousAxeViolations(page), []);
    // The Download link gives the exact bytes under the document's name.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download Site plan.pdf' }).click()]);
    assert.equal(download.suggestedFilename(), 'Site plan.pdf');
    assert.ok((await fs.readFile((await download.path())!)).equals(pdf), 'the download is the uploaded PDF, byte for byte');

    // Delete: the dialog; Escape keeps the document and gives the focus back; Delete document deletes it.
    await page.getByRole('link', { name: '← Documents' }).click();
    const deleteCsv = page.getByRole('button', { name: 'Delete Pour schedule.csv' });
    await deleteCsv.click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Pour schedule.csv”?' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await deleteCsv.evaluate((el) => el === document.activeElement), 'focus back on Delete');
    assert.equal((await apiDocs()).length, 3, 'Escape deleted nothing');
    await deleteCsv.click();
    await dialog.getByRole('button', { name: 'Delete document' }).click();
    await page.getByRole('status').filter({ hasText: '“Pour schedule.csv” is deleted.' }).waitFor();
    assert.equal(await rowOf(page, 'Pour schedule.csv').count(), 0);
    assert.deepEqual((await apiDocs()).map((d) => d.name), ['Gate codes.txt', 'Site plan.pdf']);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone, a restricted user renames and deletes only their own; a user whose role dropped gets the API\'s 403 in words', async () => {
    await uploadByApi(ws.admin.key, project.id, 'Permit 4471.pdf', await makePdf('Permit 4471'));
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.phone, emails.rex, { hasTouch: true });
    await page.goto(`${origin}/projects/${project.id}/documents`);
    await rowOf(page, 'Permit 4471.pdf').waitFor();
    // Not their project: the page does not offer what the API would refuse (project.edit is 'own' for restricted users).
    assert.equal(await page.getByRole('button', { name: /^(Edit project|Archive)$/ }).count(), 0, 'no Edit project or Archive');
    await page.getByLabel('Choose documents').setInputFiles([{ name: 'Rex daily log.txt', mimeType: 'text/plain', buffer: Buffer.from('Swept deck.\n') }]);
    await rowOf(page, 'Rex daily log.txt').waitFor();
    // Theirs: Rename and Delete. Others' (the admin's, Olga's): Preview or Download only.
    const own = rowOf(page, 'Rex daily log.txt');
    assert.ok(await own.getByRole('button', { name: 'Rename Rex daily log.txt' }).isVisible());
    assert.ok(await own.getByRole('button', { name: 'Delete Rex daily log.txt' }).isVisible());
    for (const name of ['Permit 4471.pdf', 'Gate codes.txt', 'Site plan.pdf']) {
      const row = rowOf(page, name);
      assert.equal(await row.getByRole('button').count(), 0, `${name}: no Rename or Delete for a restricted user`);
      assert.ok(await row.getByRole('link', { name: `Download ${name}` }).isVisible());
    }
    assert.match(await rowOf(page, 'Site plan.pdf').innerText(), /uploaded by Olga Office on/);
    assert.match(await own.innerText(), /Text · 12 bytes · uploaded by you on/);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on a phone');
    await page.screenshot({ path: screenshotPath('web-documents-phone'), fullPage: true });
    assert.deepEqual(await seriousAxeViolations(page), []);
    await own.getByRole('button', { name: 'Rename Rex daily log.txt' }).click();
    await page.getByRole('form', { name: 'Rename Rex daily log.txt' }).getByLabel('New name').fill('Rex log, Monday.txt');
    await page.getByRole('button', { name: 'Save name' }).click();
    await rowOf(page, 'Rex log, Monday.txt').waitFor();
    assert.ok((await apiDocs()).some((d) => d.name === 'Rex log, Monday.txt'));
    // Others' PDFs preview on the phone too: the frame fits the screen, with the note and Download.
    await rowOf(page, 'Permit 4471.pdf').getByRole('link', { name: 'Preview Permit 4471.pdf' }).click();
    const frame = page.getByTitle('Preview of Permit 4471.pdf');
    await frame.waitFor();
    assert.ok((await frame.boundingBox())!.width <= VIEWPORTS.phone.width, 'the frame fits the phone');
    assert.ok(await page.getByText('If the preview stays empty').isVisible());
    assert.ok(await page.getByRole('link', { name: 'Download Permit 4471.pdf' }).isVisible());
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on the preview');
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();

    // Bea (standard) has the page open; an admin makes her restricted; her Delete is the API's 403, in words.
    const bea = await openPage(browser, origin, VIEWPORTS.phone, emails.bea, { hasTouch: true });
    await bea.page.goto(`${origin}/projects/${project.id}/documents`);
    await bea.page.getByRole('button', { name: 'Delete Site plan.pdf' }).click();
    await call(ws.admin.key, 'PATCH', `/v1/users/${people.bea.id}`, { role: 'restricted' });
    const dialog = bea.page.getByRole('dialog', { name: 'Delete “Site plan.pdf”?' });
    await dialog.getByRole('button', { name: 'Delete document' }).click();
    const refusal = dialog.getByRole('alert');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /Forbidden.*Your role \(restricted\) may not rename or delete documents they did not upload\./s);
    await bea.page.keyboard.press('Escape');
    assert.ok((await apiDocs()).some((d) => d.name === 'Site plan.pdf'), 'still there');
    assert.deepEqual(bea.errors, []);
    await bea.context.close();
  });

  it('pages through more than 50 documents', async () => {
    const big = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Drawings archive' });
    // One upload through the API, then 51 more stored as the service stores them (a file each, then the row): 52 uploads would take seconds.
    const first = await uploadByApi(ws.admin.key, big.id, 'Drawing 01.txt', Buffer.from('Drawing 1\n'));
    const row = await t.db.selectFrom('documents').selectAll().where('id', '=', first.id).executeTakeFirstOrThrow();
    const { blobs } = t.jobDeps();
    const rows = [];
    for (let i = 2; i <= 52; i++) {
      const key = newBlobKey('documents');
      const stored = await blobs.put(key, Readable.from([Buffer.from(`Drawing ${i}\n`)]), { contentType: 'text/plain' });
      rows.push({ ...row, id: newId('document'), name: `Drawing ${String(i).padStart(2, '0')}.txt`, blob_key: key, sha256: stored.sha256, byte_size: stored.byteSize });
    }
    await t.db.insertInto('documents').values(rows).execute();
    const { context, page, errors } = await openPage(browser, origin, VIEWPORTS.desktop, emails.olga);
    await page.goto(`${origin}/projects/${big.id}/documents`);
    const more = page.getByRole('button', { name: 'Load more documents' });
    await more.waitFor();
    assert.equal(await list(page).getByRole('listitem').count(), 50);
    await more.click();
    await page.waitForFunction(() => document.querySelectorAll('.document-row').length === 52);
    const names = await list(page).getByRole('listitem').locator('.document-name').allInnerTexts();
    assert.deepEqual(names.sort(), Array.from({ length: 52 }, (_, i) => `Drawing ${String(i + 1).padStart(2, '0')}.txt`));
    assert.equal(await more.count(), 0, 'no more pages');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
