import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { searchByName, NAME_SEARCH_BOUNDS, type NameSearchBounds } from '../src/features/tags/tags.search.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';

let t: TestContext;
let ws: TestWorkspace;
/** Every tag of the workspace in the list's order (GET /v1/tags, page after page). */
let all: { id: string; name: string }[] = [];

// Matches that lie far apart in name order: a cluster at the start, one in the middle and one at
// the end, with many names between them that match nothing; LIKE's wildcards and case taken literally.
const NAMES = [
  ...[1, 2, 3].map((i) => `Alpha Roof ${i}`),
  ...Array.from({ length: 30 }, (_, i) => `Bravo ${String(i).padStart(2, '0')}`),
  ...[1, 2, 3, 4].map((i) => `Mike ROOF ${i}`),
  ...[1, 2, 3].map((i) => `Oak yard ${i}`),
  ...Array.from({ length: 20 }, (_, i) => `Papa ${String(i).padStart(2, '0')}`),
  'Quill', 'Rooftop', 'Ro_of 100%', 'café roof', 'Lake ak',
  ...[1, 2, 3].map((i) => `Zulu roof ${i}`),
];

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
  for (const name of NAMES) {
    const res = await api(t, ws.admin, 'POST', '/v1/tags', { name });
    assert.equal(res.statusCode, 201, res.body);
  }
  let url = '/v1/tags?limit=100';
  for (;;) {
    const page = (await api(t, ws.admin, 'GET', url)).json();
    all.push(...page.data);
    if (!page.has_more) break;
    url = `/v1/tags?limit=100&cursor=${page.next_cursor}`;
  }
  assert.equal(all.length, NAMES.length);
});
after(async () => t?.close());

const QUERIES = ['roof', 'ROOF', 'oo', 'ak', 'a', 'quill', 'xylophone', '_', '%', '0%', 'é', 'f r', 'o 1'];
const expected = (q: string) => all.filter((x) => x.name.toLowerCase().includes(q.toLowerCase())).map((x) => x.id);

/** Every page of `q` through searchByName with `bounds`, `limit` rows at a time, from the cursor of the last row. */
async function pages(q: string, bounds: NameSearchBounds, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let afterRow: { id: string; nameKey: string } | null = null;
  for (let i = 0; i < 100; i++) {
    const rows = await searchByName(t.db, { workspaceId: ws.id, q, sort: 'name', after: afterRow, limit }, q, bounds);
    assert.ok(rows.length <= limit + 1);
    seen.push(...rows.slice(0, limit).map((r) => r.id));
    if (rows.length <= limit) return seen;
    const last = rows[limit - 1]!;
    afterRow = { id: last.id, nameKey: last.name_key };
  }
  assert.fail('too many pages');
}

describe('GET /v1/tags?q= sorted by name', () => {
  it('pages through matches far apart in name order, the same rows in the same order as filtering the whole list', async () => {
    for (const q of QUERIES) {
      const seen: string[] = [];
      let url = `/v1/tags?limit=2&q=${encodeURIComponent(q)}`;
      for (let i = 0; ; i++) {
        assert.ok(i < 50);
        const res = await api(t, ws.admin, 'GET', url);
        assert.equal(res.statusCode, 200, res.body);
        const page = res.json();
        seen.push(...page.data.map((x: { id: string }) => x.id));
        if (!page.has_more) break;
        url = `/v1/tags?limit=2&q=${encodeURIComponent(q)}&cursor=${page.next_cursor}`;
      }
      assert.deepEqual(seen, expected(q), q);
    }
    assert.ok(expected('roof').length >= 10 && expected('xylophone').length === 0);
  });

  // The tries answer by how common the word looks; with bounds this small each path answers for
  // this handful of tags, and every one must give the rows the list gives.
  const paths: [string, Partial<NameSearchBounds>][] = [
    ['the first walk', {}],
    ['the probe (all matches through the trigram index, sorted)', { walkFirst: 2, walkMax: 4, sampleCommon: 1_000, probeMax: 1_000 }],
    ['the walk sized by the first names, then the whole index', { walkFirst: 2, walkMax: 4, sampleCommon: 1_000, probeMax: 1 }],
    ['a word common in the newest tags: no probe', { walkFirst: 2, walkMax: 4, sampleCommon: 0, walkAllRate: 2 }],
    ['a word common here: the walk to the end', { walkFirst: 2, walkMax: 4, sampleCommon: 0, walkAllRate: 0 }],
  ];
  for (const [path, bounds] of paths) {
    it(`answers through ${path} with the rows of the list, page after page`, async () => {
      for (const q of QUERIES) {
        for (const limit of [1, 3, 50]) {
          assert.deepEqual(await pages(q, { ...NAME_SEARCH_BOUNDS, ...bounds }, limit), expected(q), `${q}, limit ${limit}`);
        }
      }
    });
  }
});

