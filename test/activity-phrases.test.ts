/**
 * The activity's words (web/src/activity/phrases.ts), for every kind of event in the server's
 * catalogue: a kind added to EVENT_TYPES without a phrase here (and in phrases.ts) fails this test.
 * Also the grouping of alike events, the crew change read from the project before it, who
 * assigned a task (from its notification), and "2 hours ago".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_TYPE_NAMES, type EventType } from '../src/features/events/event-types.ts';
import { hasPhrase, itemsOfLine, linesOf, phraseOf, phraseOfLine, timeAgo, type ActivityEvent } from '../web/src/activity/phrases.ts';

const PRJ = 'prj_01jdz4a1a9s8d7f6g5h4j3k2l1';
const NAMES: Record<string, string> = { usr_dana: 'Dana Reyes', usr_rosa: 'Rosa Crew', usr_sam: 'Sam Lee', usr_ada: 'Ada Foreman' };
const nameOf = (id: string) => NAMES[id];

let seq = 0;
function ev(event: string, data: Record<string, unknown>, createdAt = '2026-11-25T10:00:00.000Z', projectId: string | null = PRJ): ActivityEvent {
  seq++;
  return { id: `evt_${String(seq).padStart(26, '0')}`, event, project_id: projectId, created_at: createdAt, data };
}

const project = { id: PRJ, name: 'Harbour Bridge', member_ids: ['usr_dana'], tags: [], cover_photo_id: null, created_by: 'usr_sam' };
const photo = { id: 'pho_1', project_id: PRJ, caption: null, creator_id: 'usr_rosa', processing_status: 'processed', variants: { thumbnail: '/t/1.jpg' } };
const video = { id: 'vid_1', project_id: PRJ, caption: 'Crane lift', creator_id: 'usr_rosa' };
const task = { id: 'tsk_1', project_id: PRJ, title: 'Frame north wall', assignee_id: 'usr_dana', completed_by: 'usr_dana', created_by: 'usr_sam' };
const comment = { id: 'cmt_1', project_id: PRJ, subject: { type: 'photo', id: 'pho_1' }, author_id: 'usr_ada', body: 'Nice' };
const doc = { id: 'doc_1', project_id: PRJ, name: 'Permit.pdf', uploaded_by: 'usr_rosa' };
const report = { id: 'rep_1', project_id: PRJ, title: 'Week 12', requested_by: 'usr_sam', error: null };
const zip = { id: 'exp_1', project_id: PRJ, requested_by: 'usr_sam', photo_count: 214, error: null };
const tag = { id: 'tag_1', name: 'Roof', created_by: 'usr_sam' };
const user = { id: 'usr_rosa', first_name: 'Rosa', last_name: 'Crew', email: 'rosa@example.test' };

/** For each kind in the catalogue: an event of it, and its words and link. */
const EXPECTED: Record<EventType, [ActivityEvent, string, string]> = {
  'project.created': [ev('project.created', project), 'Sam Lee created the project “Harbour Bridge”', `/projects/${PRJ}`],
  'project.updated': [ev('project.updated', project), 'The project’s details were changed', `/projects/${PRJ}`],
  'project.archived': [ev('project.archived', project), 'The project “Harbour Bridge” was archived', `/projects/${PRJ}`],
  'project.restored': [ev('project.restored', project), 'The project “Harbour Bridge” was restored', `/projects/${PRJ}`],
  'project.deleted': [ev('project.deleted', project), 'The project “Harbour Bridge” was deleted', '/projects'],
  'photo.created': [ev('photo.created', photo), 'Rosa Crew uploaded a photo', '/photos/pho_1'],
  'photo.updated': [ev('photo.updated', { ...photo, caption: 'North wall' }), 'A photo “North wall” was changed', '/photos/pho_1'],
  'photo.deleted': [ev('photo.deleted', photo), 'A photo was deleted', `/projects/${PRJ}`],
  'photo.assigned': [ev('photo.assigned', { photo, project_id: PRJ, previous_project_id: null, assigned_by: 'geofence', user_id: null }),
    'A photo was filed here by its location (inside the site’s geofence)', '/photos/pho_1'],
  'video.created': [ev('video.created', video), 'Rosa Crew uploaded a video “Crane lift”', `/projects/${PRJ}`],
  'video.updated': [ev('video.updated', video), 'A video “Crane lift” was changed', `/projects/${PRJ}`],
  'video.deleted': [ev('video.deleted', video), 'A video “Crane lift” was deleted', `/projects/${PRJ}`],
  'task.created': [ev('task.created', task), 'Sam Lee created the task “Frame north wall”', `/projects/${PRJ}/tasks/tsk_1`],
  'task.assigned': [ev('task.assigned', task), 'The task “Frame north wall” was assigned to Dana Reyes', `/projects/${PRJ}/tasks/tsk_1`],
  'task.completed': [ev('task.completed', task), 'Dana Reyes completed “Frame north wall”', `/projects/${PRJ}/tasks/tsk_1`],
  'task.reopened': [ev('task.reopened', task), 'The task “Frame north wall” was reopened', `/projects/${PRJ}/tasks/tsk_1`],
  'task.updated': [ev('task.updated', task), 'The task “Frame north wall” was changed', `/projects/${PRJ}/tasks/tsk_1`],
  'task.deleted': [ev('task.deleted', task), 'The task “Frame north wall” was deleted', `/projects/${PRJ}/tasks`],
  'comment.created': [ev('comment.created', comment), 'Ada Foreman commented on a photo', '/photos/pho_1#comment-cmt_1'],
  'comment.updated': [ev('comment.updated', { ...comment, subject: { type: 'task', id: 'tsk_1' } }), 'Ada Foreman edited a comment on a task', `/projects/${PRJ}/tasks/tsk_1#comment-cmt_1`],
  'comment.deleted': [ev('comment.deleted', { ...comment, subject: { type: 'project', id: PRJ } }), 'A comment on the project was deleted', `/projects/${PRJ}`],
  'document.uploaded': [ev('document.uploaded', doc), 'Rosa Crew uploaded the document “Permit.pdf”', `/projects/${PRJ}/documents/doc_1`],
  'document.updated': [ev('document.updated', doc), 'A document was renamed “Permit.pdf”', `/projects/${PRJ}/documents/doc_1`],
  'document.deleted': [ev('document.deleted', doc), 'The document “Permit.pdf” was deleted', `/projects/${PRJ}/documents`],
  'report.finished': [ev('report.finished', report), 'Report “Week 12” finished (asked for by Sam Lee)', `/projects/${PRJ}/reports/rep_1`],
  'report.failed': [ev('report.failed', { ...report, error: 'A photo is missing.' }), 'Report “Week 12” could not be made (asked for by Sam Lee): A photo is missing.', `/projects/${PRJ}/reports/rep_1`],
  'share_link.created': [ev('share_link.created', { id: 'shl_1', project_id: PRJ, photo_ids: ['pho_1', 'pho_2'], report_id: null, created_by: 'usr_rosa' }), 'Rosa Crew shared 2 photos by link', `/projects/${PRJ}`],
  'share_link.revoked': [ev('share_link.revoked', { id: 'shl_1', project_id: PRJ, photo_ids: [], report_id: 'rep_1', created_by: 'usr_rosa', revoked_by: 'usr_sam' }), 'Sam Lee turned off a link that shared a report', `/projects/${PRJ}`],
  'export.finished': [ev('export.finished', zip), 'A ZIP of 214 photos is ready (asked for by Sam Lee)', `/projects/${PRJ}`],
  'export.failed': [ev('export.failed', { ...zip, photo_count: null, error: 'A photo is missing.' }), 'A ZIP export could not be made (asked for by Sam Lee): A photo is missing.', `/projects/${PRJ}`],
  'tag.created': [ev('tag.created', tag, undefined, null), 'Sam Lee created the tag “Roof”', '/projects'],
  'tag.updated': [ev('tag.updated', tag, undefined, null), 'The tag “Roof” was changed', '/projects'],
  'tag.deleted': [ev('tag.deleted', tag, undefined, null), 'The tag “Roof” was deleted', '/projects'],
  'user.added': [ev('user.added', user, undefined, null), 'Rosa Crew joined the workspace', '/projects'],
  'user.updated': [ev('user.updated', { ...user, id: 'usr_gone' }, undefined, null), 'Rosa Crew’s details were changed', '/projects'],
  'user.removed': [ev('user.removed', user, undefined, null), 'Rosa Crew was deactivated', '/projects'],
  'notification.created': [
    ev('notification.created', { user_id: 'usr_dana', actor_id: 'usr_sam', kind: 'mention', subject: { type: 'comment', id: 'cmt_1' } }),
    'Sam Lee mentioned Dana Reyes in a comment', `/projects/${PRJ}`,
  ],
  'webhook.ping': [ev('webhook.ping', {}, undefined, null), 'A test event was sent to a webhook', '/projects'],
  'webhook.disabled': [ev('webhook.disabled', { url: 'https://hooks.example/x' }, undefined, null), 'The webhook to https://hooks.example/x was turned off after failing', '/projects'],
};

