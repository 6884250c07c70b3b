/**
 * A project's crew, tags, cover photo and deletion in the web app, in Chromium: chosen in the
 * project form (new and edit) and checked through the API afterwards; shown on the project page;
 * "Delete project" (offered to admins and managers) with its confirmation dialog: Escape and Cancel
 * keep the project, a 412 is in words, a manager's confirmation deletes it and lands on the list
 * with a status message.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { jpegWithExif } from './fixtures/images.ts';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, openPage, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

async function uploadPhoto(key: string, projectId: string, capturedAt: string, caption: string, color = '#3366cc'): Promise<string> {
  const { payload, headers } = multipart({ captured_at: capturedAt, caption }, { data: await jpegWithExif({}, 640, 480, color) });
  const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, authorization: `Bearer ${key}` } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id as string;
}

/** The project's status code through the API (404 once deleted). */
async function projectStatus(key: string, id: string): Promise<number> {
  const res = await fetch(`${origin}/v1/projects/${id}`, { headers: { authorization: `Bearer ${key}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('crew, tags, cover and deletion of projects in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const managerEmail = `mara-${stamp}@example.test`;
  const standardEmail = `rosa-${stamp}@example.test`;
  const people: Record<string, string> = {};
  const tags: Record<string, string> = {};

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, managerEmail, 'manager', { first_name: 'Mara', last_name: 'Boss' });
    await userWithPassword(origin, ws, standardEmail);
    for (const [first, last] of [['Ana', 'Builder'], ['Ben', 'Sparks']] as const) {
      const user = await call(ws.admin.key, 'POST', '/v1/users', { email: `${first.toLowerCase()}-${stamp}@example.test`, first_name: first, last_name: last, role: 'standard' });
      people[first] = user.id;
    }
    for (const name of ['Roof', 'Plumbing']) tags[name] = (await call(ws.admin.key, 'POST', '/v1/tags', { name })).id;
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  const signedInPage = (viewport: { width: number; height: number }, email: string) => openPage(browser, origin, viewport, email);

  it('on a desktop: crew and tags chosen in the new-project form, changed with the cover on an edit, then the project deleted after a confirmation', async () => {
    const { context, page, errors } = await signedInPage(VIEWPORTS.desktop, managerEmail);
    await page.goto(`${origin}/projects`);
    await page.getByRole('button', { name: 'New project' }).click();
    const form = page.getByRole('form', { name: 'New project' });
    await form.getByLabel('Name').fill('Crew Test Site');
    const crew = form.getByRole('group', { name: 'Crew (optional)' });
    await crew.getByRole('checkbox', { name: /Ana Builder/ }).check();
    assert.equal(await form.getByRole('group', { name: 'Cover photo' }).count(), 0, 'no cover to choose on a new project');

    // Tags: two chosen from the list, one removed with the keyboard, one made on the spot with Enter.
    const tagsGroup = form.getByRole('group', { name: 'Tags (optional)' });
    await tagsGroup.getByLabel('Add a tag').selectOption({ label: 'Roof' });
    await tagsGroup.getByRole('button', { name: 'Add tag' }).click();
    await tagsGroup.getByLabel('Add a tag').selectOption({ label: 'Plumbing' });
    await tagsGroup.getByRole('button', { name: 'Add tag' }).click();
    const chosen = tagsGroup.getByRole('list', { name: 'Chosen tags' });
    assert.deepEqual((await chosen.getByRole('listitem').allInnerTexts()).map((text) => text.replace(/\s*×$/, '')), ['Roof', 'Plumbing']);
    await tagsGroup.getByRole('button', { name: 'Remove tag Plumbing' }).focus();
    await page.keyboard.press('Enter');
    await tagsGroup.getByRole('button', { name: 'Remove tag Plumbing' }).waitFor({ state: 'detached' });
    assert.ok(await page.evaluate(() => document.activeElement?.tagName === 'SELECT'), 'focus goes to "Add a tag" after a removal');
    await tagsGroup.getByLabel('Or a new tag').fill('Scaffold');
    await tagsGroup.getByLabel('Or a new tag').press('Enter');
    await tagsGroup.getByRole('button', { name: 'Remove tag Scaffold' }).waitFor();
    assert.ok(await form.isVisible(), 'Enter in the new tag field made the tag, it did not send the form');
    assert.deepEqual(await seriousAxeViolations(page), []);

    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByRole('heading', { name: 'Crew Test Site', level: 1 }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop()!;
    let project = await call(ws.admin.key, 'GET', `/v1/projects/${id}`);
    assert.deepEqual(project.member_ids, [people.Ana]);
    assert.deepEqual(project.tags.map((tag: { name: string }) => tag.name), ['Roof', 'Scaffold']);
    const scaffold = (await call(ws.admin.key, 'GET', '/v1/tags?q=Scaffold')).data;
    assert.equal(scaffold.length, 1, 'the new tag is a tag of the workspace');
    // The header: tags and crew by name.
    await page.getByText('Crew: Ana Builder').waitFor();
    assert.deepEqual(await page.getByRole('list', { name: 'Tags' }).getByRole('listitem').allInnerTexts(), ['Roof', 'Scaffold']);

    // Photos to choose a cover from (processed by the real jobs).
    const deck = await uploadPhoto(ws.admin.key, id, '2026-03-02T14:00:00Z', 'Deck poured', '#c2702e');
    await uploadPhoto(ws.admin.key, id, '2026-03-01T12:00:00Z', 'Site cleared');
    await t.runJobs();
    await page.reload();
    await page.getByRole('button', { name: 'Edit project' }).click();
    const edit = page.getByRole('form', { name: 'Edit project' });
    const editCrew = edit.getByRole('group', { name: 'Crew (optional)' });
    assert.ok(await editCrew.getByRole('checkbox', { name: /Ana Builder/ }).isChecked(), 'the crew is pre-filled');
    await editCrew.getByRole('checkbox', { name: /Ana Builder/ }).uncheck();
    await editCrew.getByRole('checkbox', { name: /Ben Sparks/ }).check();
    await edit.getByRole('group', { name: 'Tags (optional)' }).getByRole('button', { name: 'Remove tag Scaffold' }).click();
    const cover = edit.getByRole('group', { name: 'Cover photo' });
    assert.ok(await cover.getByRole('radio', { name: 'No cover photo' }).isChecked());
    await cover.getByRole('radio', { name: /^Deck poured/ }).check();
    await page.waitForFunction(() => [...document.querySelectorAll('fieldset img')].every((img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0));
    assert.deepEqual(await seriousAxeViolations(page), []);
    await edit.getByRole('group', { name: 'Crew (optional)' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: screenshotPath('web-project-edit-crew-desktop'), fullPage: true });
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your changes are saved.').waitFor();
    project = await call(ws.admin.key, 'GET', `/v1/projects/${id}`);
    assert.deepEqual(project.member_ids, [people.Ben]);
    assert.deepEqual(project.tags.map((tag: { name: string }) => tag.name), ['Roof']);
    assert.equal(project.cover_photo_id, deck);
    await page.getByText('Crew: Ben Sparks').waitFor();

    // An edit after crew changes still carries a fresh ETag (no 412 from our own changes).
    await page.getByRole('button', { name: 'Edit project' }).click();
    await edit.getByLabel('City').fill('Hamilton');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your changes are saved.').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/projects/${id}`)).address.city, 'Hamilton');

    // Delete: the dialog says what goes; Escape cancels (focus back on the button), so does Cancel.
    const deleteButton = page.getByRole('button', { name: 'Delete project' });
    await deleteButton.click();
    const dialog = page.getByRole('dialog', { name: 'Delete “Crew Test Site”?' });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /photos, videos, documents, tasks, comments and\s+reports/);
    assert.ok(await page.evaluate(() => !!document.activeElement?.closest('dialog')), 'focus moves into the dialog');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-project-delete-dialog') });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await page.evaluate(() => document.activeElement?.textContent === 'Delete project'), 'focus back on "Delete project"');
    assert.equal(await projectStatus(ws.admin.key, id), 200);
    await deleteButton.click();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await projectStatus(ws.admin.key, id), 200);

    await deleteButton.click();
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await page.getByRole('status').filter({ hasText: 'The project “Crew Test Site” is deleted.' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/projects');
    assert.equal(await projectStatus(ws.admin.key, id), 404);
    assert.equal(await page.getByRole('link', { name: /Crew Test Site/ }).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a standard user changes the crew and tags and is not offered deletion; a manager\'s delete after a change by someone else is refused in words', async () => {
    const project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Phone Site', address: { city: 'Napier' } });
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/tags/${tags.Plumbing}`);
    const { context, page, errors } = await signedInPage(VIEWPORTS.phone, standardEmail);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('heading', { name: 'Phone Site', level: 1 }).waitFor();
    await page.getByText('Crew: no one yet').waitFor();
    await page.getByRole('button', { name: 'Edit project' }).click();
    const edit = page.getByRole('form', { name: 'Edit project' });
    await edit.getByRole('checkbox', { name: /Ana Builder/ }).check();
    await edit.getByRole('checkbox', { name: /Rosa Crew/ }).check();
    const tagsGroup = edit.getByRole('group', { name: 'Tags (optional)' });
    await tagsGroup.getByRole('button', { name: 'Remove tag Plumbing' }).click();
    await tagsGroup.getByLabel('Add a tag').selectOption({ label: 'Roof' });
    await tagsGroup.getByRole('button', { name: 'Add tag' }).click();
    assert.ok(await edit.getByRole('group', { name: 'Cover photo' }).getByText('No processed photos yet').isVisible());
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Your changes are saved.').waitFor();
    const saved = await call(ws.admin.key, 'GET', `/v1/projects/${project.id}`);
    assert.deepEqual([...saved.member_ids].sort(), [people.Ana, (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data.find((u: { email: string }) => u.email === standardEmail).id].sort());
    assert.deepEqual(saved.tags.map((tag: { name: string }) => tag.name), ['Roof']);
    await page.getByText(/Crew: .*Ana Builder/).waitFor();

    // Deleting is for admins and managers: not offered to a standard user.
    assert.equal(await page.getByRole('button', { name: 'Delete project' }).count(), 0);
    assert.deepEqual(errors, []);
    await context.close();

    // A manager on a phone: the dialog fits; a change made meanwhile stops the delete (412 in words).
    const manager = await signedInPage(VIEWPORTS.phone, managerEmail);
    await manager.page.goto(`${origin}/projects/${project.id}`);
    await manager.page.getByRole('button', { name: 'Delete project' }).click();
    const dialog = manager.page.getByRole('dialog', { name: 'Delete “Phone Site”?' });
    await dialog.waitFor();
    await call(ws.admin.key, 'PATCH', `/v1/projects/${project.id}`, { address: { city: 'Hastings' } });
    await dialog.getByRole('button', { name: 'Delete project' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Someone else changed this project.' }).waitFor();
    assert.match(await dialog.getByRole('alert').innerText(), /Nothing was deleted/);
    assert.equal(await projectStatus(ws.admin.key, project.id), 200);
    assert.ok(await manager.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), 'no sideways scrolling with the dialog open');
    assert.deepEqual(await seriousAxeViolations(manager.page), []);
    await manager.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.ok(await manager.page.evaluate(() => document.activeElement?.textContent === 'Delete project'), 'focus back on "Delete project"');
    assert.deepEqual(manager.errors, []);
    await manager.context.close();
  });
});
