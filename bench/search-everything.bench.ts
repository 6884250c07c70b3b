/**
 * `npm run bench:search-everything`: GET /v1/search at a million searchable rows in one workspace.
 *
 * A fresh database (DATABASE_URL's server, or an embedded one) gets, made in SQL:
 *   - workspace A: BENCH_PROJECTS real projects (their index entries written by the trigger), and
 *     BENCH_ROWS − BENCH_PROJECTS entries of photos, videos, tasks, comments and documents written
 *     straight into search_entries with the triggers' own function (search_vector), so 1M source
 *     rows (photos with blobs, …) need not exist: the query reads only search_entries (and, for a
 *     restricted user, the crew). Vocabulary: "concrete" in half the rows, "inspection" in 10 %,
 *     40 trade nouns at 2.5 % each, "café"/"façade" in 0.5 %, "quillfeather" in 11 rows;
 *   - workspace B: BENCH_ROWS / 5 entries, "quillfeather" in 4,000 of them (scoping, and a word
 *     common elsewhere but rare here);
 *   - changes spread over three years;
 *   - a restricted user of A on the crew of 20 projects.
 * The indexes are dropped while seeding and built again from their own definitions (faster than
 * a million GIN insertions; the same indexes). Then one `jobsite serve` (a child process) answers,
 * one request at a time, each case BENCH_REPEAT times after 3 warm-ups: median and p95 of the HTTP
 * round trip; and every statement the repository runs for the case under EXPLAIN (ANALYZE, BUFFERS).
 *
 *   BENCH_ROWS=1000000  BENCH_PROJECTS=20000  BENCH_REPEAT=30  BENCH_ONLY=<substring of a case name>
 *   BENCH_KEEP=1: keep the database (and print its URL); BENCH_DATABASE=<its URL>: reuse it, no seeding.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/schema.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateAll } from '../src/runtime.ts';
import { ApiKeysRepository } from '../src/features/api-keys/api-keys.repository.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { SearchRepository, type SearchCriteria } from '../src/features/search/search.repository.ts';
import { createBenchDatabase, freePort } from './support.ts';
import { explainAll, pick, sleep, startServer, timeRequests } from './search-support.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 20_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const ONLY = process.env.BENCH_ONLY ?? '';
/** The entries' changes spread over three years, one every ~95 s at a million. */
const SPREAD_SECONDS = 3 * 365 * 86_400;
const RESTRICTED_ID = `usr_${'r'.padEnd(26, '0')}`;

const NOUNS = ['drywall', 'rebar', 'footing', 'joist', 'rafter', 'shingle', 'flashing', 'gutter', 'downspout', 'sheathing', 'stud', 'header',
  'beam', 'column', 'slab', 'formwork', 'conduit', 'breaker', 'panel', 'outlet', 'duct', 'damper', 'boiler', 'furnace', 'valve', 'pipe',
  'fitting', 'drain', 'trench', 'grout', 'mortar', 'brick', 'stucco', 'siding', 'window', 'door', 'stair', 'railing', 'insulation', 'membrane'];
const ADJECTIVES = ['cracked', 'leaking', 'missing', 'damaged', 'installed', 'finished', 'loose', 'wet', 'rusted', 'misaligned', 'new',
  'temporary', 'primed', 'painted', 'sealed', 'patched', 'framed', 'poured', 'inspected', 'approved'];
const PLACES = ['north wall', 'south wall', 'east elevation', 'west elevation', 'basement', 'garage', 'roof', 'attic', 'kitchen', 'bathroom',
  'lobby', 'stairwell', 'level 2', 'level 3', 'parking deck', 'mechanical room', 'crawl space', 'porch', 'driveway', 'loading dock',
  'corridor', 'unit 4B', 'unit 12A', 'elevator pit', 'courtyard', 'mezzanine', 'storefront', 'patio', 'laundry', 'pantry'];
