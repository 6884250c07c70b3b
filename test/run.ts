/**
 * `npm test`: one PostgreSQL for the whole run (the embedded server in a temporary directory, or
 * the server of DATABASE_URL), one migrated template database, and every test file run by
 * node's test runner in its own process; each file clones the template into a fresh database.
 * A file with a failure is run once more, alone: when it passes then, the run passes and says so
 * ("passed only on a second run"), by name; when it fails again, the run fails (docs/decisions.md,
 * "Tests: a failed file runs once more"). Not when more than RERUN_AT_MOST files failed: that is no flake.
 *
 *   npm test                          all files under test/
 *   npm test -- test/users.test.ts    some files
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrateAll } from '../src/runtime.ts';
import { databaseUrl } from './db-url.ts';
import { ensureWebBuilt } from './web-build.ts';

async function testFiles(args: string[]): Promise<string[]> {
  if (args.length) return args;
  const entries = await fs.readdir('test', { recursive: true });
  return entries.filter((f) => f.endsWith('.test.ts')).map((f) => path.join('test', f)).sort();
}

/** More failed files than this are not run again: something is broken, not unlucky. */
const RERUN_AT_MOST = 3;

const files = await testFiles(process.argv.slice(2));
// The web tests serve web/dist: built once here (npm install does it too), not by each test process at once.
if (files.some((f) => path.basename(f).startsWith('web-'))) ensureWebBuilt();
let serverUrl: string;
let cleanup = async () => undefined as void;
if (process.env.DATABASE_URL) {
  serverUrl = process.env.DATABASE_URL;
  console.log(`Tests use the PostgreSQL server of DATABASE_URL (${new URL(serverUrl).host}).`);
} else {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-test-'));
  await fs.chmod(dir, 0o755);
  const server = await startEmbeddedPostgres(dir);
  serverUrl = server.urlFor('postgres');
  console.log(`Tests use an embedded PostgreSQL on 127.0.0.1:${server.port}.`);
  if (server.relocatedTo) console.log(`(The postgres user cannot reach ${dir}: the cluster is in ${server.relocatedTo}.)`);
  cleanup = async () => {
    await server.release({ forceStop: true });
    await fs.rm(dir, { recursive: true, force: true });
    if (server.relocatedTo) await fs.rm(server.relocatedTo, { recursive: true, force: true });
  };
}

const template = `jobsite_tpl_${crypto.randomBytes(5).toString('hex')}`;
const admin = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
let code = 1;
try {
  await admin.connect();
  await admin.query(`create database ${template}`);
  await migrateAll(databaseUrl(serverUrl, template));
  const env = { ...process.env, JOBSITE_TEST_SERVER_URL: serverUrl, JOBSITE_TEST_TEMPLATE: template, DATABASE_URL: '' };
  const failedList = path.join(os.tmpdir(), `jobsite-failed-${process.pid}.txt`);
  code = await runFiles(files, env, failedList);
  const failed = code === 0 ? [] : await failedFiles(failedList);
  if (failed.length > 0 && failed.length <= RERUN_AT_MOST) {
    console.log(`\n*** ${failed.length} file(s) had a failure; running them once more, alone: ${failed.map((f) => path.relative('.', f)).join(', ')}\n`);
    code = await runFiles(failed, env, failedList, 1);
    console.log(code === 0
      ? `\n*** PASSED ONLY ON A SECOND RUN (flaky; the first run's failure is printed above): ${failed.map((f) => path.relative('.', f)).join(', ')}`
      : '\n*** Failed again on the second run.');
  }
  await fs.rm(failedList, { force: true });
} finally {
  await admin.query(`drop database if exists ${template} with (force)`).catch(() => undefined);
  await admin.end().catch(() => undefined);
  await cleanup();
}
process.exit(code);

/** Node's test runner on these files (spec output, and the failed files' paths written to failedList); its exit code. */
function runFiles(list: string[], env: NodeJS.ProcessEnv, failedList: string, concurrency = 2): Promise<number> {
  return new Promise<number>((resolve) => {
    const child = spawn(process.execPath, [
      '--import', 'tsx', '--test', `--test-concurrency=${concurrency}`,
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=./test/failed-files.reporter.mjs', `--test-reporter-destination=${failedList}`,
      ...list,
    ], { stdio: 'inherit', env });
    child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0)));
  });
}

async function failedFiles(list: string): Promise<string[]> {
  const text = await fs.readFile(list, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}
