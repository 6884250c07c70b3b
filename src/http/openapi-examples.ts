import type { Static } from '@sinclair/typebox';
import type { ApiKey, ApiKeyWithSecret } from '../features/api-keys/api-keys.schemas.ts';
import type { Comment } from '../features/comments/comments.schemas.ts';
import type { Document } from '../features/documents/documents.schemas.ts';
import type { Event } from '../features/events/events.schemas.ts';
import type { Notification } from '../features/notifications/notifications.schemas.ts';
import type { Photo, PhotoAssignment } from '../features/photos/photos.schemas.ts';
import type { Project, ProjectCreate, ProjectPatch } from '../features/projects/projects.schemas.ts';
import type { Report, ReportCreate } from '../features/reports/reports.schemas.ts';
import type { ShareLink, ShareLinkCreate } from '../features/share-links/share-links.schemas.ts';
import type { Export, ExportCreate } from '../features/exports/exports.schemas.ts';
import type { SearchResult, SearchResults } from '../features/search/search.schemas.ts';
import type { SyncPage } from '../features/sync/sync.schemas.ts';
import type { Tag } from '../features/tags/tags.schemas.ts';
import type { Task, TaskCreate, TaskPatch } from '../features/tasks/tasks.schemas.ts';
import type { User, UserCreated } from '../features/users/users.schemas.ts';
import type { Invitation, Session, SignedInSession } from '../features/sessions/sessions.schemas.ts';
import type { Video } from '../features/videos/videos.schemas.ts';
import type { Webhook, WebhookDelivery, WebhookWithSecret } from '../features/webhooks/webhooks.schemas.ts';
import type { Workspace } from '../features/workspaces/workspaces.schemas.ts';

/**
 * Realistic examples for the document's named schemas (by component name), so the reference page's
 * "Try it out" and generated clients show a jobsite rather than strings generated from patterns.
 * Typed against the schemas, so a changed resource fails the typecheck here; test/openapi.test.ts
 * also validates every example against its schema in the served document.
 */

const ids = {
  workspace: 'wsp_01jdq5r8s2t4v6w8x0y2z4a6b8',
  admin: 'usr_01jdq6t2h8w4y6a0c2e4g6j8k0',
  sam: 'usr_01jdq6w9m3p5r7s9t1v3x5z7b9',
  project: 'prj_01jdq7v3m4k8x2c9f5t6b1n0zr',
  photo: 'pho_01jdq8c5e7g9h1j3k5m7n9p1q3',
  photo2: 'pho_01jdq8d2f4h6j8k0m2n4p6r8s0',
  video: 'vid_01jdq9a1b3c5d7e9f1g3h5j7k9',
  task: 'tsk_01jdqa2c4e6g8h0j2k4m6n8p0r',
  comment: 'cmt_01jdqb3d5f7h9j1k3m5n7p9q1s',
  document: 'doc_01jdqc4e6g8j0k2m4n6p8q0r2t',
  report: 'rep_01jdqd5f7h9k1m3n5p7q9r1s3v',
  export: 'exp_01jdqd7h9k1m3n5p7q9r1s3v5w',
  tag: 'tag_01jdq7w2n5p9r3s6t8v0x2z4b6',
  tag2: 'tag_01jdq7x4q8s2v6y0a4c8e2g6j0',
  key: 'key_01jdqe6g8j0m2n4p6q8r0s2t4w',
  webhook: 'whk_01jdqf7h9k1n3p5q7r9s1t3v5x',
  event: 'evt_01jdqg8j0m2p4q6r8s0t2v4w6y',
  delivery: 'dlv_01jdqh9k1n3q5r7s9t1v3w5x7z',
  notification: 'ntf_01jdqj0m2p4r6s8t0v2w4x6y8a',
  shareLink: 'shl_01jdqn3q5s7v9w1x3y5z7a9b1d',
};

const base = 'https://jobsite.example.com';
const signed = (key: string, extra = '') => `${base}/v1/files/${key}?expires=1764000000&sig=Zq8vN1xRk3mT0bW5yH7cD2fJ9gL4pS6a${extra}`;
const created = '2026-11-24T14:05:11.420Z';
const updated = '2026-11-24T15:32:48.017Z';

