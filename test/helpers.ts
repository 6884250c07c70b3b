import crypto from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type Db } from '../src/db/database.ts';
import type { Role } from '../src/db/schema.ts';
import { WorkspacesService, type ProvisionedWorkspace } from '../src/features/workspaces/workspaces.service.ts';
import type { App } from '../src/http/types.ts';
import { EventLog } from '../src/features/events/events.log.ts';
import { runJobsOnce, type JobDeps } from '../src/jobs/queue.ts';
import { databaseUrl } from './db-url.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * A fresh database cloned from the run's migrated template (see test/run.ts). Each test file
 * calls this once: files never see each other's rows.
 */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const serverUrl = process.env.JOBSITE_TEST_SERVER_URL;
  const template = process.env.JOBSITE_TEST_TEMPLATE;
  if (!serverUrl || !template) throw new Error('Run tests with `npm test` (test/run.ts prepares the database server).');
  const name = `jobsite_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await admin.connect();
  // CREATE DATABASE … TEMPLATE fails while anything else is connected to the template; retry briefly.
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`create database ${name} template ${template}`);
      break;
    } catch (err) {
      if (attempt > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  await admin.end();
  return {
    url: databaseUrl(serverUrl, name),
    async drop() {
      const c = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

export interface TestContext {
  app: App;
  db: Db;
  config: Config;
  url: string;
  /** What the worker's jobs get: this app's database, blob store and configuration. */
  jobDeps(): JobDeps;
  /** Runs every queued job that is due (photo processing, renders, …) with the real worker code, then returns. */
  runJobs(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A full app on its own fresh database. `env` overrides configuration (e.g. JOBSITE_RATE_LIMIT).
 * With `databaseUrl` (another context's `url`), it opens a second app (as another API process would) on that
 * existing database instead, and leaves the database to its owner on close.
 */
export async function startTestApp(env: Record<string, string> = {}, options: { databaseUrl?: string } = {}): Promise<TestContext> {
  const database = options.databaseUrl ? { url: options.databaseUrl, drop: async () => undefined } : await createTestDatabase();
  // Blobs go to a directory of this context's own (unless the test chose one), removed on close.
  const ownDataDir = env.JOBSITE_DATA_DIR ? null : fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-test-data-'));
  let config: Config;
  let handle: ReturnType<typeof openDatabase> | undefined;
  let app: App;
  try {
    config = loadConfig({
      JOBSITE_PUBLIC_URL: 'http://jobsite.test', LOG_LEVEL: 'silent', JOBSITE_RATE_LIMIT: '100000',
      ...(ownDataDir ? { JOBSITE_DATA_DIR: ownDataDir } : {}), ...env,
    });
    handle = openDatabase(database.url, { max: 5 });
    app = await buildApp({ config, db: handle.db, logger: false });
    await app.ready();
  } catch (err) {
    // A configuration a test expects to be refused: leave nothing behind.
    await handle?.close();
    await database.drop();
    if (ownDataDir) fs.rmSync(ownDataDir, { recursive: true, force: true });
    throw err;
  }
  const jobDeps = (): JobDeps => ({ db: handle.db, blobs: app.blobs, config, events: new EventLog() });
  return {
    app, db: handle.db, config, url: database.url, jobDeps,
    runJobs: () => runJobsOnce(database.url, jobDeps()),
    async close() {
      try {
        await app.close();
        await handle!.close();
        await database.drop();
      } finally {
        if (ownDataDir) fs.rmSync(ownDataDir, { recursive: true, force: true });
      }
    },
  };
}

export interface TestUser {
  id: string;
  key: string;
  role: Role;
  workspaceId: string;
  email: string;
  handle: string;
}

export interface TestWorkspace {
  id: string;
  admin: TestUser;
  provisioned: ProvisionedWorkspace;
}

let counter = 0;
const unique = () => `${Date.now().toString(36)}${(counter++).toString(36)}`;

/** Factory: a workspace with its admin (and the admin's key), as the CLI makes them. */
export async function newWorkspace(t: TestContext, name = `Workspace ${unique()}`): Promise<TestWorkspace> {
  const made = await new WorkspacesService(t.db).provision({ name, adminEmail: `admin-${unique()}@example.test` });
  return {
    id: made.workspace.id,
    provisioned: made,
    admin: { id: made.admin.id, key: made.api_key.key, role: 'admin', workspaceId: made.workspace.id, email: made.admin.email, handle: made.admin.handle },
  };
}

/** Factory: a user of `role` in the workspace, with an API key of their own, made through the API. */
export async function newUser(t: TestContext, ws: TestWorkspace, role: Role = 'standard', extra: Record<string, unknown> = {}): Promise<TestUser> {
  const email = `${role}-${unique()}@example.test`;
  const created = await api(t, ws.admin, 'POST', '/v1/users', { email, role, ...extra });
  if (created.statusCode !== 201) throw new Error(`newUser failed: ${created.statusCode} ${created.body}`);
  const user = created.json();
  const key = await api(t, ws.admin, 'POST', '/v1/api-keys', { name: 'test', user_id: user.id });
  if (key.statusCode !== 201) throw new Error(`newUser key failed: ${key.statusCode} ${key.body}`);
  return { id: user.id, key: key.json().key, role, workspaceId: ws.id, email, handle: user.handle };
}

/** One API call as `who` (a user with a key, a raw key string, or null for no Authorization). */
export function api(t: TestContext, who: { key: string } | string | null, method: string, url: string, body?: unknown, headers: Record<string, string> = {}) {
  const key = who === null ? undefined : typeof who === 'string' ? who : who.key;
  return t.app.inject({
    method: method as 'GET',
    url,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    ...(body === undefined ? {} : typeof body === 'string' ? { payload: body } : { payload: body as object }),
  });
}

/**
 * Rate limits count in fixed wall-clock windows (src/http/rate-limit.ts). A test that needs its
 * requests in one window waits for the next one when fewer than `marginMs` are left (it never
 * asserts a duration).
 */
export async function awayFromWindowEdge(windowMs: number, marginMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}
