import os from 'node:os';
import path from 'node:path';
import { parseCidr } from './http/ssrf-guard.ts';

/** Validated, frozen configuration read once from the environment at start-up. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  /**
   * JOBSITE_DATABASE_PREPARE (`on`, the default, or `off`): the API's statements as prepared
   * statements (db/prepared.ts). Off for a pooler that cannot keep them: PgBouncer in transaction
   * mode before 1.21, or with max_prepared_statements = 0 (docs/operations.md).
   */
  databasePrepare: boolean;
  dataDir: string;
  publicUrl: string;
  storage: StorageConfig;
  /** JOBSITE_URL_SIGNING_SECRET; null: the secret kept in the database (see storage/url-signing.repository.ts). */
  urlSigningSecret: string | null;
  webhookAllowPrivate: string[];
  /** How long a worker holds a claimed webhook delivery; after a crash another sends it once this runs out. */
  webhookLeaseSeconds: number;
  /** JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE: the most webhook endpoints one workspace may have (default 20). */
  webhookEndpointsPerWorkspace: number;
  rateLimitPerMinute: number;
  /**
   * Sign-in failures allowed per 15 minutes: JOBSITE_SIGN_IN_FAILURES_PER_EMAIL (default 10) and
   * JOBSITE_SIGN_IN_FAILURES_PER_ADDRESS (default 50); docs/sign-in.md.
   */
  signInFailures: { perEmail: number; perAddress: number };
  /**
   * JOBSITE_SHARE_PAGE_VIEWS_PER_MINUTE: share pages (`/s/{token}`) one client address may open per
   * minute (default 120); past it, a 429 page (docs/share-links.md).
   */
  sharePageViewsPerMinute: number;
  /** JOBSITE_SHUTDOWN_TIMEOUT_SECONDS: how long SIGTERM/SIGINT may take, in-flight work included (default 10 s; docs/operations.md). */
  shutdownTimeoutSeconds: number;
  logLevel: string;
  /** LOG_FORMAT: `pretty` (human-readable lines), `json` (one object a line), or `auto`: pretty on a terminal, else JSON. */
  logFormat: 'auto' | 'pretty' | 'json';
  /** Media limits and processing (photos, videos); see README. */
  media: MediaConfig;
  /** Developer applications, key e-mails and the operator webhook (docs/developer-program.md). */
  developerProgram: DeveloperProgramConfig;
  /**
   * JOBSITE_MAP_TILES: the tile URL template of the web app's projects map (`{z}/{x}/{y}`, optionally
   * `{s}`); default OpenStreetMap's; null (`off` or empty): no tiles, the pins on a plain background.
   */
  mapTiles: string | null;
}

/** OpenStreetMap's standard tiles (their usage policy asks for the attribution the map shows). */
export const DEFAULT_MAP_TILES = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';

export interface DeveloperProgramConfig {
  /** JOBSITE_SMTP_URL (smtp:// or smtps://, credentials in the URL); null: keys are printed, not mailed. */
  smtpUrl: string | null;
  /** JOBSITE_MAIL_FROM: the From of those e-mails; set whenever smtpUrl is. */
  mailFrom: string | null;
  /** JOBSITE_OPERATOR_WEBHOOK_URL + JOBSITE_OPERATOR_WEBHOOK_SECRET: where new applications are POSTed. */
  operatorWebhook: { url: string; secret: string } | null;
  /** JOBSITE_APPLICATION_RATE_LIMIT: applications one address may submit an hour (default 10). */
  applicationsPerHour: number;
  /**
   * JOBSITE_TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client (addresses or
   * CIDRs), or how many proxy hops to trust; null: the connection's address is the client's.
   */
  trustProxy: string[] | number | null;
}

export interface MediaConfig {
  /** JOBSITE_PHOTO_MAX_BYTES: larger uploads are a 413 (default 50 MB). */
  photoMaxBytes: number;
  /** JOBSITE_PHOTO_MAX_PIXELS: photos declaring more pixels are a 422 (default 100 MP). */
  photoMaxPixels: number;
  /** JOBSITE_VIDEO_MAX_BYTES: larger uploads are a 413 (default 1 GB). */
  videoMaxBytes: number;
  /** JOBSITE_DOCUMENT_MAX_BYTES: larger document uploads are a 413 (default 100 MB). */
  documentMaxBytes: number;
  /** JOBSITE_URL_TTL_SECONDS: how long the signed blob URLs in responses stay valid (default 1 hour). */
  urlTtlSeconds: number;
  /** JOBSITE_IMPORT_TIMEOUT_SECONDS: a `source_url` import must finish within this (default 60 s). */
  importTimeoutSeconds: number;
  /** JOBSITE_WORKER_CONCURRENCY: jobs (photo and video processing, renders) one worker runs at once (default: twice the cores). */
  workerConcurrency: number;
  /** JOBSITE_FFMPEG_PATH / JOBSITE_FFPROBE_PATH: the binaries for videos (default: the npm packages', else PATH); `off` disables (docs/videos.md). */
  ffmpegPath: string | null;
  ffprobePath: string | null;
  /**
   * JOBSITE_AUTO_ASSIGN_METERS: a photo uploaded without a project, outside every geofence, is filed
   * under the nearest project (without a fence) within this distance (default 300 m; 0: never by distance).
   */
  autoAssignMeters: number;
  /**
   * JOBSITE_EXPORT_RETENTION_DAYS: a finished (or failed) export and its ZIP are deleted this many
   * days after it ended (default 7; 0: kept until deleted). docs/exports.md.
   */
  exportRetentionDays: number;
}