describe('the activity in words', () => {
  it('has a phrase for every kind of event in the server catalogue', () => {
    const missing = EVENT_TYPE_NAMES.filter((name) => !hasPhrase(name));
    assert.deepEqual(missing, [], `event kinds without a phrase in web/src/activity/phrases.ts: ${missing.join(', ')}`);
    const untested = EVENT_TYPE_NAMES.filter((name) => !Object.hasOwn(EXPECTED, name));
    assert.deepEqual(untested, [], 'every kind has its expected words here');
  });

  for (const name of EVENT_TYPE_NAMES) {
    it(`says ${name} in words, with its link`, () => {
      const [event, text, href] = EXPECTED[name];
      assert.deepEqual(phraseOf(event, nameOf), { text, href });
    });
  }

  it('says an unknown kind generically, and "Someone" for an unknown person', () => {
    assert.deepEqual(phraseOf(ev('thing.moved', {}), nameOf), { text: 'Something changed: thing.moved', href: `/projects/${PRJ}` });
    assert.equal(phraseOf(ev('photo.created', { ...photo, creator_id: 'usr_unknown' }), nameOf).text, 'Someone uploaded a photo');
    assert.equal(phraseOf(ev('photo.created', { ...photo, processing_status: 'failed' }), nameOf).text, 'Rosa Crew uploaded a photo that could not be processed');
    assert.equal(phraseOf(ev('task.assigned', { ...task, assignee_id: null }), nameOf).text, 'The task “Frame north wall” was unassigned');
  });

  it('groups alike events by one person within minutes, newest first, with thumbnails while their URLs last', () => {
    const at = (min: number) => new Date(Date.UTC(2026, 10, 25, 10, min)).toISOString();
    const events = [
      ev('photo.created', { ...photo, id: 'pho_5' }, at(20)),
      ev('photo.created', { ...photo, id: 'pho_4', caption: 'Deck' }, at(18)),
      ev('photo.created', { ...photo, id: 'pho_3' }, at(15)),
      ev('photo.created', { ...photo, id: 'pho_2', creator_id: 'usr_dana' }, at(14)),
      ev('photo.created', { ...photo, id: 'pho_1', creator_id: 'usr_dana' }, at(1)), // 13 minutes before the one above
      ev('task.completed', { ...task, id: 'tsk_2', title: 'B' }, at(0)),
      ev('task.completed', { ...task, id: 'tsk_1', title: 'A' }, at(0)),
    ];
    const lines = linesOf(events);
    assert.deepEqual(lines.map((l) => phraseOfLine(l, nameOf).text), [
      'Rosa Crew uploaded 3 photos', 'Dana Reyes uploaded a photo', 'Dana Reyes uploaded a photo', 'Dana Reyes completed 2 tasks',
    ]);
    assert.equal(phraseOfLine(lines[0]!, nameOf).href, `/projects/${PRJ}`);
    assert.equal(phraseOfLine(lines[3]!, nameOf).href, `/projects/${PRJ}/tasks`);
    const fresh = Date.parse(at(30));
    assert.deepEqual(itemsOfLine(lines[0]!, fresh), [
      { label: 'Photo 1 of 3', href: '/photos/pho_5', thumbnail: '/t/1.jpg' },
      { label: 'Deck', href: '/photos/pho_4', thumbnail: '/t/1.jpg' },
      { label: 'Photo 3 of 3', href: '/photos/pho_3', thumbnail: '/t/1.jpg' },
    ]);
    assert.equal(itemsOfLine(lines[0]!, fresh + 24 * 3600_000)[0]!.thumbnail, null, 'an event\'s signed URL is dead after a day');
    assert.deepEqual(itemsOfLine(lines[3]!, fresh).map((i) => [i.label, i.href]), [['B', `/projects/${PRJ}/tasks/tsk_2`], ['A', `/projects/${PRJ}/tasks/tsk_1`]]);
    assert.deepEqual(itemsOfLine(lines[1]!, fresh), [], 'a single event has no items');
  });

  it('says who joined or left the crew from the project before, and who assigned a task from its notification', () => {
    const lines = linesOf([
      ev('notification.created', { user_id: 'usr_dana', actor_id: 'usr_sam', kind: 'task_assigned', subject: { type: 'task', id: 'tsk_1' } }),
      ev('task.assigned', task),
      ev('task.created', task),
      ev('project.updated', { ...project, member_ids: ['usr_dana'], description: 'Seismic work', address: { city: 'Auckland' } }),
      ev('project.updated', { ...project, member_ids: ['usr_dana'], description: 'Seismic work' }),
      ev('project.updated', { ...project, member_ids: ['usr_dana'] }),
      ev('project.updated', { ...project, member_ids: ['usr_dana', 'usr_rosa'] }),
      ev('project.updated', { ...project, member_ids: ['usr_rosa'], name: 'Old name' }),
      ev('project.created', { ...project, member_ids: [], name: 'Old name' }),
    ]);
    assert.deepEqual(lines.map((l) => phraseOfLine(l, nameOf).text), [
      'Sam Lee assigned the task “Frame north wall” to Dana Reyes',
      'Sam Lee created the task “Frame north wall”',
      'The project’s address was changed',
      'The project’s description was changed',
      'Rosa Crew was taken off the crew',
      'Dana Reyes was added to the crew',
      'Rosa Crew was added to the crew',
      'Sam Lee created the project “Old name”',
    ]);
  });

  it('says when, in words', () => {
    const now = Date.parse('2026-11-25T12:00:00Z');
    assert.equal(timeAgo('2026-11-25T11:59:30Z', now), 'just now');
    assert.equal(timeAgo('2026-11-25T11:55:00Z', now), '5 minutes ago');
    assert.equal(timeAgo('2026-11-25T10:00:00Z', now), '2 hours ago');
    assert.equal(timeAgo('2026-11-22T12:00:00Z', now), '3 days ago');
    assert.equal(timeAgo('2026-11-11T12:00:00Z', now), '2 weeks ago');
  });
});