const address = { street_address_1: '12 Maple St', street_address_2: null, city: 'Springfield', state: 'IL', postal_code: '62704', country: 'US' };
const roofing = { id: ids.tag, name: 'Roofing', color: '#e67e22' };
const punchList = { id: ids.tag2, name: 'Punch list', color: '#c0392b' };

/** The lot of 12 Maple St, Springfield IL, about 40 × 50 m: a GeoJSON Polygon, [longitude, latitude], closed. */
const mapleStreetLot = {
  type: 'Polygon' as const,
  coordinates: [[[-89.65036, 39.78152], [-89.64989, 39.78152], [-89.64989, 39.78197], [-89.65036, 39.78197], [-89.65036, 39.78152]]],
};

const project: Static<typeof Project> = {
  id: ids.project, name: 'Maple St. remodel', description: 'Kitchen and rear-wall remodel of a 1920s two-storey house; owners stay in during works.',
  status: 'active', address, coordinates: { lat: 39.7817, lon: -89.6501 }, geofence: mapleStreetLot, tags: [roofing],
  cover_photo_id: ids.photo, cover_photo: { id: ids.photo, thumbnail_url: signed('photos/2026/11/9b1f3c2a.thumbnail') },
  member_ids: [ids.admin, ids.sam], created_by: ids.admin, created_at: created, updated_at: updated, archived_at: null,
};

const photo: Static<typeof Photo> = {
  id: ids.photo, project_id: ids.project, url: signed('photos/2026/11/9b1f3c2a'),
  variants: {
    original: signed('photos/2026/11/9b1f3c2a'), large: signed('photos/2026/11/9b1f3c2a.large'),
    thumbnail: signed('photos/2026/11/9b1f3c2a.thumbnail'), annotated: signed('photos/2026/11/9b1f3c2a.annotated'),
  },
  width: 4032, height: 3024, content_type: 'image/jpeg', byte_size: 3_481_204,
  sha256: '4f2a9c0e6b1d8f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a',
  captured_at: '2026-11-24T13:58:02.000Z', captured_at_source: 'exif_local', captured_at_time_zone: 'America/Chicago',
  coordinates: { lat: 39.78172, lon: -89.65014, altitude: 182.4 }, coordinates_source: 'exif',
  caption: 'North wall, sheathing off: rot at the sill plate', tags: [punchList, roofing],
  annotations: [{ type: 'arrow', x1: 0.2, y1: 0.2, x2: 0.5, y2: 0.6, color: '#ff3b30', width: 0.01 }],
  processing_status: 'processed', processing_error: null, source_url: null,
  creator_id: ids.sam, created_at: created, updated_at: updated,
};

const video: Static<typeof Video> = {
  id: ids.video, project_id: ids.project, url: signed('videos/2026/11/c4d8e2f6'), poster_url: signed('videos/2026/11/c4d8e2f6.poster'),
  duration_s: 42.6, width: 1920, height: 1080, codec: 'h264', content_type: 'video/mp4', byte_size: 58_204_113,
  sha256: '9c1e3a5b7d9f2c4e6a8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c',
  captured_at: '2026-11-24T14:02:30.000Z', captured_at_source: 'metadata', coordinates: null, coordinates_source: null,
  caption: 'Walk-through of the framing before inspection', processing_status: 'processed', processing_error: null,
  creator_id: ids.sam, created_at: created, updated_at: updated,
};

const user: Static<typeof User> = {
  id: ids.sam, email: 'sam@acme.example', first_name: 'Sam', last_name: 'Ortiz', handle: 'sam', role: 'standard',
  status: 'active', created_at: created, updated_at: updated, deactivated_at: null,
};

const task: Static<typeof Task> = {
  id: ids.task, project_id: ids.project, title: 'Replace rotten sill plate on the north wall', description: 'Shore the wall first; treated 2×6, two anchors per metre.',
  status: 'open', assignee_id: ids.sam, due_at: '2026-11-28T17:00:00.000Z', completed_at: null, completed_by: null,
  photo_ids: [ids.photo], created_by: ids.admin, created_at: created, updated_at: updated,
};