/** Where blobs live: JOBSITE_STORAGE, plus the usual AWS variables for S3. */
export type StorageConfig =
  | { driver: 'file'; directory: string }
  | {
    driver: 's3';
    bucket: string;
    /** '' or a prefix ending in '/', put before every key. */
    prefix: string;
    /** AWS_REGION (or AWS_DEFAULT_REGION); null lets the AWS SDK find it (profile, instance metadata). */
    region: string | null;
    /** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, for S3-compatible servers. */
    endpoint: string | null;
    /** JOBSITE_S3_FORCE_PATH_STYLE: `endpoint/bucket/key` URLs instead of `bucket.endpoint/key`. */
    forcePathStyle: boolean;
    /** AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); null: the SDK's default chain. */
    credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string } | null;
  };

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** What a stop (SIGTERM, SIGINT) may take by default, from the signal to the exit (orchestrators wait 10-30 s before SIGKILL). */
export const DEFAULT_SHUTDOWN_TIMEOUT_SECONDS = 10;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };

  const port = int('PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  // Renewed every third of it while a delivery is in flight: it bounds how long a crashed worker's deliveries wait.
  const webhookLeaseSeconds = int('JOBSITE_WEBHOOK_LEASE_SECONDS', 30, 1, 3600);
  const webhookEndpointsPerWorkspace = int('JOBSITE_WEBHOOK_ENDPOINTS_PER_WORKSPACE', 20, 1, 10_000);
  const rateLimitPerMinute = int('JOBSITE_RATE_LIMIT', 600, 1, 1_000_000_000);
  const signInFailures = {
    perEmail: int('JOBSITE_SIGN_IN_FAILURES_PER_EMAIL', 10, 1, 1_000_000),
    perAddress: int('JOBSITE_SIGN_IN_FAILURES_PER_ADDRESS', 50, 1, 1_000_000),
  };
  // At least 2 s: the last part of the budget is kept for closing the pool and the embedded PostgreSQL.
  const shutdownTimeoutSeconds = int('JOBSITE_SHUTDOWN_TIMEOUT_SECONDS', DEFAULT_SHUTDOWN_TIMEOUT_SECONDS, 2, 3600);

  let databaseUrl: string | null = env.DATABASE_URL || null;
  if (databaseUrl) {
    try {
      const u = new URL(databaseUrl);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
        problems.push(`DATABASE_URL must start with postgres:// or postgresql:// (got "${u.protocol}")`);
      }
    } catch {
      problems.push('DATABASE_URL is not a valid URL');
      databaseUrl = null;
    }
  }

  const prepareSetting = env.JOBSITE_DATABASE_PREPARE || 'on';
  if (prepareSetting !== 'on' && prepareSetting !== 'off') problems.push(`JOBSITE_DATABASE_PREPARE must be "on" or "off" (got "${prepareSetting}")`);
  const databasePrepare = prepareSetting !== 'off';

  const dataDir = path.resolve(env.JOBSITE_DATA_DIR || './data');

  let publicUrl = env.JOBSITE_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('JOBSITE_PUBLIC_URL must be an http(s) URL');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`JOBSITE_PUBLIC_URL is not a valid URL (got "${publicUrl}")`);
  }

  const storage = storageConfig(env, dataDir, problems);

  const urlSigningSecret = env.JOBSITE_URL_SIGNING_SECRET || null;
  if (urlSigningSecret !== null && urlSigningSecret.length < 32) {
    problems.push('JOBSITE_URL_SIGNING_SECRET must be at least 32 characters (or unset, to use the one kept in the database)');
  }

  const webhookAllowPrivate = (env.JOBSITE_WEBHOOK_ALLOW_PRIVATE || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const cidr of webhookAllowPrivate) {
    try {
      parseCidr(cidr);
    } catch (err) {
      problems.push(`JOBSITE_WEBHOOK_ALLOW_PRIVATE: ${(err as Error).message}`);
    }
  }

  const media: MediaConfig = {
    photoMaxBytes: int('JOBSITE_PHOTO_MAX_BYTES', 50 * 1024 * 1024, 1024, 10 * 1024 ** 3),
    photoMaxPixels: int('JOBSITE_PHOTO_MAX_PIXELS', 100_000_000, 1, 1_000_000_000),
    videoMaxBytes: int('JOBSITE_VIDEO_MAX_BYTES', 1024 ** 3, 1024, 100 * 1024 ** 3),
    documentMaxBytes: int('JOBSITE_DOCUMENT_MAX_BYTES', 100 * 1024 * 1024, 1024, 100 * 1024 ** 3),
    urlTtlSeconds: int('JOBSITE_URL_TTL_SECONDS', 3600, 60, 7 * 24 * 3600),
    importTimeoutSeconds: int('JOBSITE_IMPORT_TIMEOUT_SECONDS', 60, 1, 3600),
    // Twice the cores: a job's waits on storage and the database leave its core idle otherwise
    // (bench:photos: 79 % of raw sharp at cores + 1, 81 % at 2 × cores on 2 cores).
    workerConcurrency: int('JOBSITE_WORKER_CONCURRENCY', Math.max(2, 2 * os.availableParallelism()), 1, 64),
    ffmpegPath: env.JOBSITE_FFMPEG_PATH || null,
    ffprobePath: env.JOBSITE_FFPROBE_PATH || null,
    autoAssignMeters: int('JOBSITE_AUTO_ASSIGN_METERS', 300, 0, 50_000),
    exportRetentionDays: int('JOBSITE_EXPORT_RETENTION_DAYS', 7, 0, 3650),
  };

  const mapTiles = mapTilesConfig(env, problems);

  const developerProgram = developerProgramConfig(env, problems, int('JOBSITE_APPLICATION_RATE_LIMIT', 10, 1, 1_000_000));

  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = (env.LOG_FORMAT || 'auto') as Config['logFormat'];
  if (!['auto', 'pretty', 'json'].includes(logFormat)) problems.push(`LOG_FORMAT must be auto, pretty or json (got "${logFormat}")`);

  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    port, host, databaseUrl, databasePrepare, dataDir, publicUrl, storage, urlSigningSecret, webhookAllowPrivate, webhookLeaseSeconds, webhookEndpointsPerWorkspace,
    rateLimitPerMinute, signInFailures: Object.freeze(signInFailures), sharePageViewsPerMinute: int('JOBSITE_SHARE_PAGE_VIEWS_PER_MINUTE', 120, 1, 1_000_000), shutdownTimeoutSeconds, logLevel, logFormat, media: Object.freeze(media),
    developerProgram: Object.freeze(developerProgram), mapTiles,
  });
}