const PEOPLE = ['Nguyen', 'Garcia', 'Okafor', 'Schmidt', 'Rossi', 'Kowalski', 'Haddad', 'Tanaka', 'Murphy', 'Silva', 'Dubois', 'Novak'];
const TYPES = ['photo', 'photo', 'photo', 'photo', 'photo', 'photo', 'photo', 'photo', 'task', 'task', 'task', 'task', 'task',
  'comment', 'comment', 'comment', 'comment', 'comment', 'video', 'document'];

/** Entries g = 1..count of a workspace, most recent last; projects are prj_<n> of that workspace. */
function entriesSql(suffix: string, count: number, projects: number, rareEvery: number): string {
  const title = `initcap(${pick(ADJECTIVES, 'a')}) || ' ' || ${pick(NOUNS, 'n')} || ', ' || ${pick(PLACES, 'p')}`
    + ` || case when abs(hashtext(g::text || 'i')) % 10 = 0 then ' before inspection' else '' end`
    + ` || case when g % ${rareEvery} = 0 then ' quillfeather' else '' end`;
  const body = `case when abs(hashtext(g::text || 'b')) % 5 < 3 then`
    + ` 'Talked to ' || ${pick(PEOPLE, 'w')} || ' about the ' || ${pick(NOUNS, 'n2')} || ' at the ' || ${pick(PLACES, 'p2')} || '.'`
    + ` || case when abs(hashtext(g::text || 'c')) % 2 = 0 then ' The concrete pour is scheduled for ' || (1 + g % 28) || ' March.' else ' Waiting on the supplier.' end`
    + ` || case when abs(hashtext(g::text || 'x')) % 200 = 0 then ' Meeting at the café by the old façade.' else '' end`
    + ` else '' end`;
  return `
    insert into search_entries (workspace_id, type, id, project_id, title, body, tsv, updated_at)
    select $1, kind, lower(left(kind, 3)) || '_' || lpad(to_hex(g), 25, '0') || '${suffix}',
           'prj_' || lpad(to_hex(1 + abs(hashtext(g::text || 'pr')) % ${projects}), 25, '0') || '${suffix}',
           title, body, search_vector(title, body), at
    from (select g, ${pick(TYPES, 't')} as kind, ${title} as title, ${body} as body,
                 now() - ((${count} - g)::bigint * ${SPREAD_SECONDS} / ${count} || ' seconds')::interval as at
            from generate_series(1, ${count}) g) s`;
}

function projectsSql(suffix: string, count: number): string {
  return `
    insert into projects (id, workspace_id, name, description, city, state, country, created_by, created_at, updated_at)
    select 'prj_' || lpad(to_hex(g), 25, '0') || '${suffix}', $1,
           ${pick(PEOPLE, 'pn')} || ' ' || ${pick(['Residence', 'Office', 'Clinic', 'School', 'Warehouse', 'Apartments'], 'pk')} || ' ' || g,
           'Concrete and framing work', ${pick(['Portland', 'Austin', 'Denver', 'Boise', 'Tulsa'], 'pc')}, 'OR', 'US', $2,
           now() - interval '1100 days' + (g || ' seconds')::interval, now() - interval '1100 days' + (g || ' seconds')::interval
    from generate_series(1, ${count}) g`;
}

interface Fixture { workspaceId: string; adminKey: string; restrictedKey: string; seconds: number }

