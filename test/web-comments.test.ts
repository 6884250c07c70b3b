/**
 * Comments with @mentions and the notifications inbox in the web app, in Chromium: one user
 * comments on a project and mentions another, choosing them from the suggestions with the keyboard
 * (desktop) and with a click (phone); errors in words; edit and delete. The other, in their own
 * browser, sees the unread count in the header, the inbox, follows a notification to the comment,
 * and marks all read; the count comes back on focus when they are mentioned again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { newWorkspace, type TestWorkspace } from './helpers.ts';
import { chromiumPath, launchChromium, NO_CHROMIUM, screenshotPath, seriousAxeViolations, VIEWPORTS } from './web-browser.ts';
import { callApi, listeningTestApp, sessionCookieFor, TEST_PASSWORD, userWithPassword } from './web-server.ts';

const { t, origin } = await listeningTestApp();
const SKIP = chromiumPath() ? false : NO_CHROMIUM;
after(async () => t.close());

const call = (key: string, method: string, path: string, body?: unknown) => callApi(origin, key, method, path, body);

interface ApiUser { id: string; email: string; handle: string }

describe('comments with @mentions and the notifications inbox in the web app', { skip: SKIP }, () => {
  let browser: Browser;
  let ws: TestWorkspace;
  const stamp = Date.now();
  const rosaEmail = `rosa-${stamp}@example.test`;
  const beaEmail = `bea-${stamp}@example.test`;
  let rosa: ApiUser;
  let bea: ApiUser;
  let project: { id: string; name: string };

  before(async () => {
    ws = await newWorkspace(t);
    await userWithPassword(origin, ws, rosaEmail);
    // The second user, "Bea Builder", the same way: invited by the admin, the invitation accepted with a password.
    const invited = await call(ws.admin.key, 'POST', '/v1/users', { email: beaEmail, first_name: 'Bea', last_name: 'Builder', role: 'standard' });
    const token = decodeURIComponent(new URL(invited.invite_url).pathname.split('/').pop()!);
    await call(ws.admin.key, 'POST', `/v1/invitations/${encodeURIComponent(token)}`, { password: TEST_PASSWORD });
    const users = (await call(ws.admin.key, 'GET', '/v1/users?limit=100')).data as ApiUser[];
    rosa = users.find((u) => u.email === rosaEmail)!;
    bea = users.find((u) => u.email === beaEmail)!;
    // Handles are made from the e-mail address when none is given.
    assert.match(rosa.handle, /^rosa-/);
    assert.match(bea.handle, /^bea-/);
    project = await call(ws.admin.key, 'POST', '/v1/projects', { name: 'Harbour Bridge Retrofit', address: { city: 'Auckland' } }) as typeof project;
    await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/comments`, { body: `Crane is booked for 7 am on Monday. @${rosa.handle}, is the pad ready? (not rita@example.com)` });
    browser = await launchChromium();
  });
  after(async () => browser?.close());

  async function signedIn(email: string, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page; errors: string[]; commentPosts: string[] }> {
    const context = await browser.newContext({ viewport, locale: 'en-US', timezoneId: 'UTC' });
    await sessionCookieFor(origin, context, email);
    const page = await context.newPage();
    const errors: string[] = [];
    const commentPosts: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('request', (req) => {
      if (req.method() === 'POST' && req.url().endsWith('/comments')) commentPosts.push(req.postData() ?? '');
    });
    return { context, page, errors, commentPosts };
  }

  const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  const projectComments = async () => (await call(ws.admin.key, 'GET', `/v1/projects/${project.id}/comments`)).data as Array<{ id: string; author_id: string; body: string; mentions: Array<{ user_id: string; handle: string }> }>;

  it('on a desktop: @ and letters suggest Bea, ↓ Enter puts her handle in, the comment is posted with the mention; errors in words; edit and delete', async () => {
    const { context, page, errors, commentPosts } = await signedIn(rosaEmail, VIEWPORTS.desktop);
    await page.goto(`${origin}/projects/${project.id}`);
    const comments = page.getByRole('region', { name: 'Comments' });
    // The admin's comment: Rosa's mention highlighted, the e-mail address not; neither Edit nor Delete for her.
    const cranes = comments.getByRole('listitem').filter({ hasText: 'Crane is booked' });
    await cranes.waitFor();
    assert.deepEqual(await cranes.locator('strong.mention').allInnerTexts(), [`@${rosa.handle}`]);
    assert.equal(await cranes.getByRole('button').count(), 0);
    const box = comments.getByRole('combobox', { name: 'Add a comment' });
    assert.equal(await box.getAttribute('aria-expanded'), 'false');

    // Nothing written: said in words, nothing sent.
    await comments.getByRole('button', { name: 'Post comment' }).click();
    await comments.getByText('Write something first: a comment cannot be empty.').waitFor();
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    assert.equal(commentPosts.length, 0);

    await box.click();
    await page.keyboard.type('Rebar spacing on pier 3 looks off, @be');
    const listbox = page.getByRole('listbox', { name: 'People to mention' });
    const option = listbox.getByRole('option', { name: new RegExp(`^@${bea.handle} Bea Builder$`) });
    await option.waitFor();
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    assert.equal(await box.getAttribute('aria-controls'), await listbox.getAttribute('id'));
    assert.equal(await listbox.getByRole('option', { name: new RegExp(`@${rosa.handle}`) }).count(), 0, 'not yourself');
    assert.equal(await box.getAttribute('aria-activedescendant'), null, 'no option is active before ↓');
    await page.keyboard.press('ArrowDown');
    assert.equal(await box.getAttribute('aria-activedescendant'), await option.getAttribute('id'));
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.screenshot({ path: screenshotPath('web-comments-mention-desktop') });
    await page.keyboard.press('Enter');
    assert.equal(await box.inputValue(), `Rebar spacing on pier 3 looks off, @${bea.handle} `);
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    assert.ok(await box.evaluate((el: HTMLTextAreaElement) => el.selectionStart === el.value.length), 'the caret after the handle and its space');

    // Escape closes the suggestions, and typing goes on as text.
    await page.keyboard.type('can you check? @b');
    await option.waitFor();
    await page.keyboard.press('Escape');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    assert.ok(await listbox.isHidden());
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    assert.equal(await box.inputValue(), `Rebar spacing on pier 3 looks off, @${bea.handle} can you check?`);

    await comments.getByRole('button', { name: 'Post comment' }).click();
    await comments.getByRole('status').filter({ hasText: `Your comment is posted; @${bea.handle} is notified.` }).waitFor();
    assert.equal(await box.inputValue(), '');
    const item = comments.getByRole('listitem').filter({ hasText: 'Rebar spacing on pier 3' });
    assert.ok(await item.getByText('Rosa Crew', { exact: true }).isVisible(), 'the author by name');
    assert.equal(await item.locator('strong', { hasText: `@${bea.handle}` }).count(), 1, 'the mention is highlighted');
    let stored = await projectComments();
    assert.equal(stored.length, 2);
    assert.equal(stored[1]!.author_id, rosa.id);
    assert.deepEqual(stored[1]!.mentions, [{ user_id: bea.id, handle: bea.handle }]);

    // Too long for the API: its refusal in words.
    await box.fill('x'.repeat(10_001));
    await comments.getByText('10,001 of 10,000 characters').waitFor();
    await comments.getByRole('button', { name: 'Post comment' }).click();
    await comments.getByRole('alert').filter({ hasText: 'Validation failed' }).waitFor();
    await comments.getByText('Comment must NOT have more than 10000 characters.').waitFor();
    assert.equal((await projectComments()).length, 2);

    // Another comment, edited, then deleted.
    await box.fill('Pour is booked for Friday.');
    await comments.getByRole('button', { name: 'Post comment' }).click();
    const second = comments.getByRole('listitem').filter({ hasText: 'Pour is booked' });
    await second.waitFor();
    await second.getByRole('button', { name: /^Edit comment by Rosa Crew/ }).click();
    const edit = second.getByRole('combobox', { name: 'Edit your comment' });
    assert.ok(await edit.evaluate((el) => el === document.activeElement), 'focus in the edit box');
    await edit.fill('Pour is booked for Saturday.');
    await second.getByRole('button', { name: 'Save comment' }).click();
    await comments.getByText('Pour is booked for Saturday.').waitFor();
    await comments.getByText('· edited').waitFor();
    stored = await projectComments();
    assert.equal(stored[2]!.body, 'Pour is booked for Saturday.');
    const saturday = comments.getByRole('listitem').filter({ hasText: 'Pour is booked for Saturday.' });
    await saturday.getByRole('button', { name: /^Delete comment by Rosa Crew/ }).click();
    assert.ok(await saturday.getByRole('button', { name: 'Keep it' }).evaluate((el) => el === document.activeElement), 'focus on the safe choice');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await saturday.getByRole('button', { name: 'Delete comment' }).click();
    await comments.getByRole('status').filter({ hasText: 'The comment is deleted.' }).waitFor();
    assert.equal(await comments.getByRole('listitem').count(), 2);
    assert.equal((await projectComments()).length, 2);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: a click on a suggestion puts the handle in; the comment carries the mention; no sideways scrolling', async () => {
    const { context, page, errors } = await signedIn(rosaEmail, VIEWPORTS.phone);
    await page.goto(`${origin}/projects/${project.id}`);
    const comments = page.getByRole('region', { name: 'Comments' });
    await comments.getByText('Rebar spacing on pier 3').waitFor();
    const box = comments.getByRole('combobox', { name: 'Add a comment' });
    await box.click();
    await page.keyboard.type('Formwork is down. @BEA');
    const option = page.getByRole('listbox', { name: 'People to mention' }).getByRole('option', { name: new RegExp(`^@${bea.handle}`) });
    await option.click();
    assert.equal(await box.inputValue(), `Formwork is down. @${bea.handle} `);
    assert.ok(await box.evaluate((el) => el === document.activeElement), 'focus stays in the box');
    await page.keyboard.type('photos tomorrow');
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    await page.keyboard.type(' @b');
    await option.waitFor();
    await page.screenshot({ path: screenshotPath('web-comments-phone') });
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    await comments.getByRole('button', { name: 'Post comment' }).click();
    await comments.getByText(`Your comment is posted; @${bea.handle} is notified.`).waitFor();
    const stored = await projectComments();
    assert.equal(stored.length, 3);
    assert.equal(stored[2]!.body, `Formwork is down. @${bea.handle} photos tomorrow`);
    assert.deepEqual(stored[2]!.mentions.map((m) => m.user_id), [bea.id]);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a phone: Bea sees "2 unread" in the header, the inbox, and a notification leads to the comment and is read', async () => {
    const { context, page, errors } = await signedIn(beaEmail, VIEWPORTS.phone);
    await page.goto(`${origin}/projects`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const badge = nav.getByRole('link', { name: 'Notifications, 2 unread' });
    await badge.waitFor();
    await badge.click();
    await page.getByRole('heading', { name: 'Notifications', level: 1 }).waitFor();
    const list = page.getByRole('list', { name: 'Notifications' });
    const links = list.getByRole('link', { name: 'Unread: Rosa Crew mentioned you in a comment on Harbour Bridge Retrofit' });
    await links.nth(1).waitFor();
    assert.equal(await links.count(), 2);
    await list.getByText(`“Formwork is down. @${bea.handle} photos tomorrow”`).waitFor();
    assert.equal(await nav.getByRole('link', { name: /^Notifications/ }).getAttribute('aria-current'), 'page');
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    await page.screenshot({ path: screenshotPath('web-notifications-phone'), fullPage: true });

    // The newest first: it leads to the formwork comment on the project page, and is read.
    const [newest] = (await call(ws.admin.key, 'GET', `/v1/projects/${project.id}/comments`)).data.slice(-1) as Array<{ id: string }>;
    await links.first().click();
    await page.waitForURL(`${origin}/projects/${project.id}#comment-${newest!.id}`);
    await page.getByRole('heading', { name: 'Harbour Bridge Retrofit', level: 1 }).waitFor();
    const linked = page.getByRole('listitem').filter({ hasText: 'Formwork is down.' });
    await page.waitForFunction((id) => document.activeElement?.id === `comment-${id}`, newest!.id);
    assert.ok(await linked.isVisible());
    await nav.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor();
    const unread = await fetchAs(context, '/v1/notifications?unread=true');
    assert.equal(unread.data.length, 1);
    assert.notEqual(unread.data[0].comment_id, newest!.id, 'the one followed is read');
    assert.ok(await noSidewaysScroll(page), 'no sideways scrolling');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('on a desktop: Bea marks all as read, the count goes; a new mention brings it back when the window gets focus', async () => {
    const { context, page, errors } = await signedIn(beaEmail, VIEWPORTS.desktop);
    await page.goto(`${origin}/notifications`);
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor();
    const list = page.getByRole('list', { name: 'Notifications' });
    await list.getByRole('link', { name: /^Unread: / }).waitFor();
    // Names come with the workspace's people, read after the list: until then a line says "Someone".
    await list.getByRole('link', { name: /^Rosa Crew mentioned you/ }).waitFor();
    assert.equal(await list.getByRole('link', { name: /^Rosa Crew mentioned you/ }).count(), 1, 'the read one says nothing of unread');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.getByRole('button', { name: 'Mark all as read' }).click();
    await page.getByRole('status').filter({ hasText: '1 notification is marked read.' }).waitFor();
    await nav.getByRole('link', { name: 'Notifications', exact: true }).waitFor();
    assert.equal(await list.getByRole('link', { name: /^Unread: / }).count(), 0);
    await page.getByRole('button', { name: 'Mark all as read', disabled: true }).waitFor();
    assert.equal((await fetchAs(context, '/v1/notifications?unread=true')).data.length, 0, 'the API says all are read');

    // Mentioned again (by the admin, through the API): the count is asked for when the window gets focus.
    await call(ws.admin.key, 'POST', `/v1/projects/${project.id}/comments`, { body: `@${bea.handle} the crane arrives at 7` });
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await nav.getByRole('link', { name: 'Notifications, 1 unread' }).waitFor();
    // The inbox shows it without a reload; "Mark as read" on it alone.
    await list.getByText(`“@${bea.handle} the crane arrives at 7”`).waitFor();
    const fresh = list.getByRole('listitem').filter({ hasText: 'the crane arrives at 7' });
    await fresh.getByRole('button', { name: /^Mark as read: / }).click();
    await nav.getByRole('link', { name: 'Notifications', exact: true }).waitFor();
    await fresh.getByText('· Read').waitFor();
    assert.equal((await fetchAs(context, '/v1/notifications?unread=true')).data.length, 0);
    assert.deepEqual(await seriousAxeViolations(page), []);
    assert.deepEqual(errors, []);
    await context.close();
  });
});

/** A GET as the context's signed-in user (its session cookie). */
async function fetchAs(context: BrowserContext, path: string): Promise<Record<string, any>> {
  const res = await context.request.get(`${origin}${path}`);
  assert.equal(res.status(), 200, await res.text());
  return await res.json() as Record<string, any>;
}