function mapTilesConfig(env: NodeJS.ProcessEnv, problems: string[]): string | null {
  if (env.JOBSITE_MAP_TILES === undefined) return DEFAULT_MAP_TILES;
  const spec = env.JOBSITE_MAP_TILES.trim();
  if (spec === '' || spec.toLowerCase() === 'off') return null;
  let protocol = '';
  try {
    protocol = new URL(spec.replace('{s}', 'a')).protocol;
  } catch {
    // Reported below.
  }
  if (protocol !== 'http:' && protocol !== 'https:' || !['{z}', '{x}', '{y}'].every((p) => spec.includes(p))) {
    problems.push(`JOBSITE_MAP_TILES must be an http(s) URL template with {z}, {x} and {y}, or "off" (got "${spec}")`);
    return DEFAULT_MAP_TILES;
  }
  return spec;
}

function storageConfig(env: NodeJS.ProcessEnv, dataDir: string, problems: string[]): StorageConfig {
  const spec = env.JOBSITE_STORAGE || 'file';
  if (spec === 'file') return { driver: 'file', directory: path.join(dataDir, 'blobs') };
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(spec);
  if (!m) {
    problems.push(`JOBSITE_STORAGE must be "file" or "s3://bucket[/prefix]" (got "${spec}")`);
    return { driver: 'file', directory: path.join(dataDir, 'blobs') };
  }
  const bucket = m[1]!;
  const prefixPath = (m[2] ?? '').replace(/^\/+|\/+$/g, '');
  if (prefixPath && (!/^[A-Za-z0-9!_.*'()/-]+$/.test(prefixPath) || prefixPath.split('/').some((s) => s === '' || s === '.' || s === '..'))) {
    problems.push(`JOBSITE_STORAGE: the prefix after the bucket may hold letters, digits and !_.*'()- in /-separated segments (got "${m[2]}")`);
  }

  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || null;
  if (region !== null && !/^[a-z0-9-]{1,64}$/.test(region)) problems.push(`AWS_REGION must look like "us-east-1" (got "${region}")`);

  const endpointVar = env.AWS_ENDPOINT_URL_S3 ? 'AWS_ENDPOINT_URL_S3' : 'AWS_ENDPOINT_URL';
  const endpoint = env[endpointVar] || null;
  if (endpoint !== null) {
    let protocol = '';
    try {
      protocol = new URL(endpoint).protocol;
    } catch {
      problems.push(`${endpointVar} is not a valid URL (got "${endpoint}")`);
    }
    if (protocol && protocol !== 'http:' && protocol !== 'https:') problems.push(`${endpointVar} must be an http(s) URL (got "${endpoint}")`);
  }

  const pathStyle = (env.JOBSITE_S3_FORCE_PATH_STYLE || 'false').toLowerCase();
  if (!['true', 'false', '1', '0'].includes(pathStyle)) problems.push(`JOBSITE_S3_FORCE_PATH_STYLE must be true or false (got "${env.JOBSITE_S3_FORCE_PATH_STYLE}")`);

  const accessKeyId = env.AWS_ACCESS_KEY_ID || '';
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    problems.push('AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY go together: set both, or neither (to use an AWS profile or role)');
  }

  return {
    driver: 's3',
    bucket,
    prefix: prefixPath ? `${prefixPath}/` : '',
    // A custom endpoint (MinIO and the like) rarely cares about the region, but the SDK needs one.
    region: region ?? (endpoint ? 'us-east-1' : null),
    endpoint,
    forcePathStyle: pathStyle === 'true' || pathStyle === '1',
    credentials: accessKeyId && secretAccessKey
      ? { accessKeyId, secretAccessKey, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
      : null,
  };
}

function developerProgramConfig(env: NodeJS.ProcessEnv, problems: string[], applicationsPerHour: number): DeveloperProgramConfig {
  const smtpUrl = env.JOBSITE_SMTP_URL || null;
  if (smtpUrl !== null) {
    let protocol = '';
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      problems.push('JOBSITE_SMTP_URL is not a valid URL (e.g. smtp://user:password@mail.example.com:587)');
    }
    if (protocol && protocol !== 'smtp:' && protocol !== 'smtps:') problems.push(`JOBSITE_SMTP_URL must start with smtp:// or smtps:// (got "${protocol}")`);
  }
  const mailFrom = env.JOBSITE_MAIL_FROM || null;
  if (mailFrom !== null && !/^(?:[^<>]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/.test(mailFrom.trim())) {
    problems.push(`JOBSITE_MAIL_FROM must be an address, or "Name <address>" (got "${mailFrom}")`);
  }
  if (Boolean(smtpUrl) !== Boolean(mailFrom)) problems.push('JOBSITE_SMTP_URL and JOBSITE_MAIL_FROM go together: set both, or neither (keys are then printed by the CLI)');

  const url = env.JOBSITE_OPERATOR_WEBHOOK_URL || null;
  const secret = env.JOBSITE_OPERATOR_WEBHOOK_SECRET || null;
  if (url !== null) {
    try {
      const u = new URL(url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('JOBSITE_OPERATOR_WEBHOOK_URL must be an http(s) URL');
      if (u.username || u.password) problems.push('JOBSITE_OPERATOR_WEBHOOK_URL must not carry a user name or password');
    } catch {
      problems.push(`JOBSITE_OPERATOR_WEBHOOK_URL is not a valid URL (got "${url}")`);
    }
    if (secret === null) problems.push('JOBSITE_OPERATOR_WEBHOOK_SECRET is required with JOBSITE_OPERATOR_WEBHOOK_URL (whsec_ + base64 of 32 random bytes)');
  } else if (secret !== null) {
    problems.push('JOBSITE_OPERATOR_WEBHOOK_SECRET is set without JOBSITE_OPERATOR_WEBHOOK_URL');
  }
  if (secret !== null && !(/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret) && Buffer.from(secret.slice(6), 'base64').length >= 24)) {
    problems.push('JOBSITE_OPERATOR_WEBHOOK_SECRET must be whsec_ followed by the base64 of at least 24 random bytes ' +
      '(make one with: node -e "console.log(\'whsec_\' + crypto.randomBytes(32).toString(\'base64\'))")');
  }
  let trustProxy: string[] | number | null = null;
  const proxies = (env.JOBSITE_TRUST_PROXY || '').trim();
  if (/^\d+$/.test(proxies)) {
    trustProxy = Number(proxies) || null;
  } else if (proxies) {
    trustProxy = proxies.split(',').map((p) => p.trim()).filter(Boolean);
    for (const cidr of trustProxy) {
      try {
        parseCidr(cidr);
      } catch (err) {
        problems.push(`JOBSITE_TRUST_PROXY: ${(err as Error).message}`);
      }
    }
  }
  return {
    trustProxy,
    smtpUrl,
    mailFrom: mailFrom?.trim() ?? null,
    operatorWebhook: url && secret ? { url, secret } : null,
    applicationsPerHour,
  };
}