const apiKey: Static<typeof ApiKey> = {
  id: ids.key, name: 'CRM nightly sync', user_id: ids.admin, prefix: 'jsk_4Xb9', read_only: true, status: 'active', created_by: ids.admin,
  created_at: created, expires_at: '2027-11-24T00:00:00.000Z', last_used_at: updated, rotated_at: null, previous_secret_expires_at: null,
  revoked_at: null, updated_at: updated,
};

const webhook: Static<typeof Webhook> = {
  id: ids.webhook, url: 'https://crm.example.com/hooks/jobsite', description: 'CRM: projects and new users', events: ['project.*', 'user.added'],
  enabled: true, disabled_reason: null, disabled_at: null, previous_secret_expires_at: null, last_success_at: updated, failing_since: null,
  created_by: ids.admin, created_at: created, updated_at: updated,
};

const report: Static<typeof Report> = {
  id: ids.report, project_id: ids.project, title: 'Maple St. — week 47 progress', status: 'finished', error: null,
  options: { layout: 2, time_zone: 'America/Chicago', page_size: 'letter', include_annotations: true, include_tasks: true, include_comments: false },
  selection: { photo_ids: null, captured_after: '2026-11-17T06:00:00.000Z', captured_before: '2026-11-24T06:00:00.000Z', tag_ids: null },
  photo_count: 36, page_count: 19, byte_size: 8_734_120, url: signed('reports/2026/11/e7a1b5c9', '&disposition=attachment'),
  requested_by: ids.admin, created_at: created, updated_at: updated, finished_at: updated,
};

const shareLink: Static<typeof ShareLink> = {
  id: ids.shareLink, project_id: ids.project, url: `${base}/s/q7Vd2kR9xW4mT1bN8cH5fJ3gL6pS0aE2uZ4yB7nK9oM`, status: 'active',
  photo_ids: [ids.photo, ids.photo2], report_id: null, allow_download: true, expires_at: '2026-12-24T14:05:11.420Z',
  view_count: 3, last_viewed_at: updated, created_by: ids.sam, created_at: created, revoked_at: null, revoked_by: null,
};

const photoExport: Static<typeof Export> = {
  id: ids.export, project_id: ids.project, status: 'finished', error: null,
  selection: { photo_ids: null, captured_after: '2026-11-17T06:00:00.000Z', captured_before: '2026-11-24T06:00:00.000Z', tag_ids: [ids.tag] },
  file_name: 'Maple St. remodel photos 2026-11-24.zip', photo_count: 214, byte_size: 771_604_338,
  url: signed('exports/2026/11/f3b7d1a9', '&disposition=attachment&filename=Maple%20St.%20remodel%20photos%202026-11-24.zip&type=application%2Fzip'),
  requested_by: ids.admin, created_at: created, updated_at: updated, finished_at: updated, expires_at: '2026-12-01T15:32:48.017Z',
};

const delivery: Static<typeof WebhookDelivery> = {
  id: ids.delivery, event_id: ids.event, event: 'project.updated', status: 'succeeded', attempt_count: 2, next_attempt_at: null,
  last_status_code: 200, last_error: null, created_at: created, updated_at: '2026-11-24T14:05:17.902Z', completed_at: '2026-11-24T14:05:17.902Z',
  attempts: [
    { attempted_at: '2026-11-24T14:05:11.611Z', status_code: 503, duration_ms: 212, response_excerpt: 'upstream unavailable', error: null },
    { attempted_at: '2026-11-24T14:05:17.788Z', status_code: 200, duration_ms: 114, response_excerpt: '{"ok":true}', error: null },
  ],
};

