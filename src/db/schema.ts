import type { ColumnType, Generated } from 'kysely';

/** Table types for Kysely; kept by hand beside the SQL migrations they mirror. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type Role = 'admin' | 'manager' | 'standard' | 'restricted';
export type UserStatus = 'active' | 'deactivated';
export type ProjectStatus = 'active' | 'archived';

export interface WorkspacesTable {
  id: string;
  name: string;
  /** IANA name; the zone of last resort for photo times and reports. */
  time_zone: ColumnType<string, string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface UsersTable {
  id: string;
  workspace_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  handle: string;
  role: Role;
  status: ColumnType<UserStatus, UserStatus | undefined, UserStatus>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deactivated_at: NullableTimestamp;
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  id: string;
  workspace_id: string;
  user_id: string;
  token_hash: Buffer;
  user_agent: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp;
}

export interface UserTokensTable {
  token_hash: Buffer;
  user_id: string;
  kind: 'invite' | 'reset';
  created_at: Timestamp;
  expires_at: Date;
  used_at: Date | null;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  user_id: string;
  name: string;
  secret_hash: Buffer;
  secret_prefix: string;
  read_only: ColumnType<boolean, boolean | undefined, boolean>;
  created_by: string | null;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  /** Issue 7: expiry, last use (at most once a minute) and rotation. */
  expires_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  rotated_at: NullableTimestamp;
  previous_secret_hash: ColumnType<Buffer | null, Buffer | null | undefined, Buffer | null>;
  previous_secret_expires_at: NullableTimestamp;
}

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string | null;
  status: ColumnType<ProjectStatus, ProjectStatus | undefined, ProjectStatus>;
  street_address_1: string | null;
  street_address_2: string | null;
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
  lat: number | null;
  lon: number | null;
  cover_photo_id: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  archived_at: NullableTimestamp;
  /** Kept in step by triggers (migration 016), never written by the application: the crew's user ids, sorted. */
  member_ids: ColumnType<string[], never, never>;
  /** Likewise: the project's tags as {id, name, color}, sorted by lowercased name (collation "C"), then id. */
  tags: ColumnType<{ id: string; name: string; color: string }[], never, never>;
  /** Likewise: the blob key of the cover photo's thumbnail (null without a cover or before it is processed). */
  cover_thumbnail_key: ColumnType<string | null, never, never>;
  /** A GeoJSON Polygon or {radius_m} (migration 022), with its bounding box and area, written together by the application. */
  geofence: ColumnType<Geofence | null, string | null | undefined, string | null>;
  geofence_min_lon: number | null;
  geofence_min_lat: number | null;
  geofence_max_lon: number | null;
  geofence_max_lat: number | null;
  geofence_area_m2: number | null;
}

/** A project's geofence as stored (and returned): a polygon of [lon, lat] positions, or a radius around the project's coordinates. */
export type Geofence = { type: 'Polygon'; coordinates: number[][][] } | { radius_m: number };

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  workspace_id: string;
  added_by: string | null;
  added_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status: 'in_flight' | 'completed';
  response_status: number | null;
  response_headers: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  response_body: string | null;
  created_at: Timestamp;
}

export interface RateLimitWindowsTable {
  bucket: string;
  window_start: Date;
  count: number;
}

export interface EventsTable {
  id: string;
  workspace_id: string;
  project_id: string | null;
  event: string;
  payload: string;
  created_at: Timestamp;
}

export type WebhookDisabledReason = 'manual' | 'gone' | 'failing';

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string | null;
  events: string[];
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  disabled_reason: WebhookDisabledReason | null;
  disabled_at: NullableTimestamp;
  failing_since: NullableTimestamp;
  last_success_at: NullableTimestamp;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: string;
  workspace_id: string;
  endpoint_id: string;
  event_id: string;
  status: ColumnType<WebhookDeliveryStatus, WebhookDeliveryStatus | undefined, WebhookDeliveryStatus>;
  attempt_count: ColumnType<number, number | undefined, number>;
  next_attempt_at: NullableTimestamp;
  lease_until: NullableTimestamp;
  /** The current claim's token (migration 013). */
  lease_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  completed_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempted_at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

/** One row: the key that signs the blob URLs the API serves (migration 004). */
export interface UrlSigningSecretTable {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  secret: Buffer;
  created_at: Generated<Date>;
}

export interface SchemaMigrationsTable {
  name: string;
  applied_at: Generated<Date>;
}

export type ProcessingStatus = 'pending' | 'processed' | 'failed';

/** A derived object of a photo or video, as recorded in `variants`. */
export interface StoredVariant {
  key: string;
  width: number;
  height: number;
  byte_size: number;
}

export type PhotoTimeSource = 'client' | 'exif_offset' | 'exif_local' | 'exif' | 'upload';

