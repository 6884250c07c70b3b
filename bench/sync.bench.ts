/**
 * `npm run bench:sync`: how long GET /v1/sync takes for a full sync and for a week's catch-up.
 *
 * Setup: a fresh database (DATABASE_URL's server, or an embedded one), one workspace with
 * BENCH_PROJECTS projects of BENCH_TASKS tasks and BENCH_COMMENTS comments each, inserted with SQL
 * (the sync triggers fire as for any write). Then, through the real app (app.inject, no network):
 * a full sync in pages of BENCH_LIMIT; a "week offline" of BENCH_CHANGED task updates and
 * BENCH_DELETED deletes, caught up by a client holding the cursor; and an incremental sync with
 * nothing new (the poll a field app makes most often), BENCH_POLLS times. Before any of it, one
 * sync of another (empty) workspace warms the process up (connections, compiled code), so the
 * first page measures sync, not start-up; it still stamps the whole seeded log (sync_heads).
 *
 *   BENCH_PROJECTS=20  BENCH_TASKS=250  BENCH_COMMENTS=100  BENCH_LIMIT=500  BENCH_CHANGED=2000  BENCH_DELETED=500  BENCH_POLLS=50
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { newId } from '../src/ids.ts';
import { createBenchDatabase } from './support.ts';

const n = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const PROJECTS = n('BENCH_PROJECTS', 20);
const TASKS = n('BENCH_TASKS', 250);
const COMMENTS = n('BENCH_COMMENTS', 100);
const LIMIT = n('BENCH_LIMIT', 500);
const CHANGED = n('BENCH_CHANGED', 2000);
const DELETED = n('BENCH_DELETED', 500);
const POLLS = n('BENCH_POLLS', 50);

const database = await createBenchDatabase();
const dataDir = await import('node:fs/promises').then((fs) => fs.mkdtemp(`${os.tmpdir()}/jobsite-bench-sync-`));
const handle = openDatabase(database.url, { max: 10 });
const db = handle.db;
const app = await buildApp({ config: loadConfig({ LOG_LEVEL: 'silent', JOBSITE_DATA_DIR: dataDir, JOBSITE_RATE_LIMIT: '1000000' }), db, logger: false });
try {
  const ws = await new WorkspacesService(db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
  const admin = ws.admin.id;
  const key = ws.api_key.key;
  let seeded = performance.now();
  const taskIds: string[] = [];
  for (let p = 0; p < PROJECTS; p++) {
    const projectId = newId('project');
    await db.insertInto('projects').values({ id: projectId, workspace_id: ws.workspace.id, name: `Site ${p}`, created_by: admin }).execute();
    const tasks = Array.from({ length: TASKS }, (_, i) => ({ id: newId('task'), workspace_id: ws.workspace.id, project_id: projectId, title: `Task ${i}`, created_by: admin }));
    await db.insertInto('tasks').values(tasks).execute();
    taskIds.push(...tasks.map((t) => t.id));
    const comments = Array.from({ length: COMMENTS }, (_, i) => ({
      id: newId('comment'), workspace_id: ws.workspace.id, project_id: projectId, subject_type: 'project' as const, author_id: admin, body: `Note ${i}`,
    }));
    await db.insertInto('comments').values(comments).execute();
  }
  seeded = performance.now() - seeded;
  const total = PROJECTS * (1 + TASKS + COMMENTS);

  const sync = async (cursor?: string, as = key) => {
    const res = await app.inject({ method: 'GET', url: `/v1/sync?limit=${LIMIT}${cursor ? `&cursor=${cursor}` : ''}`, headers: { authorization: `Bearer ${as}` } });
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json() as { changes: unknown[]; next_cursor: string; has_more: boolean };
  };
  const catchUp = async (cursor?: string) => {
    const started = performance.now();
    let pages = 0;
    let changes = 0;
    const pageMs: number[] = [];
    for (;;) {
      const asked = performance.now();
      const page = await sync(cursor);
      pageMs.push(performance.now() - asked);
      pages++;
      changes += page.changes.length;
      cursor = page.next_cursor;
      if (!page.has_more) break;
    }
    return { ms: performance.now() - started, pages, changes, cursor: cursor!, pageMs };
  };
  /** The first page's time (it stamps the new part of the log), and the median of the full pages after it. */
  const pagesOf = (ms: number[]) => {
    const rest = ms.slice(1, -1).sort((a, b) => a - b);
    return `first page ${ms[0]!.toFixed(0)} ms, the others p50 ${rest.length ? rest[Math.floor(rest.length / 2)]!.toFixed(0) : '–'} ms`;
  };

  const other = await new WorkspacesService(db).provision({ name: 'Warm-up', adminEmail: 'warm-up@example.test' });
  await sync(undefined, other.api_key.key);
  const full = await catchUp();
  let week = performance.now();
  for (let i = 0; i < CHANGED; i++) {
    await db.updateTable('tasks').set({ title: `Changed ${i}`, updated_at: new Date() }).where('id', '=', taskIds[i % taskIds.length]!).execute();
  }
  await db.deleteFrom('tasks').where('id', 'in', taskIds.slice(-DELETED)).execute();
  week = performance.now() - week;
  const caughtUp = await catchUp(full.cursor);
  const polls: number[] = [];
  for (let i = 0; i < POLLS; i++) {
    const started = performance.now();
    await sync(caughtUp.cursor);
    polls.push(performance.now() - started);
  }
  polls.sort((a, b) => a - b);
  const rows = await sql<{ count: number }>`select count(*)::int as count from sync_changes`.execute(db);

  console.log(`sync bench — ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`seeded ${total} resources (${PROJECTS} projects, ${TASKS} tasks and ${COMMENTS} comments each) in ${seeded.toFixed(0)} ms; sync_changes rows: ${rows.rows[0]!.count}`);
  console.log(`full sync: ${full.changes} changes in ${full.pages} pages of ≤ ${LIMIT}: ${full.ms.toFixed(0)} ms (${(full.ms / full.pages).toFixed(0)} ms/page, ${(1000 * full.ms / full.changes).toFixed(0)} µs/change; ${pagesOf(full.pageMs)})`);
  console.log(`a week offline: ${CHANGED} task updates (${Math.min(CHANGED, taskIds.length)} distinct) + ${DELETED} deletes (written in ${week.toFixed(0)} ms) → ${caughtUp.changes} changes in ${caughtUp.pages} pages: ${caughtUp.ms.toFixed(0)} ms (${pagesOf(caughtUp.pageMs)})`);
  console.log(`nothing new: p50 ${polls[Math.floor(polls.length / 2)]!.toFixed(1)} ms, p95 ${polls[Math.floor(polls.length * 0.95)]!.toFixed(1)} ms over ${POLLS} polls`);
} finally {
  await app.close();
  await handle.close();
  await database.drop();
  await import('node:fs/promises').then((fs) => fs.rm(dataDir, { recursive: true, force: true }));
}