async function seedDatabase(url: string): Promise<Fixture> {
  const handle = openDatabase(url);
  const provision = (name: string, email: string) => new WorkspacesService(handle.db).provision({ name, adminEmail: email });
  const a = await provision('Bench A', 'a@example.test');
  const b = await provision('Bench B', 'b@example.test');
  await handle.db.insertInto('users').values({ id: RESTRICTED_ID, workspace_id: a.workspace.id, email: 'restricted@example.test', handle: 'restricted', role: 'restricted' }).execute();
  const restrictedKey = await new ApiKeysRepository().issue(handle.db, { workspaceId: a.workspace.id, userId: RESTRICTED_ID, name: 'bench', readOnly: true, createdBy: null });
  await handle.close();
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  const started = Date.now();
  await seed.query(`set maintenance_work_mem = '512MB'`);
  const { rows: indexes } = await seed.query<{ name: string; def: string }>(`
    select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def from pg_index
     where indrelid = 'search_entries'::regclass and not indisprimary`);
  for (const index of indexes) await seed.query(`drop index ${index.name}`);
  await seed.query(projectsSql('0', PROJECTS), [a.workspace.id, a.admin.id]);
  await seed.query(projectsSql('1', Math.round(PROJECTS / 5)), [b.workspace.id, b.admin.id]);
  await seed.query(entriesSql('0', ROWS - PROJECTS, PROJECTS, 83_333), [a.workspace.id]);
  await seed.query(entriesSql('1', Math.round(ROWS / 5), Math.round(PROJECTS / 5), 50), [b.workspace.id]);
  for (const index of indexes) await seed.query(index.def);
  await seed.query(`insert into project_members (project_id, user_id, workspace_id)
    select id, $2, $1 from projects where workspace_id = $1 order by id limit 20 offset 1000`, [a.workspace.id, RESTRICTED_ID]);
  await seed.query('vacuum analyze');
  await seed.end();
  return { workspaceId: a.workspace.id, adminKey: a.api_key.key, restrictedKey: restrictedKey.secret, seconds: (Date.now() - started) / 1000 };
}

async function reuseDatabase(url: string): Promise<Fixture> {
  const started = Date.now();
  await migrateAll(url);
  const handle = openDatabase(url);
  const ws = await handle.db.selectFrom('workspaces').select('id').where('name', '=', 'Bench A').executeTakeFirstOrThrow();
  const adminId = (await handle.db.selectFrom('users').select('id').where('workspace_id', '=', ws.id).where('role', '=', 'admin').executeTakeFirstOrThrow()).id;
  const issue = (userId: string) => new ApiKeysRepository().issue(handle.db, { workspaceId: ws.id, userId, name: 'bench', readOnly: true, createdBy: null });
  const fixture = { workspaceId: ws.id, adminKey: (await issue(adminId)).secret, restrictedKey: (await issue(RESTRICTED_ID)).secret, seconds: (Date.now() - started) / 1000 };
  await handle.close();
  return fixture;
}

interface Case { name: string; query: Record<string, string>; restricted?: boolean; criteria: Partial<SearchCriteria> }

