/**
 * `npm run bench:search`: the `q=` searches at a million rows in one workspace.
 *
 * A fresh database (DATABASE_URL's server, or an embedded one) gets, made in SQL:
 *   - workspace A: BENCH_ROWS projects (names like "Oakwood Dental Clinic Renovation", street
 *     addresses, 60 US cities, postal codes, 5 % archived; a dozen carry the rare word
 *     "Quillfeather") and BENCH_ROWS tags ("Oakwood Roofing 123");
 *   - workspace B: BENCH_ROWS / 5 projects and tags, thousands of them "Quillfeather", to show
 *     that scoping holds and that another workspace's rows cost nothing;
 *   - a restricted user of A on the crew of 300 of its projects (the usual case: their projects are
 *     fetched by id), and a "heavy" one on the crew of 20,000 (2 %; more than the 5,000 up to which
 *     that pays, so their lists walk the workspace's order and test visibility row by row).
 * Then one `jobsite serve` (a child process) answers, one request at a time, each case BENCH_REPEAT
 * times after 3 warm-ups: median and p95 of the HTTP round trip. The same query, as the repository
 * builds it, runs under EXPLAIN (ANALYZE, BUFFERS): its execution time and plan in brief.
 * Only projects and tags take `q` (photos, videos, tasks, comments and users take none), so only
 * they are here.
 *
 *   BENCH_ROWS=1000000  BENCH_REPEAT=30  BENCH_ONLY=<substring of a case name>
 *   BENCH_KEEP=1: keep the database (and print its URL), to EXPLAIN by hand or to reuse; needs DATABASE_URL.
 *   BENCH_DATABASE=<its URL>: no seeding; apply newer migrations to the kept database (e.g. a
 *     branch's indexes onto rows seeded by main's schema: before and after on the same rows), then measure.
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { Kysely, PostgresDialect, type CompiledQuery } from 'kysely';
import pg from 'pg';
import type { Database } from '../src/db/schema.ts';
import { ProjectsRepository, type ProjectListCriteria } from '../src/features/projects/projects.repository.ts';
import { TagsRepository, type TagListCriteria } from '../src/features/tags/tags.repository.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { openDatabase } from '../src/db/database.ts';
import { encodeCursor } from '../src/http/pagination.ts';
import { migrateAll } from '../src/runtime.ts';
import { ApiKeysRepository } from '../src/features/api-keys/api-keys.repository.ts';
import { createBenchDatabase, freePort } from './support.ts';
import { explainAll, pick, sleep, startServer, timeRequests } from './search-support.ts';

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const ONLY = process.env.BENCH_ONLY ?? '';

const PLACES = ['Riverside', 'Oakwood', 'Maple', 'Harbor', 'Summit', 'Cedar', 'Lakeview', 'Pinecrest', 'Granite', 'Willow',
  'Brookside', 'Highland', 'Meadow', 'Fairview', 'Ironwood', 'Stonegate', 'Westfield', 'Northgate', 'Sunset', 'Bayview',
  'Redwood', 'Elmhurst', 'Kingsley', 'Ashford', 'Millbrook', 'Crescent', 'Hillcrest', 'Foxhollow', 'Silverlake', 'Clearwater'];
const KINDS = ['Medical Center', 'Elementary School', 'Office Tower', 'Apartments', 'Warehouse', 'Public Library', 'Fire Station',
  'Parking Garage', 'Residence', 'Retail Plaza', 'Community Center', 'Distribution Hub', 'Senior Living', 'Hotel', 'Dental Clinic',
  'Brewery', 'Church', 'Data Center', 'Duplex', 'Townhomes'];
const WORKS = ['Renovation', 'Addition', 'New Build', 'Roof Replacement', 'Remodel', 'Expansion', 'Phase 2', 'Tenant Improvement',
  'Foundation Repair', 'Kitchen Remodel', 'Fit-Out', 'Demolition'];
const STREETS = ['Main', 'Oak', 'Pine', 'Maple', 'Cedar', 'Elm', 'Washington', 'Lake', 'Hill', 'Park', 'Church', 'Mill', 'River',
  'Spring', 'Union', 'Market', 'Franklin', 'Jefferson', 'Lincoln', 'Madison', 'Ridge', 'Walnut', 'Chestnut', 'Sycamore',
  'Highland', 'Meadow', 'Forest', 'Sunset', 'Broad', 'Center'];
const SUFFIXES = ['Street', 'Avenue', 'Road', 'Boulevard', 'Lane', 'Drive', 'Way', 'Court'];
const CITIES = ['Portland OR', 'Seattle WA', 'Spokane WA', 'Boise ID', 'Denver CO', 'Boulder CO', 'Phoenix AZ', 'Tucson AZ',
  'Austin TX', 'Dallas TX', 'Houston TX', 'El Paso TX', 'Omaha NE', 'Wichita KS', 'Tulsa OK', 'Des Moines IA', 'Madison WI',
  'Milwaukee WI', 'Chicago IL', 'Springfield IL', 'Peoria IL', 'Indianapolis IN', 'Columbus OH', 'Cleveland OH', 'Dayton OH',
  'Detroit MI', 'Lansing MI', 'Louisville KY', 'Nashville TN', 'Memphis TN', 'Atlanta GA', 'Savannah GA', 'Charlotte NC',
  'Raleigh NC', 'Richmond VA', 'Norfolk VA', 'Baltimore MD', 'Pittsburgh PA', 'Allentown PA', 'Albany NY', 'Buffalo NY',
  'Hartford CT', 'Providence RI', 'Worcester MA', 'Burlington VT', 'Portland ME', 'Manchester NH', 'Newark NJ', 'Tampa FL',
  'Orlando FL', 'Jacksonville FL', 'Birmingham AL', 'Jackson MS', 'Little Rock AR', 'Baton Rouge LA', 'Albuquerque NM',
  'Reno NV', 'Fresno CA', 'Sacramento CA', 'Anchorage AK'];

/**
 * Projects g = 1..count of a workspace. Ids grow with g as they do with time (ULIDs), and those of
 * workspace A (`stride` 1, last digit 0) and B (`stride` 5, last digit 1) interleave as if made
 * during the same years.
 */