export interface PhotosTable {
  id: string;
  workspace_id: string;
  /** Null while the photo is unfiled (uploaded with POST /v1/photos and not yet filed; migration 022). */
  project_id: string | null;
  creator_id: string;
  blob_key: string;
  content_type: string;
  byte_size: ColumnType<number, number, number>;
  sha256: string;
  width: number | null;
  height: number | null;
  orientation: number | null;
  caption: string | null;
  captured_at: Timestamp;
  /** `exif` only on rows processed before migration 014 (offset applied if any, else read as UTC). */
  captured_at_source: PhotoTimeSource;
  /** IANA zone the local time is read and printed in; null until processed (and on rows from before 014). */
  captured_at_time_zone: string | null;
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  coordinates_source: 'client' | 'exif' | null;
  source_url: string | null;
  variants: ColumnType<Record<string, StoredVariant>, string | undefined, string>;
  annotations: ColumnType<unknown[], string | undefined, string>;
  annotations_version: ColumnType<number, number | undefined, number>;
  processing_status: ColumnType<ProcessingStatus, ProcessingStatus | undefined, ProcessingStatus>;
  processing_error: string | null;
  processed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Kept in step by triggers (migration 024), never written by the application: the photo's tags as {id, name, color}, sorted by lowercased name (collation "C"), then id. */
  tags: ColumnType<{ id: string; name: string; color: string }[], never, never>;
}

