/**
 * What `q` guarantees on GET /v1/projects and GET /v1/tags, whichever plan PostgreSQL picks: a
 * case-insensitive substring of one part (never across two), `%`, `_` and `\` taken literally,
 * queries of one or two characters as well as longer ones, visibility and workspace scoping, and
 * pages that follow the list's order. Plus: the projects' match is one the trigram index answers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { SEARCH_WINDOW, SEARCH_WINDOW_MAX, searchPage, searchStream } from '../src/db/substring-match.ts';
import { matchesSearch, ProjectsRepository, type ProjectListCriteria } from '../src/features/projects/projects.repository.ts';
import { api, newUser, newWorkspace, startTestApp, type TestContext, type TestUser, type TestWorkspace } from './helpers.ts';

describe('q= search', () => {
  let t: TestContext;
  let ws: TestWorkspace;
  let restricted: TestUser;
  const made: Record<string, string> = {};

  async function createProject(key: string, name: string, address: Record<string, string> = {}, who: { key: string } = ws.admin) {
    const res = await api(t, who, 'POST', '/v1/projects', { name, address });
    assert.equal(res.statusCode, 201, res.body);
    made[key] = res.json().id;
  }

  const search = async (q: string, who: { key: string } = ws.admin, extra = '') => {
    const res = await api(t, who, 'GET', `/v1/projects?q=${encodeURIComponent(q)}${extra}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.map((p: { id: string }) => p.id) as string[];
  };
  const named = (...keys: string[]) => keys.map((k) => made[k]!);

  before(async () => {
    t = await startTestApp();
    ws = await newWorkspace(t);
    restricted = await newUser(t, ws, 'restricted');
    await createProject('barn', 'Oak Barn', { street_address_1: '7 Land Road', city: 'Portland', state: 'OR', postal_code: '97201' });
    await createProject('lines', 'Two lines', { street_address_1: '12 Elm\nSuite 4', country: 'US' });
    await createProject('sale', 'Shed 50%_off \\ back');
    await createProject('upper', 'GRANITE QUARRY', { city: 'Zanesville' });
    await createProject('mine', 'Restricted shed', {}, restricted);
    const other = await newWorkspace(t);
    await createProject('elsewhere', 'Oak Barn elsewhere', { city: 'Portland' }, other.admin);
  });
  after(async () => t.close());

  it('matches a substring of the name or of one address part, newest first', async () => {
    assert.deepEqual(await search('land'), named('barn'), 'in "Land Road" and in "Portland": listed once');
    assert.deepEqual(await search('97201'), named('barn'));
    assert.deepEqual(await search('shed'), named('mine', 'sale'));
    assert.deepEqual(await search('us'), named('lines'));
  });

  it('never matches across two parts, whatever separates them in the index', async () => {
    assert.deepEqual(await search('barn 7'), []);
    assert.deepEqual(await search('barn7'), []);
    assert.deepEqual(await search('barn\n7'), []);
    assert.deepEqual(await search('road\nportland'), []);
    assert.deepEqual(await search('or\n97201'), []);
    assert.deepEqual(await search('elm\nsuite'), named('lines'), 'a line break inside one part matches');
  });

  it('ignores ASCII case in the query and in the rows', async () => {
    assert.deepEqual(await search('PORTLAND'), named('barn'));
    assert.deepEqual(await search('pOrTlAnD'), named('barn'));
    assert.deepEqual(await search('granite quarry'), named('upper'));
    assert.deepEqual(await search('zANES'), named('upper'));
  });

  it('takes %, _ and \\ literally in queries of any length', async () => {
    assert.deepEqual(await search('50%_off'), named('sale'));
    assert.deepEqual(await search('%_o'), named('sale'));
    assert.deepEqual(await search('\\ b'), named('sale'));
    assert.deepEqual(await search('\\'), named('sale'));
    assert.deepEqual(await search('5_%'), []);
    assert.deepEqual(await search('o_k'), []);
    assert.deepEqual(await search('%'), named('sale'));
    assert.deepEqual(await search('_'), named('sale'));
  });

  it('answers one- and two-character queries like longer ones', async () => {
    assert.deepEqual(await search('z'), named('upper'));
    assert.deepEqual(await search('k '), named('barn'));
    assert.deepEqual(await search('4'), named('lines'));
    assert.deepEqual(await search('zq'), []);
    assert.deepEqual(await search('x'), []);
  });

  it('keeps to the workspace and to what a restricted user may see', async () => {
    assert.deepEqual(await search('oak barn'), named('barn'), 'not the other workspace\'s');
    assert.deepEqual(await search('shed', restricted), named('mine'));
    assert.deepEqual(await search('oak', restricted), []);
  });

  it('pages through the matches in the list\'s order, with either sort', async () => {
    const word = 'Pagerword';
    for (let i = 0; i < 7; i++) await createProject(`page${i}`, `${i % 2 ? word : word.toUpperCase()} ${i}`);
    await createProject('nearmiss', 'Pagerwo rd');
    for (const sort of ['created_at', 'updated_at']) {
      const full = (await api(t, ws.admin, 'GET', `/v1/projects?sort=${sort}&limit=100`)).json().data
        .filter((p: { name: string }) => p.name.toLowerCase().includes('agerwo')).map((p: { id: string }) => p.id);
      const seen: string[] = [];
      let cursor = '';
      for (let page = 0; page < 10; page++) {
        const res = await api(t, ws.admin, 'GET', `/v1/projects?q=agerwo&sort=${sort}&limit=3${cursor}`);
        const body = res.json();
        seen.push(...body.data.map((p: { id: string }) => p.id));
        if (!body.has_more) break;
        cursor = `&cursor=${encodeURIComponent(body.next_cursor)}`;
      }
      assert.equal(full.length, 8);
      assert.deepEqual(seen, full, sort);
      assert.deepEqual(await search('agerwor', ws.admin, `&sort=${sort}`), full.filter((id: string) => id !== made.nearmiss));
    }
  });

  it('gives a restricted user the same pages whether their projects are fetched by id, the workspace walked or the trigram index read', async () => {
    const crew = await newUser(t, ws, 'restricted');
    const names = ['Crew Dock 10%', 'crew dock 1_0', 'CREW yard', 'Crewless depot', 'Dock ak', 'Hidden crew dock', 'Hidden crew yard'];
    for (const [i, name] of names.entries()) await createProject(`crew${i}`, name, { city: i % 2 ? 'Akron' : 'Reno' });
    await createProject('crewOwn', 'Own crew dock', {}, crew);
    for (const i of [0, 1, 2, 3, 4]) {
      const res = await api(t, ws.admin, 'PUT', `/v1/projects/${made[`crew${i}`]}/members/${crew.id}`);
      assert.ok(res.statusCode < 300, res.body);
    }
    // The hidden ones have a crew too, someone else: visibility is the user's membership, not anyone's.
    const stranger = await newUser(t, ws, 'restricted');
    for (const i of [5, 6]) {
      const res = await api(t, ws.admin, 'PUT', `/v1/projects/${made[`crew${i}`]}/members/${stranger.id}`);
      assert.ok(res.statusCode < 300, res.body);
    }
    const archived = await api(t, ws.admin, 'POST', `/v1/projects/${made.crew3}/archive`);
    assert.ok(archived.statusCode < 300, archived.body);
    const visible = new Set(named('crew0', 'crew1', 'crew2', 'crew3', 'crew4', 'crewOwn'));

    const byIds = new ProjectsRepository();
    const byWalkThenIds = new ProjectsRepository({ visibleDriveLimit: 0, visibleSearchLimit: 1000 });
    const byWalk = new ProjectsRepository({ visibleDriveLimit: 0, visibleSearchLimit: 0 });
    // Their own projects read from a probe of one or two on (searchStream's window after it, then the index).
    const byStream = [1, 2].map((visibleProbe) => new ProjectsRepository({ visibleDriveLimit: 0, visibleSearchLimit: 0, visibleProbe }));
    // The trigram index's matches tested against a hash of the user's crew rows rather than one by one.
    const byWalkHashed = new ProjectsRepository({ visibleDriveLimit: 0, visibleSearchLimit: 0, fewMatches: 0 });
    const pages = async (repository: ProjectsRepository, criteria: Partial<ProjectListCriteria>) => {
      const seen: string[] = [];
      let after: ProjectListCriteria['after'] = null;
      for (let page = 0; page < 20; page++) {
        const rows = await repository.list(t.db, { workspaceId: ws.id, visibleTo: crew.id, status: 'active', sort: 'created_at', after, limit: 2, ...criteria });
        seen.push(...rows.slice(0, 2).map((r) => r.id));
        if (rows.length <= 2) break;
        after = { id: rows[1]!.id, updatedAt: rows[1]!.updated_at };
      }
      return seen;
    };
    for (const q of ['', 'crew', 'CREW DOCK', 'dock', 'ak', 'k', 'w', '%', '_', '0%', '1_', 'hidden', 'zq']) {
      for (const sort of ['created_at', 'updated_at'] as const) {
        for (const status of ['active', 'all'] as const) {
          const criteria = { q, sort, status };
          const walked = await pages(byWalk, criteria);
          assert.deepEqual(await pages(byIds, criteria), walked, JSON.stringify(criteria));
          assert.deepEqual(await pages(byWalkThenIds, criteria), walked, JSON.stringify(criteria));
          assert.deepEqual(await pages(byWalkHashed, criteria), walked, JSON.stringify(criteria));
          for (const repository of byStream) assert.deepEqual(await pages(repository, criteria), walked, JSON.stringify(criteria));
          assert.ok(walked.every((id) => visible.has(id)), JSON.stringify(criteria));
        }
      }
    }
    assert.deepEqual(await pages(byIds, { q: 'dock' }), named('crewOwn', 'crew4', 'crew1', 'crew0'));
    assert.deepEqual(await pages(byIds, { q: 'ak', status: 'all' }), named('crew4', 'crew3', 'crew1'), 'name or city, archived too');
    assert.deepEqual(await pages(byIds, { q: '%' }), named('crew0'), '% taken literally');
    assert.deepEqual(await pages(byIds, { q: '_' }), named('crew1'), '_ taken literally');
    assert.deepEqual(await search('crew', crew), named('crewOwn', 'crew2', 'crew1', 'crew0'), 'over HTTP too');
  });

  it('walks a window sized by how common the word was in the first one, else reads the index (searchPage)', async () => {
    const tries = async (matchesPer1000: number) => {
      const log: string[] = [];
      const rows = await searchPage(50,
        async (n) => { log.push(`walk ${n}`); return Array.from({ length: Math.min(51, Math.floor((n * matchesPer1000) / 1000)) }, (_, i) => i); },
        async () => { log.push('index'); return [-1]; });
      return { log, rows: rows.length };
    };
    assert.deepEqual(await tries(100), { log: [`walk ${SEARCH_WINDOW}`], rows: 51 }, 'common: the first window fills the page');
    assert.deepEqual(await tries(0), { log: [`walk ${SEARCH_WINDOW}`, 'index'], rows: 1 }, 'none in the first window: the index');
    assert.deepEqual(await tries(10), { log: [`walk ${SEARCH_WINDOW}`, 'walk 7650'], rows: 51 }, '20 of 2,000: a window of 7,650 rows');
    assert.deepEqual(await tries(20), { log: [`walk ${SEARCH_WINDOW}`, 'walk 3825'], rows: 51 });
    const rare = await tries(1);
    assert.deepEqual(rare.log, [`walk ${SEARCH_WINDOW}`, 'index'], `2 of 2,000 would need more than ${SEARCH_WINDOW_MAX} rows: the index`);
  });

  it('reads a restricted user\'s own projects from a probe on, as far as the page needs, else the index (searchStream)', async () => {
    // Row i (from 0) matches when matches(i): a walk returns the matching rows among `rows` after `skip`, up to 51.
    const tries = async (matches: (i: number) => boolean) => {
      const log: string[] = [];
      const rows = await searchStream(50,
        async (rows, skip) => {
          log.push(`walk ${rows} after ${skip}`);
          return Array.from({ length: rows }, (_, i) => skip + i).filter(matches).slice(0, 51);
        },
        async () => { log.push('index'); return [-1]; }, 500);
      return { log, rows };
    };
    const every = (n: number) => (i: number) => i % n === 0;
    assert.deepEqual((await tries(every(5))).log, ['walk 500 after 0'], 'common in the probe: its page');
    assert.deepEqual(await tries(() => false), { log: ['walk 500 after 0', 'index'], rows: [-1] }, 'none in the probe: the index');
    // 10 in the probe: the 41 more a page needs are expected in 2,050 rows; half again as many are walked.
    const common = await tries(every(50));
    assert.deepEqual(common.log, ['walk 500 after 0', 'walk 3075 after 500']);
    assert.deepEqual(common.rows, Array.from({ length: 51 }, (_, i) => i * 50), 'the probe\'s matches, then those after it, in order');
    assert.deepEqual((await tries((i) => i < 500 && i % 50 === 0)).log, ['walk 500 after 0', 'walk 3075 after 500', 'index'], 'short after the window: the index');
    assert.deepEqual((await tries(every(250))).log, ['walk 500 after 0', 'index'], `2 in the probe would need more than ${SEARCH_WINDOW_MAX} rows: the index`);
  });

  it('is a match the trigram index projects_search_in_workspace answers (023_search_workspace.sql)', async () => {
    const client = new pg.Client({ connectionString: t.url });
    await client.connect();
    try {
      // Without sequential and plain index scans, only a bitmap scan of an index that matches the expression is left.
      await client.query('set enable_seqscan = off');
      await client.query('set enable_indexscan = off');
      for (const q of ['portland', 'a\nb']) {
        const query = t.db.selectFrom('projects as p').select('p.id').where(matchesSearch(q)).compile();
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`explain ${query.sql}`, [...query.parameters]);
        const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
        assert.match(plan, /Bitmap Index Scan on projects_search_in_workspace/, plan);
      }
    } finally {
      await client.end();
    }
  });
});