function projectsSql(suffix: string, stride: number, count: number, rareEvery: number): string {
  const city = pick(CITIES, 'c');
  return `
    insert into projects (id, workspace_id, name, status, street_address_1, street_address_2, city, state, postal_code, country,
                          lat, lon, created_by, created_at, updated_at, archived_at)
    select 'prj_' || lpad(to_hex(g * ${stride}), 25, '0') || '${suffix}', $1,
           case when g % ${rareEvery} = 0 then 'Quillfeather Observatory ' || g
                else ${pick(PLACES, 'p')} || ' ' || ${pick(KINDS, 'k')} || ' ' || ${pick(WORKS, 'w')} end,
           case when abs(hashtext(g::text || 's')) % 20 = 0 then 'archived' else 'active' end,
           (1 + abs(hashtext(g::text || 'n')) % 9899) || ' ' || ${pick(STREETS, 'st')} || ' ' || ${pick(SUFFIXES, 'sx')},
           case abs(hashtext(g::text || 'u')) % 10 when 0 then 'Suite ' || (100 + g % 900) when 1 then 'Unit ' || (1 + g % 40) || 'B' end,
           left(${city}, -3), right(${city}, 2),
           lpad((abs(hashtext(g::text || 'z')) % 99999)::text, 5, '0'), 'US',
           30 + (abs(hashtext(g::text || 'la')) % 1500) / 100.0, -120 + (abs(hashtext(g::text || 'lo')) % 4500) / 100.0,
           $2, now() - ((${count} - g) || ' seconds')::interval, now() - ((${count} - g) || ' seconds')::interval, null
    from generate_series(1, ${count}) g`;
}

function tagsSql(suffix: string, stride: number, count: number, rareEvery: number): string {
  return `
    insert into tags (id, workspace_id, name, color)
    select 'tag_' || lpad(to_hex(g * ${stride}), 25, '0') || '${suffix}', $1,
           case when g % ${rareEvery} = 0 then 'Quillfeather ' || g else ${pick(PLACES, 'tp')} || ' ' || ${pick(WORKS, 'tw')} || ' ' || g end,
           '#336699'
    from generate_series(1, ${count}) g`;
}

interface Case { name: string; path: string; key: string; explain: () => Promise<CompiledQuery[]> }

interface Fixture { workspaceId: string; adminKey: string; restrictedId: string; restrictedKey: string; heavyId: string; heavyKey: string; seconds: number }