export interface VideosTable {
  id: string;
  workspace_id: string;
  project_id: string;
  creator_id: string;
  blob_key: string;
  content_type: string;
  byte_size: ColumnType<number, number, number>;
  sha256: string;
  width: number | null;
  height: number | null;
  duration_s: number | null;
  codec: string | null;
  caption: string | null;
  captured_at: Timestamp;
  captured_at_source: 'client' | 'metadata' | 'upload';
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  coordinates_source: 'client' | 'metadata' | null;
  variants: ColumnType<Record<string, StoredVariant>, string | undefined, string>;
  processing_status: ColumnType<ProcessingStatus, ProcessingStatus | undefined, ProcessingStatus>;
  processing_error: string | null;
  processed_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BlobGarbageTable {
  blob_key: string;
  created_at: Timestamp;
}

export type DeveloperApplicationStatus = 'pending' | 'approved' | 'rejected';

export interface DeveloperApplicationsTable {
  id: string;
  status: ColumnType<DeveloperApplicationStatus, DeveloperApplicationStatus | undefined, DeveloperApplicationStatus>;
  company_name: string;
  contact_name: string;
  email: string;
  intended_use: string;
  website: string | null;
  expected_monthly_requests: ColumnType<number | null, number | null | undefined, number | null>;
  status_token_hash: Buffer;
  client_ip: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  reviewed_at: NullableTimestamp;
  rejection_reason: string | null;
  workspace_id: string | null;
  user_id: string | null;
  api_key_id: string | null;
  notified_at: NullableTimestamp;
  key_delivery: 'email' | 'printed' | null;
}

export interface Database {
  workspaces: WorkspacesTable;
  users: UsersTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  user_tokens: UserTokensTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  idempotency_keys: IdempotencyKeysTable;
  rate_limit_windows: RateLimitWindowsTable;
  events: EventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  url_signing_secret: UrlSigningSecretTable;
  photos: PhotosTable;
  videos: VideosTable;
  blob_garbage: BlobGarbageTable;
  tags: TagsTable;
  project_tags: ProjectTagsTable;
  photo_tags: PhotoTagsTable;
  tasks: TasksTable;
  task_photos: TaskPhotosTable;
  comments: CommentsTable;
  notifications: NotificationsTable;
  documents: DocumentsTable;
  schema_migrations: SchemaMigrationsTable;
  developer_applications: DeveloperApplicationsTable;
  reports: ReportsTable;
  share_links: ShareLinksTable;
  share_link_photos: ShareLinkPhotosTable;
  exports: ExportsTable;
  sync_changes: SyncChangesTable;
  sync_heads: SyncHeadsTable;
  search_entries: SearchEntriesTable;
  document_texts: DocumentTextsTable;
}

export interface TagsTable {
  id: string;
  workspace_id: string;
  name: string;
  color: string;
  created_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ProjectTagsTable {
  project_id: string;
  tag_id: string;
  workspace_id: string;
  created_at: Timestamp;
}

export interface PhotoTagsTable {
  photo_id: string;
  tag_id: string;
  workspace_id: string;
  created_at: Timestamp;
}

export type TaskStatus = 'open' | 'completed';

export interface TasksTable {
  id: string;
  workspace_id: string;
  project_id: string;
  title: string;
  description: string | null;
  status: ColumnType<TaskStatus, TaskStatus | undefined, TaskStatus>;
  assignee_id: string | null;
  due_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  completed_by: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** Kept in step by triggers (migration 024), never written by the application: the task's photo ids in its order. */
  photo_ids: ColumnType<string[], never, never>;
}

export interface TaskPhotosTable {
  task_id: string;
  photo_id: string;
  position: ColumnType<number, number | undefined, number>;
}

export type CommentSubjectType = 'project' | 'photo' | 'task';

export interface CommentsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  subject_type: CommentSubjectType;
  photo_id: string | null;
  task_id: string | null;
  author_id: string;
  body: string;
  mentions: ColumnType<{ user_id: string; handle: string }[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type NotificationKind = 'mention' | 'task_assigned' | 'task_comment';

export interface NotificationsTable {
  id: string;
  workspace_id: string;
  user_id: string;
  kind: NotificationKind;
  actor_id: string | null;
  project_id: string | null;
  subject_type: 'project' | 'photo' | 'task' | 'comment';
  subject_id: string;
  comment_id: string | null;
  read_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface DocumentsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  name: string;
  content_type: string;
  byte_size: ColumnType<number, number, number>;
  sha256: string;
  blob_key: string;
  uploaded_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type ReportStatus = 'queued' | 'processing' | 'finished' | 'failed';

/** How a report is laid out (reports.options); defaults filled in when it is requested. */
export interface ReportOptions {
  layout: 1 | 2 | 4;
  /** null: each photo's time in its own zone, the rest in the project's (reports from before migration 014 all have one). */
  time_zone: string | null;
  page_size: 'letter' | 'a4';
  include_annotations: boolean;
  include_tasks: boolean;
  include_comments: boolean;
}

/** Which photos a report shows (reports.selection); null members select everything. */
export interface ReportSelection {
  photo_ids: string[] | null;
  captured_after: string | null;
  captured_before: string | null;
  tag_ids: string[] | null;
}

export interface ReportsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  title: string;
  status: ColumnType<ReportStatus, ReportStatus | undefined, ReportStatus>;
  error: string | null;
  options: ColumnType<ReportOptions, string, string>;
  selection: ColumnType<ReportSelection, string, string>;
  photo_count: number | null;
  page_count: number | null;
  byte_size: ColumnType<number | null, number | null | undefined, number | null>;
  blob_key: string | null;
  requested_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

export interface ShareLinksTable {
  id: string;
  workspace_id: string;
  project_id: string;
  token_hash: Buffer;
  report_id: string | null;
  shares: 'photos' | 'report';
  allow_download: ColumnType<boolean, boolean | undefined, boolean>;
  expires_at: NullableTimestamp;
  view_count: ColumnType<number, number | undefined, number>;
  last_viewed_at: NullableTimestamp;
  created_by: string;
  created_at: Timestamp;
  revoked_at: NullableTimestamp;
  revoked_by: string | null;
}

export interface ShareLinkPhotosTable {
  share_link_id: string;
  photo_id: string;
  position: number;
}

export type ExportStatus = 'queued' | 'processing' | 'finished' | 'failed';

/** A ZIP export of a project's originals (migration 018); `selection` as for reports. */
export interface ExportsTable {
  id: string;
  workspace_id: string;
  project_id: string;
  status: ColumnType<ExportStatus, ExportStatus | undefined, ExportStatus>;
  error: string | null;
  selection: ColumnType<ReportSelection, string, string>;
  file_name: string;
  photo_count: number | null;
  byte_size: ColumnType<number | null, number | null | undefined, number | null>;
  blob_key: string | null;
  requested_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: NullableTimestamp;
}

/** One row per resource (its latest change) or per (restricted user, project) access change: 020_sync.sql. */
export interface SyncChangesTable {
  workspace_id: string;
  type: string;
  id: string;
  user_id: Generated<string>;
  project_id: string | null;
  op: 'upsert' | 'delete' | 'grant' | 'revoke';
  seq: number | null;
  changed_at: Timestamp;
}

export interface SyncHeadsTable {
  workspace_id: string;
  last_seq: Generated<number>;
  horizon: Generated<number>;
}

/** GET /v1/search's index (migration 021): written only by triggers on the source tables. */
export interface SearchEntriesTable {
  workspace_id: ColumnType<string, never, never>;
  type: ColumnType<string, never, never>;
  id: ColumnType<string, never, never>;
  project_id: ColumnType<string | null, never, never>;
  title: ColumnType<string, never, never>;
  body: ColumnType<string, never, never>;
  tsv: ColumnType<string, never, never>;
  updated_at: ColumnType<Date, never, never>;
}

export type DocumentTextStatus = 'extracted' | 'empty' | 'failed';

/** The text of a PDF or text document, written by the extract_document_text job. */
export interface DocumentTextsTable {
  document_id: string;
  status: DocumentTextStatus;
  text: Generated<string>;
  page_count: number | null;
  truncated: Generated<boolean>;
  error: string | null;
  extracted_at: Timestamp;
}