const searchHits: Static<typeof SearchResult>[] = [
  {
    type: 'task', id: ids.task, project_id: ids.project, title: 'Water damage in the basement: dry out and replace drywall',
    snippet: '«Water» «damage» in the «basement»: dry out and replace drywall', score: 0.607927,
  },
  {
    type: 'document', id: ids.document, project_id: ids.project, title: 'Inspection report 2026-11-18.pdf',
    snippet: 'North wall of the «basement» shows «water» «damage» up to 40 cm; sump pump discharge blocked, see photo 12', score: 0.227973,
  },
  {
    type: 'photo', id: ids.photo, project_id: ids.project, title: 'Basement, north wall: water stains after Tuesday\'s rain',
    snippet: '«Basement», north wall: «water» stains after Tuesday\'s rain', score: 0.198765,
  },
];

export const SCHEMA_EXAMPLES: Record<string, unknown> = {
  Project: project,
  ProjectTag: roofing,
  PhotoTag: punchList,
  CoverPhoto: project.cover_photo,
  PhotoVariants: photo.variants,
  Mention: { user_id: ids.sam, handle: 'sam' },
  CommentSubject: { type: 'photo', id: ids.photo },
  ReportOptions: report.options,
  ReportOptionsInput: { layout: 4, time_zone: 'America/Chicago', page_size: 'letter', include_tasks: true },
  ReportSelection: report.selection,
  WebhookAttempt: delivery.attempts[1],
  EventType: { name: 'photo.created', description: 'A photo was uploaded and its variants exist; `data` is the photo.' },
  EventTypeList: { data: [{ name: 'photo.created', description: 'A photo was uploaded and its variants exist; `data` is the photo.' }] },
  ProjectCreate: {
    name: 'Maple St. remodel', description: 'Kitchen and rear-wall remodel.',
    address: { street_address_1: '12 Maple St', city: 'Springfield', state: 'IL', postal_code: '62704', country: 'US' },
    coordinates: { lat: 39.7817, lon: -89.6501 }, geofence: mapleStreetLot,
  } satisfies Static<typeof ProjectCreate>,
  ProjectPatch: { address: { city: 'Shelbyville' }, cover_photo_id: ids.photo, geofence: { radius_m: 150 } } satisfies Static<typeof ProjectPatch>,
  Geofence: mapleStreetLot,
  GeofencePolygon: mapleStreetLot,
  GeofenceRadius: { radius_m: 150 },
  Address: address,
  AddressInput: { street_address_1: '12 Maple St', city: 'Springfield', state: 'IL', postal_code: '62704', country: 'US' },
  Coordinates: { lat: 39.7817, lon: -89.6501 },
  PhotoCoordinates: { lat: 39.78172, lon: -89.65014, altitude: 182.4 },
  Photo: photo,
  PhotoPatch: { caption: 'North wall after the new sill plate', coordinates: { lat: 39.78172, lon: -89.65014 } },
  PhotoAssignment: {
    photo, project_id: ids.project, previous_project_id: null, assigned_by: 'geofence', user_id: null,
  } satisfies Static<typeof PhotoAssignment>,
  PhotoImport: { source_url: 'https://photos.example.com/site/IMG_0412.jpg', caption: 'North wall', tag_ids: [ids.tag] },
  AnnotationShapes: {
    shapes: [
      { type: 'arrow', x1: 0.2, y1: 0.2, x2: 0.5, y2: 0.6, color: '#ff3b30', width: 0.01 },
      { type: 'rectangle', x: 0.55, y: 0.4, w: 0.2, h: 0.15, color: '#ffcc00', width: 0.006 },
      { type: 'text', x: 0.56, y: 0.36, text: 'Rot', color: '#ffcc00', size: 0.04 },
    ],
  },
  Video: video,
  VideoPatch: { caption: 'Framing walk-through, before inspection' },
  User: user,
  CreateUserRequest: { email: 'sam@acme.example', first_name: 'Sam', last_name: 'Ortiz', handle: 'sam', role: 'standard' },
  UpdateUserRequest: { role: 'manager' },
  WorkspacePatch: { time_zone: 'America/Chicago' },
  Workspace: { id: ids.workspace, name: 'Acme Builders', time_zone: 'America/Chicago', created_at: created, updated_at: updated } satisfies Static<typeof Workspace>,
  ApiKey: apiKey,
  ApiKeyWithSecret: { ...apiKey, key: 'jsk_4Xb9qT2mV8nR5wK1yH6cJ3fD0gL7pS9aE2uZ4xB' } satisfies Static<typeof ApiKeyWithSecret>,
  CreateApiKeyRequest: { name: 'CRM nightly sync', read_only: true, expires_at: '2027-11-24T00:00:00.000Z' },
  ApiKeyRotate: { grace_seconds: 3600 },
  Task: task,
  TaskCreate: { title: 'Replace rotten sill plate on the north wall', assignee_id: ids.sam, due_at: '2026-11-28T17:00:00.000Z', photo_ids: [ids.photo] } satisfies Static<typeof TaskCreate>,
  TaskPatch: { due_at: '2026-12-01T17:00:00.000Z', description: 'Shore the wall first.' } satisfies Static<typeof TaskPatch>,
  Comment: {
    id: ids.comment, subject: { type: 'photo', id: ids.photo }, project_id: ids.project, author_id: ids.admin,
    body: '@sam can you check the sill plate on the east side too?', mentions: [{ user_id: ids.sam, handle: 'sam' }],
    created_at: created, updated_at: created,
  } satisfies Static<typeof Comment>,
  CommentCreate: { body: '@sam can you check the sill plate on the east side too?' },
  CommentPatch: { body: '@sam can you check the east and south sill plates too?' },
  Document: {
    id: ids.document, project_id: ids.project, name: 'Structural drawings rev C.pdf', content_type: 'application/pdf', byte_size: 2_304_551,
    sha256: '1b3d5f7a9c2e4b6d8f0a1c3e5b7d9f2a4f2a9c0e6b1d8f3a5c7e9b2d4f6a8c0e',
    url: signed('documents/2026/11/a2c4e6f8', '&disposition=attachment&filename=Structural%20drawings%20rev%20C.pdf'),
    uploaded_by: ids.admin, created_at: created, updated_at: created,
  } satisfies Static<typeof Document>,
  DocumentPatch: { name: 'Structural drawings rev D.pdf' },
  Report: report,
  ReportCreate: {
    title: 'Maple St. — week 47 progress', captured_after: '2026-11-17T06:00:00.000Z', captured_before: '2026-11-24T06:00:00.000Z',
    options: { layout: 2, time_zone: 'America/Chicago', include_tasks: true },
  } satisfies Static<typeof ReportCreate>,
  ShareLink: shareLink,
  ShareLinkCreate: { photo_ids: [ids.photo, ids.photo2], expires_at: '2026-12-24T14:05:11.420Z', allow_download: true } satisfies Static<typeof ShareLinkCreate>,
  Export: photoExport,
  ExportCreate: { captured_after: '2026-11-17T06:00:00.000Z', captured_before: '2026-11-24T06:00:00.000Z', tag_ids: [ids.tag] } satisfies Static<typeof ExportCreate>,
  ExportSelection: photoExport.selection,
  Tag: { id: ids.tag, name: 'Roofing', color: '#e67e22', created_by: ids.admin, created_at: created, updated_at: created } satisfies Static<typeof Tag>,
  TagCreate: { name: 'Roofing', color: '#e67e22' },
  TagPatch: { color: '#d35400' },
  Notification: {
    id: ids.notification, user_id: ids.sam, kind: 'mention', actor_id: ids.admin, project_id: ids.project,
    subject: { type: 'comment', id: ids.comment }, comment_id: ids.comment, read_at: null, created_at: created,
  } satisfies Static<typeof Notification>,
  NotificationsReadAll: { marked: 3 },
  Event: {
    id: ids.event, event: 'project.updated', project_id: ids.project, workspace_id: ids.workspace, created_at: updated, data: project,
  } satisfies Static<typeof Event>,
  SyncChange: { seq: 4182, type: 'task', id: ids.task, op: 'upsert', object: task },
  SyncPage: {
    changes: [
      { seq: 4182, type: 'task', id: ids.task, op: 'upsert', object: task },
      { seq: 4183, type: 'photo', id: ids.photo2, op: 'delete' },
      { seq: 4185, type: 'project', id: ids.project, op: 'upsert', object: project },
    ],
    next_cursor: 'eyJ2IjoxLCJ3Ijoid3NwXzAxamRxNXI4czJ0NHY2dzh4MHkyejRhNmI4IiwicyI6NDE4NSwiayI6IiIsImIiOjAsImQiOjB9',
    has_more: false,
  } satisfies Static<typeof SyncPage>,
  SearchResult: searchHits[0],
  SearchResults: { data: searchHits } satisfies Static<typeof SearchResults>,
  Webhook: webhook,
  WebhookWithSecret: { ...webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw4Ts9kV0xZ2M=' } satisfies Static<typeof WebhookWithSecret>,
  WebhookCreate: { url: 'https://crm.example.com/hooks/jobsite', events: ['project.*', 'user.added'], description: 'CRM: projects and new users' },
  WebhookPatch: { events: ['project.*', 'photo.created'], enabled: true },
  RotateSecret: { grace_seconds: 86_400 },
  WebhookPingResult: { event_id: ids.event, delivery_id: ids.delivery },
  WebhookDelivery: delivery,
  WebhookReplay: { since: '2026-11-23T00:00:00.000Z', until: '2026-11-24T00:00:00.000Z' },
  WebhookReplayResult: { queued: 14 },
  DeveloperApplicationCreate: {
    company_name: 'Acme Integrations', contact_name: 'Ada Lovelace', email: 'ada@acme.example',
    intended_use: 'Sync jobsite photos into our CRM every night.', website: 'https://acme.example', expected_monthly_requests: 50_000,
  },
  DeveloperApplicationReceipt: { id: 'app_01jdqk1n3q5s7t9v1w3x5y7z9b', status: 'pending', status_token: 'ast_Jr7pW2xK9mQ4vB6nT1yH8cF3', created_at: created },
  DeveloperApplicationStatus: { id: 'app_01jdqk1n3q5s7t9v1w3x5y7z9b', status: 'pending', created_at: created, updated_at: created },
};

const session: Static<typeof Session> = {
  id: 'ses_01jdqm2p4r6t8v0w2x4y6z8a0c', current: true, user_agent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) Mobile/15E148 Safari/604.1',
  created_at: created, last_used_at: updated, expires_at: '2026-12-24T14:05:11.420Z',
};
Object.assign(SCHEMA_EXAMPLES, {
  Session: session,
  SignedInSession: { ...session, user, csrf_token: 'n4Qk7vX2bR9tL1mW8yC3fH6jD0sA5gE2uZ4xB7pK9qM' } satisfies Static<typeof SignedInSession>,
  SignIn: { email: 'sam@acme.example', password: 'correct horse battery staple' },
  UserCreated: {
    ...user, invite_url: 'https://jobsite.example.com/invite/Qm3x9Kp2Lr7tV5wY8zB1cD4fG6hJ0nS2uA5eR7iT9oW', invite_expires_at: '2026-11-27T14:05:11.420Z', invite_emailed: true,
  } satisfies Static<typeof UserCreated>,
  Invitation: { email: 'sam@acme.example', first_name: 'Sam', last_name: null, workspace: { id: ids.workspace, name: 'Acme Builders' }, expires_at: '2026-11-27T14:05:11.420Z' } satisfies Static<typeof Invitation>,
  InvitationAccept: { password: 'correct horse battery staple', first_name: 'Sam', last_name: 'Ortiz' },
  PasswordResetRequest: { email: 'sam@acme.example' },
  PasswordResetRequested: { status: 'accepted', detail: 'If this address belongs to someone here, a link to choose a new password is on its way (it works for 1 hour).' },
  PasswordReset: { password: 'a new and longer passphrase' },
});

/** A list page around one item. */
export const pageExample = (item: unknown) => ({
  data: [item], has_more: true, next_cursor: 'eyJ2IjpbIjIwMjYtMTEtMjRUMTQ6MDU6MTEuNDIwWiIsInByal8wMWpkcTd2M200azh4MmM5ZjV0NmIxbjB6ciJdfQ',
});