const RESTRICTED_ID = `usr_${'r'.padEnd(26, '0')}`;
const HEAVY_ID = `usr_${'h'.padEnd(26, '0')}`;

/** The restricted user on 2 % of A's projects (added to a database kept by an older run too), and a key for them. */
async function heavyUser(url: string, workspaceId: string): Promise<string> {
  const handle = openDatabase(url);
  if (!await handle.db.selectFrom('users').select('id').where('id', '=', HEAVY_ID).executeTakeFirst()) {
    await handle.db.insertInto('users').values({ id: HEAVY_ID, workspace_id: workspaceId, email: 'heavy@example.test', handle: 'heavy', role: 'restricted' }).execute();
  }
  if (!await handle.db.selectFrom('project_members').select('project_id').where('user_id', '=', HEAVY_ID).executeTakeFirst()) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`insert into project_members (project_id, user_id, workspace_id)
      select id, $2, $1 from projects where workspace_id = $1 and abs(hashtext(id || 'heavy')) % 50 = 0`, [workspaceId, HEAVY_ID]);
    await client.query('analyze project_members');
    await client.end();
  }
  const key = await new ApiKeysRepository().issue(handle.db, { workspaceId, userId: HEAVY_ID, name: 'bench', readOnly: true, createdBy: null });
  await handle.close();
  return key.secret;
}

/** Workspaces A and B, their rows, and the restricted user of A, made in SQL. */
async function seedDatabase(url: string): Promise<Fixture> {
  const handle = openDatabase(url);
  const provision = (name: string, email: string) => new WorkspacesService(handle.db).provision({ name, adminEmail: email });
  const a = await provision('Bench A', 'a@example.test');
  const b = await provision('Bench B', 'b@example.test');
  const restrictedId = RESTRICTED_ID;
  await handle.db.insertInto('users').values({ id: restrictedId, workspace_id: a.workspace.id, email: 'restricted@example.test', handle: 'restricted', role: 'restricted' }).execute();
  const restrictedKey = await new ApiKeysRepository().issue(handle.db, { workspaceId: a.workspace.id, userId: restrictedId, name: 'bench', readOnly: true, createdBy: null });
  await handle.close();
  // Seeding takes minutes: a plain client, without the app's statement timeout.
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  const started = Date.now();
  await seed.query(projectsSql('0', 1, ROWS, 83_333), [a.workspace.id, a.admin.id]);
  await seed.query(projectsSql('1', 5, Math.round(ROWS / 5), 40), [b.workspace.id, b.admin.id]);
  await seed.query(tagsSql('0', 1, ROWS, 83_333), [a.workspace.id]);
  await seed.query(tagsSql('1', 5, Math.round(ROWS / 5), 40), [b.workspace.id]);
  await seed.query(`insert into project_members (project_id, user_id, workspace_id)
    select id, $2, $1 from projects where workspace_id = $1 and (('x' || substr(id, 23, 8))::bit(32)::int) % 3333 = 0`, [a.workspace.id, restrictedId]);
  await seed.query('vacuum analyze');
  await seed.end();
  const heavyKey = await heavyUser(url, a.workspace.id);
  return { workspaceId: a.workspace.id, adminKey: a.api_key.key, restrictedId, restrictedKey: restrictedKey.secret, heavyId: HEAVY_ID, heavyKey, seconds: (Date.now() - started) / 1000 };
}

/** The fixture of a database an earlier `BENCH_KEEP=1` run seeded, with new keys; newer migrations are applied first. */
async function reuseDatabase(url: string): Promise<Fixture> {
  const started = Date.now();
  await migrateAll(url);
  const seed = new pg.Client({ connectionString: url });
  await seed.connect();
  await seed.query('analyze');
  await seed.end();
  const handle = openDatabase(url);
  const ws = await handle.db.selectFrom('workspaces').select('id').where('name', '=', 'Bench A').executeTakeFirstOrThrow();
  const adminId = (await handle.db.selectFrom('users').select('id').where('workspace_id', '=', ws.id).where('role', '=', 'admin').executeTakeFirstOrThrow()).id;
  const restrictedId = RESTRICTED_ID;
  const issue = (userId: string) => new ApiKeysRepository().issue(handle.db, { workspaceId: ws.id, userId, name: 'bench', readOnly: true, createdBy: null });
  const adminKey = (await issue(adminId)).secret;
  const restrictedKey = (await issue(restrictedId)).secret;
  await handle.close();
  const heavyKey = await heavyUser(url, ws.id);
  return { workspaceId: ws.id, adminKey, restrictedId, restrictedKey, heavyId: HEAVY_ID, heavyKey, seconds: (Date.now() - started) / 1000 };
}