// The walk to the page's end reads only the buckets (first characters) where migration 029 saw every
// pair of `q`: renamed and deleted tags leave their pairs behind (a bucket walked for nothing),
// new ones add theirs, and the answer is always the list's.
describe('GET /v1/tags?q= sorted by name: the buckets a walk may skip', () => {
  const walkToTheEnd: NameSearchBounds = { ...NAME_SEARCH_BOUNDS, walkFirst: 2, walkMax: 4, sampleCommon: 0, walkAllRate: 0 };
  let other: TestWorkspace;

  async function listed(): Promise<{ id: string; name: string }[]> {
    const rows: { id: string; name: string }[] = [];
    let url = '/v1/tags?limit=100';
    for (;;) {
      const page = (await api(t, other.admin, 'GET', url)).json();
      rows.push(...page.data);
      if (!page.has_more) return rows;
      url = `/v1/tags?limit=100&cursor=${page.next_cursor}`;
    }
  }

  async function searched(q: string, limit: number): Promise<string[]> {
    const seen: string[] = [];
    let afterRow: { id: string; nameKey: string } | null = null;
    for (let i = 0; i < 100; i++) {
      const rows = await searchByName(t.db, { workspaceId: other.id, q, sort: 'name', after: afterRow, limit }, q, walkToTheEnd);
      seen.push(...rows.slice(0, limit).map((r) => r.id));
      if (rows.length <= limit) return seen;
      afterRow = { id: rows[limit - 1]!.id, nameKey: rows[limit - 1]!.name_key };
    }
    assert.fail('too many pages');
  }

  it('finds what the list holds after tags are made, renamed and deleted, in every bucket', async () => {
    other = await newWorkspace(t);
    const made = new Map<string, string>();
    const names = ['Alpha oak 1', 'Alpha oak 2', 'Bravo 1', 'Lake ak', 'Lakeview 1', 'Lakeview 2', 'Oakwood', 'Étude ak',
      'ퟻ ak', '\u{10FFFF} ak', 'Zulu', 'Zulu oak', '_ak_ 1', '%ak% 2', 'x'];
    for (const name of names) {
      const res = await api(t, other.admin, 'POST', '/v1/tags', { name });
      assert.equal(res.statusCode, 201, res.body);
      made.set(name, res.json().id);
    }
    // "Alpha oak 1" no longer holds "ak" (its bucket keeps the pair), "Bravo 1" now does, "Zulu oak" is gone.
    assert.equal((await api(t, other.admin, 'PATCH', `/v1/tags/${made.get('Alpha oak 1')}`, { name: 'Alpha elm 1' })).statusCode, 200);
    assert.equal((await api(t, other.admin, 'PATCH', `/v1/tags/${made.get('Bravo 1')}`, { name: 'Bravo lakeside' })).statusCode, 200);
    assert.equal((await api(t, other.admin, 'DELETE', `/v1/tags/${made.get('Zulu oak')}`)).statusCode, 204);
    assert.equal((await api(t, other.admin, 'POST', '/v1/tags', { name: 'Quay oak' })).statusCode, 201);

    const all = await listed();
    for (const q of ['ak', 'AK', 'oak', 'a', 'é', 'É', 'ퟻ', 'ퟻ a', '\u{10FFFF}', 'k', '_', '%', '_ak_', 'z', 'q', 'lakes', 'x', 'xylophone']) {
      // Which names hold q as ILIKE says (the database's own case folding: without a locale, ASCII
      // only), in the list's order.
      const { rows } = await sql<{ id: string }>`select id from tags where workspace_id = ${other.id}
        and name ilike ${`%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`}`.execute(t.db);
      const holding = new Set(rows.map((r) => r.id));
      const expected = all.filter((x) => holding.has(x.id)).map((x) => x.id);
      for (const limit of [1, 2, 50]) assert.deepEqual(await searched(q, limit), expected, `${q}, limit ${limit}`);
    }
    assert.ok(all.filter((x) => x.name.toLowerCase().includes('ak')).length >= 8);
  });
});