async function main() {
  const reuse = process.env.BENCH_DATABASE;
  const database = reuse ? { url: reuse, drop: async () => undefined } : await createBenchDatabase();
  const children: ChildProcess[] = [];
  try {
    const fixture = reuse ? await reuseDatabase(reuse) : await seedDatabase(database.url);
    const tuning = new pg.Client({ connectionString: database.url });
    await tuning.connect();
    const { rows: sizes } = await tuning.query<{ name: string; size: string }>(`
      select c.relname as name, pg_size_pretty(pg_total_relation_size(c.oid)) as size from pg_class c
      where c.relname = 'search_entries' or c.oid in (select indexrelid from pg_index where indrelid = 'search_entries'::regclass)
      order by pg_total_relation_size(c.oid) desc`);
    const { rows: [counts] } = await tuning.query<{ a: string; b: string }>(`
      select count(*) filter (where workspace_id = $1) as a, count(*) filter (where workspace_id <> $1) as b from search_entries`, [fixture.workspaceId]);
    const version = (await tuning.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;
    const project = `prj_${(1500).toString(16).padStart(25, '0')}0`;
    const crew = (await tuning.query<{ id: string }>('select project_id as id from project_members where user_id = $1', [RESTRICTED_ID])).rows.map((r) => r.id);

    const port = await freePort();
    children.push(await startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000' }, port));
    const base = `http://127.0.0.1:${port}`;

    // The repository's own SQL, captured as Kysely runs it, for EXPLAIN.
    let captured: CompiledQuery[] = [];
    const capture = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }),
      log: (e) => { if (e.level === 'query') captured.push(e.query); },
    });
    const statementsOf = async (c: Case) => {
      const repository = new SearchRepository();
      const { share, query } = await repository.queryShape(capture, c.query.q!);
      captured = [];
      await repository.search(capture, { workspaceId: fixture.workspaceId, query, types: null, projectIds: null, limit: 20, share, ...c.criteria });
      return captured;
    };
    const word = (name: string, q: string, extra: Partial<Case> = {}): Case => ({ name, query: { q }, criteria: {}, ...extra });
    const cases: Case[] = [
      word('rare word (11 rows; 4,000 in B)', 'quillfeather'),
      word('common word (50 %)', 'concrete'),
      word('common word, title (10 %)', 'inspection'),
      word('trade noun (≈ 5 %: 2.5 % title, 1.5 % body)', 'drywall'),
      word('two nouns (≈ 0.1 %)', 'drywall rebar'),
      word('accented, either way (0.5 %)', 'cafe'),
      word('accented as typed', 'Façade'),
      word('phrase', '"concrete pour"'),
      word('phrase, rarer', '"north wall" cracked'),
      word('exclusion', 'drywall -cracked'),
      word('exclusion leaving only old matches (every recent "concrete" is a "concrete pour")', 'concrete -pour'),
      word('exclusion, rare result', 'drywall -concrete -waiting'),
      word('no match', 'xylophone'),
      word('common word, types=document', 'concrete', { query: { q: 'concrete', types: 'document' }, criteria: { types: ['document'] } }),
      word('trade noun, types=video', 'drywall', { query: { q: 'drywall', types: 'video' }, criteria: { types: ['video'] } }),
      word('common word, project_id', 'concrete', { query: { q: 'concrete', project_id: project }, criteria: { projectIds: [project] } }),
      word('common word, restricted user (20 projects)', 'concrete', { restricted: true, criteria: { projectIds: crew } }),
      word('rare word, restricted user', 'quillfeather', { restricted: true, criteria: { projectIds: crew } }),
      word('trade noun, restricted user', 'drywall', { restricted: true, criteria: { projectIds: crew } }),
      word('common word, limit=50', 'concrete', { query: { q: 'concrete', limit: '50' }, criteria: { limit: 50 } }),
    ];

    const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
    console.log(`\nGET /v1/search at ${Number(counts!.a).toLocaleString('en')} entries in workspace A (${Number(counts!.b).toLocaleString('en')} in B) — `
      + `PostgreSQL ${version}, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${load}`);
    console.log(`${reuse ? 'Migrated' : 'Seeded'} in ${fixture.seconds.toFixed(0)} s; sizes: ${sizes.map((s) => `${s.name} ${s.size}`).join(', ')}\n`);
    console.log('| case | results | HTTP median / p95 ms | EXPLAIN ANALYZE ms | plan |');
    console.log('|---|---:|---:|---:|---|');
    for (const c of cases.filter((x) => x.name.includes(ONLY))) {
      const headers = { authorization: `Bearer ${c.restricted ? fixture.restrictedKey : fixture.adminKey}` };
      const path = `/v1/search?${new URLSearchParams(c.query)}`;
      const timed = await timeRequests(base + path, headers, REPEAT);
      const explained = await explainAll(tuning, await statementsOf(c));
      const ms = explained.ms;
      const plans = explained.plans.map((p) => `${p.ms.toFixed(1)} ms: ${[...new Set(p.nodes)].join(', ')}`);
      console.log(`| ${c.name}: \`${path.slice('/v1/search?'.length)}\` | ${timed.failures.length ? timed.failures.join(', ') : timed.count} | ${timed.median.toFixed(1)} / ${timed.p95.toFixed(1)} | ${ms.toFixed(1)} | ${plans.join('; then ')} |`);
    }
    await tuning.end();
    await capture.destroy();
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(500);
    if (process.env.BENCH_KEEP) {
      console.log(`\nKept ${database.url}`);
      process.exit();
    }
    await database.drop();
  }
}

await main();