async function main() {
  const reuse = process.env.BENCH_DATABASE;
  const database = reuse ? { url: reuse, drop: async () => undefined } : await createBenchDatabase();
  const children: ChildProcess[] = [];
  try {
    const fixture = reuse ? await reuseDatabase(reuse) : await seedDatabase(database.url);
    const tuning = new pg.Client({ connectionString: database.url });
    await tuning.connect();
    const { rows: sizes } = await tuning.query<{ name: string; size: string }>(`
      select c.relname as name, pg_size_pretty(pg_relation_size(c.oid)) as size from pg_class c
      where c.relname in ('projects', 'tags') or c.oid in (select indexrelid from pg_index where indrelid in ('projects'::regclass, 'tags'::regclass))
      order by pg_relation_size(c.oid) desc`);
    const version = (await tuning.query<{ server_version: string }>('show server_version')).rows[0]!.server_version;

    const port = await freePort();
    const server = await startServer({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000' }, port);
    children.push(server);
    const base = `http://127.0.0.1:${port}`;
    const admin = { authorization: `Bearer ${fixture.adminKey}` };
    const restricted = { authorization: `Bearer ${fixture.restrictedKey}` };
    const heavy = { authorization: `Bearer ${fixture.heavyKey}` };

    // The repository's own SQL, captured as Kysely runs it, for EXPLAIN.
    let captured: CompiledQuery[] = [];
    const capture = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }),
      log: (e) => { if (e.level === 'query') captured.push(e.query); },
    });
    const projectsSqlOf = (c: Partial<ProjectListCriteria>) => async () => {
      captured = [];
      await new ProjectsRepository().list(capture, { workspaceId: fixture.workspaceId, visibleTo: null, status: 'active', sort: 'created_at', after: null, limit: 50, ...c });
      return captured;
    };
    const tagsSqlOf = (c: Partial<TagListCriteria>) => async () => {
      captured = [];
      await new TagsRepository().list(capture, { workspaceId: fixture.workspaceId, sort: 'name', after: null, limit: 50, ...c });
      return captured;
    };
    const deepId = `prj_${(Math.round(ROWS / 2)).toString(16).padStart(25, '0')}0`;
    const deep = encodeCursor('created_at', [deepId]);
    const tagsDeepAfter = { nameKey: 'm', id: 'tag_' };
    const tagsDeep = encodeCursor('name', [tagsDeepAfter.nameKey, tagsDeepAfter.id]);
    const q = (text: string) => encodeURIComponent(text);
    const projectCase = (name: string, query: Record<string, string>, criteria: Partial<ProjectListCriteria>, key = 'admin'): Case => ({
      name, key,
      path: `/v1/projects?${Object.entries(query).map(([k, v]) => `${k}=${k === 'cursor' ? v : q(v)}`).join('&')}`,
      explain: projectsSqlOf(criteria),
    });
    const searches: [string, string][] = [
      ['common word', 'street'], ['common word', 'clinic'], ['one city (1.7 %)', 'portland'], ['rare word (12 rows; 4,000 in B)', 'quillfeather'],
      ['no match', 'xylophone'], ['2 chars, common', 'ak'], ['2 chars, no match', 'qz'], ['1 char', 'z'], ['postal code', '02139'],
    ];
    const cases: Case[] = [
      projectCase('projects, first page', {}, {}),
      projectCase('projects, deep page', { cursor: deep }, { after: { id: deepId, updatedAt: null } }),
      ...searches.map(([what, text]) => projectCase(`projects q=${text} (${what})`, { q: text }, { q: text })),
      ...searches.slice(0, 4).map(([what, text]) => projectCase(`projects q=${text} (${what}), deep page`, { q: text, cursor: deep }, { q: text, after: { id: deepId, updatedAt: null } })),
      projectCase('projects q=portland sort=updated_at', { q: 'portland', sort: 'updated_at' }, { q: 'portland', sort: 'updated_at' }),
      projectCase('projects q=quillfeather status=all', { q: 'quillfeather', status: 'all' }, { q: 'quillfeather', status: 'all' }),
      projectCase('projects, restricted user, first page', {}, { visibleTo: fixture.restrictedId }, 'restricted'),
      projectCase('projects q=street, restricted user', { q: 'street' }, { q: 'street', visibleTo: fixture.restrictedId }, 'restricted'),
      projectCase('projects q=quillfeather, restricted user', { q: 'quillfeather' }, { q: 'quillfeather', visibleTo: fixture.restrictedId }, 'restricted'),
      projectCase('projects q=ak, restricted user', { q: 'ak' }, { q: 'ak', visibleTo: fixture.restrictedId }, 'restricted'),
      projectCase('projects q=street, restricted user, deep page', { q: 'street', cursor: deep }, { q: 'street', visibleTo: fixture.restrictedId, after: { id: deepId, updatedAt: null } }, 'restricted'),
      projectCase('projects q=portland sort=updated_at, restricted user', { q: 'portland', sort: 'updated_at' }, { q: 'portland', sort: 'updated_at', visibleTo: fixture.restrictedId }, 'restricted'),
      projectCase('projects, heavy restricted user (2 %), first page', {}, { visibleTo: fixture.heavyId }, 'heavy'),
      projectCase('projects q=street, heavy restricted user', { q: 'street' }, { q: 'street', visibleTo: fixture.heavyId }, 'heavy'),
      projectCase('projects q=portland, heavy restricted user', { q: 'portland' }, { q: 'portland', visibleTo: fixture.heavyId }, 'heavy'),
      projectCase('projects q=quillfeather, heavy restricted user', { q: 'quillfeather' }, { q: 'quillfeather', visibleTo: fixture.heavyId }, 'heavy'),
      { name: 'tags, first page (by name)', key: 'admin', path: '/v1/tags', explain: tagsSqlOf({}) },
      ...[['common word', 'roof'], ['rare word', 'quillfeather'], ['no match', 'xylophone'], ['2 chars', 'ak'], ['digits', '4242']]
        .map(([what, text]) => ({ name: `tags q=${text} (${what})`, key: 'admin', path: `/v1/tags?q=${q(text!)}`, explain: tagsSqlOf({ q: text }) })),
      // A page from the middle of the name order ("m…"): a cursor as a client holds it after some pages.
      { name: 'tags, deep page (by name)', key: 'admin', path: `/v1/tags?cursor=${tagsDeep}`, explain: tagsSqlOf({ after: tagsDeepAfter }) },
      ...[['common word', 'roof'], ['rare word', 'quillfeather'], ['2 chars', 'ak']]
        .map(([what, text]) => ({ name: `tags q=${text} (${what}), deep page`, key: 'admin', path: `/v1/tags?q=${q(text!)}&cursor=${tagsDeep}`, explain: tagsSqlOf({ q: text, after: tagsDeepAfter }) })),
    ];

    const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
    console.log(`\nSearch at ${ROWS.toLocaleString('en')} rows — PostgreSQL ${version}, node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model}, load ${load}`);
    console.log(`${reuse ? 'Migrated and analyzed' : 'Seeded'} in ${fixture.seconds.toFixed(0)} s; sizes: ${sizes.map((s) => `${s.name} ${s.size}`).join(', ')}\n`);
    console.log('| case | rows | HTTP median / p95 ms | EXPLAIN ANALYZE ms | plan |');
    console.log('|---|---:|---:|---:|---|');
    for (const c of cases.filter((x) => x.name.includes(ONLY))) {
      const headers = c.key === 'admin' ? admin : c.key === 'heavy' ? heavy : restricted;
      const timed = await timeRequests(base + c.path, headers, REPEAT);
      // Every statement the repository ran for the page (a search may run two), each explained.
      const explained = await explainAll(tuning, await c.explain());
      const ms = explained.ms;
      const plans = explained.plans.map((p) => p.nodes.join(' → '));
      console.log(`| ${c.name} | ${timed.failures.length ? timed.failures.join(', ') : timed.count} | ${timed.median.toFixed(1)} / ${timed.p95.toFixed(1)} | ${ms.toFixed(1)} | ${plans.join('; then ')} |`);
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
