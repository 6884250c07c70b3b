/**
 * Tasks in the web app (issue 15), in Chromium: a project's Tasks section — create with an
 * assignee from the crew and a past due date (overdue in words), the API's refusal of someone who
 * cannot see the project, filters by assignee, status and overdue kept in the address, photos
 * attached from the timeline's picker and detached, complete and reopen, edit with a 412, a comment
 * with an @mention — then the assignee's My tasks in their own browser, and a restricted user who
 * may complete and comment but not create, edit or attach. Desktop and phone; the API checked after
 * each action.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, TEST_PASSWORD, uploadPhoto } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

type Json = Record<string, any>;
const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

const upload = (key: string, projectId: string, caption: string, capturedAt: string, color: string) => uploadPhoto(origin, key, projectId, caption, capturedAt, color);

/** "YYYY-MM-DD" (UTC, the browsers' zone here) `days` from today. */
const dayFrom = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('tasks in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const emails = { rosa: `rosa-${stamp}@example.test`, bea: `bea-${stamp}@example.test`, rex: `rex-${stamp}@example.test`, olga: `olga-${stamp}@example.test` };
  const people: Record<keyof typeof emails, Json> = {} as never;
  let project: Json;
  let photos: Json[];
  let rexTask: Json;
  const inspect = 'Inspect pier 3 formwork';

  before(async () => {
    ws = await newWorkspace(t);
    const invite = async (email: string, first_name: string, last_name: string, role: string) => {
      const user = await call(ws.admin.key, 'POST', '/v1/users', { email, first_name, last_name, role });
      const token = decodeURIComponent(new URL(user.invite_url).pathname.split('/').pop()!);
      await call(ws.admin.key, 'POST', `/v1/invitations/${encodeURIComponent(token)}`, { password: TEST_PASSWORD });
      return await call(ws.admin.key, 'GET', `/v1/users/${user.id}`);
    };
    people.rosa = await invite(emails.rosa, 'Rosa', 'Crew', 'standard');
    people.bea = await invite(emails.bea, 'Bea', 'Builder', 'standard');
    people.rex = await invite(emails.rex, 'Rex', 'Helper', 'restricted');
    people.olga = await invite(emails.olga, 'Olga', 'Office', 'standard');
    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge Retrofit' });
    for (const who of [people.rosa, people.bea, people.rex]) await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${who.id}`);
    photos = [
      await upload(ws.admin.key, project.id, 'Pier 3 east face', '2026-03-03T09:00:00Z', '#557799'),
      await upload(ws.admin.key, project.id, 'Pier 3 west face', '2026-03-02T09:00:00Z', '#887755'),
      await upload(ws.admin.key, project.id, 'Deck joint', '2026-03-01T09:00:00Z', '#778855'),
    ];
    await t.runJobs();
    await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/tasks`, { title: 'Order rebar', assignee_id: people.rosa.id, due_at: `${dayFrom(10)}T17:00:00Z` });
    const clearSite = await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/tasks`, { title: 'Clear the site', assignee_id: people.bea.id });
    await call(ws.admin.key, 'POST', `/v1/tasks/${clearSite.id}/complete`);
    rexTask = await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/tasks`, { title: 'Sweep the deck', assignee_id: people.rex.id, due_at: `${dayFrom(2)}T23:59:59.999Z` });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function signedIn(email: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC', hasTouch: viewport === VIEWPORTS.phone });
    await sessionCookieFor(origin, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    return { context, page, errors };
  }

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const task = (id: string) => call(ws.admin.key, 'GET', `/v1/tasks/${id}`);
  const tasksNamed = async (title: string) => (await call(ws.admin.key, 'GET', `/v1/projects/${project.id}/tasks?limit=100`)).data.filter((x: Json) => x.title === title) as Json[];
  const rowOf = (page: Page, title: string) => page.getByRole('list', { name: 'Tasks' }).getByRole('listitem').filter({ has: page.getByRole('link', { name: title, exact: true }) });
  const listTitles = async (page: Page) => {
    await page.getByRole('form', { name: 'Filter tasks' }).waitFor();
    await page.getByRole('status').filter({ hasText: 'Loading tasks…' }).waitFor({ state: 'detached' });
    const list = page.getByRole('list', { name: 'Tasks' });
    if (await list.count() === 0) return [];
    return (await list.getByRole('link').allInnerTexts()).sort();
  };

  it('on a desktop: create with a crew member and a past due date (overdue), the API\'s refusal in words, filters in the address', async () => {
    const { context, page, errors } = await signedIn(emails.rosa, VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}`);
    await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Tasks' }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/tasks`);
    await rowOf(page, 'Order rebar').waitFor();
    assert.match(await rowOf(page, 'Clear the site').innerText(), /Assigned to Bea Builder[\s\S]*No due date[\s\S]*Completed/);

    // The assignee is chosen among the crew only (not Olga, who is not on it).
    await page.getByRole('button', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: 'New task' });
    const assignee = form.getByRole('combobox', { name: 'Assigned to' });
    await assignee.getByRole('option', { name: 'Rosa Crew' }).waitFor({ state: 'attached' });
    assert.deepEqual(await assignee.getByRole('option').allInnerTexts(), ['Nobody', 'Bea Builder', 'Rex Helper', 'Rosa Crew']);
    // Nothing in the title: refused before sending.
    await form.getByRole('button', { name: 'Create task' }).click();
    await form.getByText('Give the task a title.').waitFor();
    assert.equal(await form.getByRole('textbox', { name: 'Title' }).getAttribute('aria-invalid'), 'true');
    assert.ok(await form.getByRole('textbox', { name: 'Title' }).evaluate((el) => el === document.activeElement));

    // Rex is taken off the crew while the form is open: the API's 422 in words, next to the field.
    await form.getByRole('textbox', { name: 'Title' }).fill('Tie the rebar cage');
    await assignee.selectOption({ label: 'Rex Helper' });
    await call(ws.admin.key, 'DELETE', `/v1/projects/${project.id}/members/${people.rex.id}`);
    await form.getByRole('button', { name: 'Create task' }).click();
    await form.getByRole('alert').filter({ hasText: 'is a restricted user who is not on this project\'s crew' }).waitFor();
    await form.getByText('must be a user who can see the project').waitFor();
    assert.equal(await assignee.getAttribute('aria-invalid'), 'true');
    assert.equal((await tasksNamed('Tie the rebar cage')).length, 0, 'nothing created');
    await call(ws.admin.key, 'PUT', `/v1/projects/${project.id}/members/${people.rex.id}`);
    await form.getByRole('button', { name: 'Cancel' }).click();
    assert.ok(await page.getByRole('button', { name: 'New task' }).evaluate((el) => el === document.activeElement), 'focus back on New task');

    // The real one: Bea, due three days ago → overdue, in words.
    await page.getByRole('button', { name: 'New task' }).click();
    await form.getByRole('textbox', { name: 'Title' }).fill(inspect);
    await form.getByRole('textbox', { name: 'Description (optional)' }).fill('Check the ties and the cover before the pour.');
    await assignee.selectOption({ label: 'Bea Builder' });
    await form.getByLabel('Due date (optional)').fill(dayFrom(-3));
    await form.getByRole('button', { name: 'Create task' }).click();
    await page.getByRole('status').filter({ hasText: `Task “${inspect}” is created.` }).waitFor();
    const row = rowOf(page, inspect);
    await row.waitFor();
    assert.match(await row.innerText(), /Assigned to Bea Builder[\s\S]*Overdue: was due [\s\S]*Open[\s\S]*No photos/);
    const [created] = await tasksNamed(inspect);
    assert.ok(created, 'the API has the task');
    assert.equal(created.assignee_id, people.bea.id);
    assert.equal(created.due_at, `${dayFrom(-3)}T23:59:59.999Z`, 'due by the end of that day (the browser is in UTC)');
    assert.equal(created.description, 'Check the ties and the cover before the pour.');
    assert.equal(created.status, 'open');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-tasks-desktop'), fullPage: true });

    // Filters: each goes into the address, and the list is the API's answer to it.
    const filters = page.getByRole('form', { name: 'Filter tasks' });
    await filters.getByRole('combobox', { name: 'Assigned to' }).selectOption({ label: 'Bea Builder' });
    await page.waitForURL(`${origin}/projects/${project.id}/tasks?assignee_id=${people.bea.id}`);
    assert.deepEqual(await listTitles(page), ['Clear the site', inspect]);
    await filters.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Completed' });
    await page.waitForURL(/status=completed/);
    assert.deepEqual(await listTitles(page), ['Clear the site']);
    await filters.getByRole('combobox', { name: 'Assigned to' }).selectOption({ label: 'Anyone' });
    await filters.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Open' });
    await page.waitForURL(`${origin}/projects/${project.id}/tasks?status=open`);
    assert.deepEqual(await listTitles(page), [inspect, 'Order rebar', 'Sweep the deck']);
    await filters.getByRole('checkbox', { name: 'Overdue only' }).check();
    await page.waitForURL(`${origin}/projects/${project.id}/tasks?overdue=1`);
    assert.deepEqual(await listTitles(page), [inspect]);
    // The address alone restores them.
    await page.reload();
    assert.deepEqual(await listTitles(page), [inspect]);
    assert.ok(await filters.getByRole('checkbox', { name: 'Overdue only' }).isChecked());
    await page.goto(`${origin}/projects/${project.id}/tasks?assignee_id=${people.rosa.id}`);
    assert.deepEqual(await listTitles(page), ['Order rebar']);
    assert.equal(await filters.getByRole('combobox', { name: 'Assigned to' }).inputValue(), people.rosa.id);
    await filters.getByRole('combobox', { name: 'Assigned to' }).selectOption({ label: 'Rex Helper' });
    await page.waitForURL(`${origin}/projects/${project.id}/tasks?assignee_id=${people.rex.id}`);
    assert.deepEqual(await listTitles(page), ['Sweep the deck']);
    await filters.getByRole('combobox', { name: 'Assigned to' }).selectOption({ label: 'Rosa Crew (me)' });
    await page.waitForURL(`${origin}/projects/${project.id}/tasks?assignee_id=${people.rosa.id}`);
    await filters.getByRole('checkbox', { name: 'Overdue only' }).check();
    await page.getByText('No tasks match these filters.').waitFor();
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: the task\'s page — photos attached from the picker and one detached, complete and reopen, edit with a 412, a comment with an @mention', async () => {
    const [created] = await tasksNamed(inspect);
    const { context, page, errors } = await signedIn(emails.rosa, VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}/tasks`);
    await rowOf(page, inspect).getByRole('link', { name: inspect }).click();
    await page.waitForURL(`${origin}/projects/${project.id}/tasks/${created!.id}`);
    await page.getByRole('heading', { name: inspect, level: 2 }).waitFor();
    await page.getByText('No photos attached.').waitFor();

    // The picker: a modal dialog with the project's thumbnails; Escape closes it, focus back on its button.
    const attachButton = page.getByRole('button', { name: 'Attach photos' });
    await attachButton.click();
    const dialog = page.getByRole('dialog', { name: 'Attach photos from the timeline' });
    await dialog.getByRole('checkbox', { name: 'Deck joint' }).waitFor();
    assert.equal(await dialog.getByRole('img').count(), 0, 'thumbnails are decorative: the checkbox names the photo');
    await dialog.locator('img').first().waitFor();
    assert.equal(await dialog.locator('img').count(), 3);
    assert.ok(await dialog.evaluate((el) => el.contains(document.activeElement)), 'focus in the dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.ok(await attachButton.evaluate((el) => el === document.activeElement), 'focus back on Attach photos');

    await attachButton.click();
    await dialog.getByRole('checkbox', { name: 'Pier 3 west face' }).check();
    await dialog.getByRole('checkbox', { name: 'Pier 3 east face' }).check();
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-task-photo-picker-desktop') });
    await dialog.getByRole('button', { name: 'Attach 2 photos' }).click();
    await page.getByRole('status').filter({ hasText: '2 photos are attached.' }).waitFor();
    assert.deepEqual((await task(created!.id)).photo_ids, [photos[1]!.id, photos[0]!.id], 'in the order picked');
    const photoLinks = page.getByRole('region', { name: /^Photos/ }).getByRole('link');
    assert.deepEqual(await Promise.all([0, 1].map((i) => photoLinks.nth(i).getAttribute('href'))), [`/photos/${photos[1]!.id}`, `/photos/${photos[0]!.id}`]);
    await page.getByRole('img', { name: 'Pier 3 east face' }).waitFor();
    assert.ok(await page.getByRole('img', { name: 'Pier 3 east face' }).evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0), 'the thumbnail loaded');
    // Picked ones show as attached the next time.
    await attachButton.click();
    assert.ok(await dialog.getByRole('checkbox', { name: 'Pier 3 west face (attached)' }).isDisabled());
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await page.getByRole('button', { name: 'Detach Pier 3 west face' }).click();
    await page.getByRole('status').filter({ hasText: '“Pier 3 west face” is detached.' }).waitFor();
    assert.deepEqual((await task(created!.id)).photo_ids, [photos[0]!.id]);
    assert.ok(await page.getByRole('heading', { name: /^Photos/ }).evaluate((el) => el === document.activeElement), 'focus on the photos heading');

    // Complete and reopen: the checkbox's state, a status line, the API.
    const done = page.getByRole('checkbox', { name: `Completed: ${inspect}` });
    await done.click();
    await page.getByRole('status').filter({ hasText: `“${inspect}” is completed.` }).waitFor();
    assert.ok(await done.isChecked());
    let stored = await task(created!.id);
    assert.equal(stored.status, 'completed');
    assert.equal(stored.completed_by, people.rosa.id);
    await page.getByText(/^Completed .* by Rosa Crew$/).waitFor();
    await done.click();
    await page.getByRole('status').filter({ hasText: `“${inspect}” is reopened.` }).waitFor();
    assert.equal((await task(created!.id)).status, 'open');
    await page.getByText(/^Overdue: was due /).waitFor();

    // Edit: someone else's change in between is a 412 in words; Reload, then it saves.
    await page.getByRole('button', { name: 'Edit task' }).click();
    const form = page.getByRole('form', { name: 'Edit task' });
    assert.equal(await form.getByRole('combobox', { name: 'Assigned to' }).inputValue(), people.bea.id);
    assert.equal(await form.getByLabel('Due date (optional)').inputValue(), dayFrom(-3));
    await call(ws.admin.key, 'PATCH', `/v1/tasks/${created!.id}`, { description: 'Ties, cover and spacers.' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Inspect pier 3 formwork and ties');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('alert').filter({ hasText: 'Someone else changed this task' }).waitFor();
    assert.equal((await task(created!.id)).title, inspect, 'nothing overwritten');
    await form.getByRole('button', { name: 'Reload' }).click();
    await page.getByText('Ties, cover and spacers.').waitFor();
    await page.getByRole('button', { name: 'Edit task' }).click();
    await form.getByRole('textbox', { name: 'Title' }).fill('Inspect pier 3 formwork and ties');
    await form.getByLabel('Due date (optional)').fill(dayFrom(-2));
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: 'Your changes are saved.' }).waitFor();
    stored = await task(created!.id);
    assert.equal(stored.title, 'Inspect pier 3 formwork and ties');
    assert.equal(stored.description, 'Ties, cover and spacers.');
    assert.equal(stored.due_at, `${dayFrom(-2)}T23:59:59.999Z`);
    await page.getByRole('heading', { name: 'Inspect pier 3 formwork and ties', level: 2 }).waitFor();
    await call(ws.admin.key, 'PATCH', `/v1/tasks/${created!.id}`, { title: inspect });
    await page.reload();
    await page.getByRole('heading', { name: inspect, level: 2 }).waitFor();

    // A comment mentioning Bea, chosen from the suggestions.
    const comments = page.getByRole('region', { name: 'Comments' });
    const box = comments.getByRole('combobox', { name: 'Add a comment' });
    await box.click();
    await page.keyboard.type('Cover looks thin at the north end, @be');
    await page.getByRole('listbox', { name: 'People to mention' }).getByRole('option', { name: new RegExp(`^@${people.bea.handle}`) }).click();
    await page.keyboard.type('please check');
    await comments.getByRole('button', { name: 'Post comment' }).click();
    await comments.getByText(`Your comment is posted; @${people.bea.handle} is notified.`).waitFor();
    const taskComments = (await call(ws.admin.key, 'GET', `/v1/tasks/${created!.id}/comments`)).data as Json[];
    assert.equal(taskComments.length, 1);
    assert.equal(taskComments[0]!.body, `Cover looks thin at the north end, @${people.bea.handle} please check`);
    assert.deepEqual(taskComments[0]!.mentions.map((m: Json) => m.user_id), [people.bea.id]);
    assert.equal(taskComments[0]!.author_id, people.rosa.id);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a task created with a past due date, its page, photos attached, complete and reopen, a comment; no sideways scrolling', async () => {
    const { context, page, errors } = await signedIn(emails.rosa, VIEWPORTS.phone);
    await page.goto(`${origin}/projects/${project.id}/tasks`);
    await page.getByRole('button', { name: 'New task' }).click();
    const form = page.getByRole('form', { name: 'New task' });
    await form.getByRole('combobox', { name: 'Assigned to' }).getByRole('option', { name: 'Rex Helper' }).waitFor({ state: 'attached' });
    await form.getByRole('textbox', { name: 'Title' }).fill('Photograph the bearing pads');
    await form.getByRole('combobox', { name: 'Assigned to' }).selectOption({ label: 'Rex Helper' });
    await form.getByLabel('Due date (optional)').fill(dayFrom(-1));
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling with the form');
    await form.getByRole('button', { name: 'Create task' }).click();
    const row = rowOf(page, 'Photograph the bearing pads');
    await row.getByText(/^Overdue: was due /).waitFor();
    const [bearing] = await tasksNamed('Photograph the bearing pads');
    assert.equal(bearing!.assignee_id, people.rex.id);
    assert.equal(bearing!.due_at, `${dayFrom(-1)}T23:59:59.999Z`);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on the list');
    assert.deepEqual(await seriousAxeViolations(page), []);

    await row.getByRole('link', { name: 'Photograph the bearing pads' }).tap();
    await page.waitForURL(`${origin}/projects/${project.id}/tasks/${bearing!.id}`);
    await page.getByRole('button', { name: 'Attach photos' }).tap();
    const dialog = page.getByRole('dialog', { name: 'Attach photos from the timeline' });
    await dialog.getByText('Deck joint').tap();
    await dialog.getByText('Pier 3 east face').tap();
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling with the picker');
    await dialog.getByRole('button', { name: 'Attach 2 photos' }).tap();
    await page.getByRole('status').filter({ hasText: '2 photos are attached.' }).waitFor();
    assert.deepEqual((await task(bearing!.id)).photo_ids, [photos[2]!.id, photos[0]!.id]);
    await page.getByRole('img', { name: 'Deck joint' }).waitFor();

    const done = page.getByRole('checkbox', { name: 'Completed: Photograph the bearing pads' });
    await done.tap();
    await page.getByRole('status').filter({ hasText: 'is completed.' }).waitFor();
    assert.equal((await task(bearing!.id)).status, 'completed');
    await done.tap();
    await page.getByRole('status').filter({ hasText: 'is reopened.' }).waitFor();
    assert.equal((await task(bearing!.id)).status, 'open');

    const comments = page.getByRole('region', { name: 'Comments' });
    await comments.getByRole('combobox', { name: 'Add a comment' }).tap();
    await page.keyboard.type('@re');
    await page.getByRole('listbox', { name: 'People to mention' }).getByRole('option', { name: new RegExp(`^@${people.rex.handle}`) }).tap();
    await page.keyboard.type('both pads please');
    await comments.getByRole('button', { name: 'Post comment' }).tap();
    await comments.getByText(`Your comment is posted; @${people.rex.handle} is notified.`).waitFor();
    const stored = (await call(ws.admin.key, 'GET', `/v1/tasks/${bearing!.id}/comments`)).data as Json[];
    assert.deepEqual(stored.map((c) => c.mentions.map((m: Json) => m.user_id)), [[people.rex.id]]);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling on the task');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: screenshotPath('web-task-phone'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: the assignee (Bea, in her own browser) sees it in My tasks, open first and overdue, and completes it there', async () => {
    const [created] = await tasksNamed(inspect);
    const { context, page, errors } = await signedIn(emails.bea, VIEWPORTS.desktop);
    await page.goto(`${origin}/projects`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'My tasks' }).click();
    await page.waitForURL(`${origin}/tasks`);
    assert.equal(await nav.getByRole('link', { name: 'My tasks' }).getAttribute('aria-current'), 'page');
    const open = page.getByRole('list', { name: 'Open' });
    const completed = page.getByRole('list', { name: 'Completed' });
    const row = open.getByRole('listitem').filter({ has: page.getByRole('link', { name: inspect, exact: true }) });
    await row.waitFor();
    await row.getByText('Harbour Bridge Retrofit').waitFor();
    assert.match(await row.innerText(), /Overdue: was due [\s\S]*1 photo/);
    assert.deepEqual(await open.getByRole('link').allInnerTexts(), [inspect], 'only hers, only open ones');
    assert.deepEqual(await completed.getByRole('link').allInnerTexts(), ['Clear the site']);
    // The open list comes before the completed one.
    assert.ok(await open.evaluate((a, b) => !!(a.compareDocumentPosition(b!) & Node.DOCUMENT_POSITION_FOLLOWING), await completed.elementHandle()));
    assert.equal(await row.getByRole('link', { name: inspect }).getAttribute('href'), `/projects/${project.id}/tasks/${created!.id}`);
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-my-tasks-desktop') });

    await row.getByRole('checkbox', { name: `Completed: ${inspect}` }).click();
    await page.getByRole('status').filter({ hasText: `“${inspect}” is completed.` }).waitFor();
    const stored = await task(created!.id);
    assert.equal(stored.status, 'completed');
    assert.equal(stored.completed_by, people.bea.id);
    assert.ok(await row.getByRole('checkbox', { name: `Completed: ${inspect}` }).evaluate((el) => el === document.activeElement), 'focus stays on it');
    await page.reload();
    await completed.getByRole('link', { name: inspect }).waitFor();
    await page.getByText('Nothing open is assigned to you.').waitFor();
    // Her link leads to the task's page, where the comment mentioning her is.
    await completed.getByRole('link', { name: inspect }).click();
    await page.getByRole('region', { name: 'Comments' }).getByText('Cover looks thin at the north end').waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a restricted crew member sees the tasks, completes and comments, but cannot create, edit or attach; My tasks', async () => {
    const { context, page, errors } = await signedIn(emails.rex, VIEWPORTS.phone);
    await page.goto(`${origin}/projects/${project.id}/tasks`);
    await rowOf(page, 'Sweep the deck').waitFor();
    assert.equal(await page.getByRole('button', { name: 'New task' }).count(), 0, 'no New task for a restricted user');
    await rowOf(page, 'Sweep the deck').getByRole('link', { name: 'Sweep the deck' }).tap();
    await page.getByRole('heading', { name: 'Sweep the deck', level: 2 }).waitFor();
    await page.getByRole('region', { name: 'Comments' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Edit task' }).count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Attach photos' }).count(), 0);
    await page.getByRole('checkbox', { name: 'Completed: Sweep the deck' }).tap();
    await page.getByRole('status').filter({ hasText: '“Sweep the deck” is completed.' }).waitFor();
    const stored = await task(rexTask.id);
    assert.equal(stored.status, 'completed');
    assert.equal(stored.completed_by, people.rex.id);
    const comments = page.getByRole('region', { name: 'Comments' });
    await comments.getByRole('combobox', { name: 'Add a comment' }).fill('Swept, and the joint is clear.');
    await comments.getByRole('button', { name: 'Post comment' }).tap();
    await comments.getByText('Your comment is posted.').waitFor();
    assert.equal((await call(ws.admin.key, 'GET', `/v1/tasks/${rexTask.id}/comments`)).data[0].author_id, people.rex.id);
    // On a task with photos, no Detach for them either.
    const [bearing] = await tasksNamed('Photograph the bearing pads');
    await page.goto(`${origin}/projects/${project.id}/tasks/${bearing!.id}`);
    await page.getByRole('img', { name: 'Deck joint' }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Detach/ }).count(), 0);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My tasks' }).tap();
    const open = page.getByRole('list', { name: 'Open' });
    await open.getByRole('link', { name: 'Photograph the bearing pads' }).waitFor();
    assert.deepEqual(await open.getByRole('link').allInnerTexts(), ['Photograph the bearing pads']);
    await page.getByRole('list', { name: 'Completed' }).getByRole('link', { name: 'Sweep the deck' }).waitFor();
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling in My tasks');
    assert.deepEqual(await seriousAxeViolations(page), []);
    // Off the crew, the project and its tasks are out of sight: "not found" in words.
    await call(ws.admin.key, 'DELETE', `/v1/projects/${project.id}/members/${people.rex.id}`);
    await page.goto(`${origin}/projects/${project.id}/tasks/${rexTask.id}`);
    await page.getByRole('alert').filter({ hasText: /not found/i }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('an unknown task says so in words', async () => {
    const { context, page, errors } = await signedIn(emails.rosa, VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}/tasks/tsk_00000000000000000000000000`);
    await page.getByRole('alert').filter({ hasText: /not found/i }).waitFor();
    await page.getByRole('link', { name: '← All tasks of Harbour Bridge Retrofit' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
