// Statements built once per shape (db/query-shapes.ts): each call runs with its own values, and a
// value that reached the builder outside a slot is refused rather than reused by later calls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { QueryShapes, slot } from '../src/db/query-shapes.ts';
import { createTestDatabase } from './helpers.ts';

let database: { url: string; drop(): Promise<void> };
let handle: DatabaseHandle;
before(async () => {
  database = await createTestDatabase();
  handle = openDatabase(database.url, { max: 1 });
  await sql`create table shaped (id int primary key, kind text not null)`.execute(handle.db);
  await sql`insert into shaped select g, case when g % 2 = 0 then 'even' else 'odd' end from generate_series(1, 10) g`.execute(handle.db);
});
after(async () => { await handle?.close(); await database?.drop(); });

type Row = { id: number };
const table = () => handle.db.selectFrom('shaped' as never).select('id' as never);

describe('query shapes', () => {
  it('builds each shape once and runs it with every call\'s own values', async () => {
    const shapes = new QueryShapes<Row>();
    let builds = 0;
    const run = (kind: string | null, below: number) => shapes.execute(handle.db, kind === null ? 'all' : 'kind', () => {
      builds++;
      let q = table().where('id' as never, '<', slot('below'));
      if (kind !== null) q = q.where('kind' as never, '=', slot('kind'));
      return q.orderBy('id' as never, 'desc') as never;
    }, { below, kind });
    assert.deepEqual((await run('even', 7)).map((r) => r.id), [6, 4, 2]);
    assert.deepEqual((await run('odd', 7)).map((r) => r.id), [5, 3, 1]);
    assert.deepEqual((await run('odd', 4)).map((r) => r.id), [3, 1]);
    assert.equal(builds, 1);
    assert.deepEqual((await run(null, 4)).map((r) => r.id), [3, 2, 1]);
    assert.equal(builds, 2);
  });

  it('refuses a statement with a value bound outside a slot (it would be reused by every later call)', async () => {
    const shapes = new QueryShapes<Row>();
    const tenant = 'even';
    await assert.rejects(shapes.execute(handle.db, 'leaky', () => table().where('kind' as never, '=', tenant as never).where('id' as never, '<', slot('below')) as never, { below: 5 }),
      /parameter \$1 .* is a value, not a slot/);
  });

  it('refuses a call without a value for one of the slots', async () => {
    const shapes = new QueryShapes<Row>();
    await assert.rejects(shapes.execute(handle.db, 'x', () => table().where('id' as never, '<', slot('below')) as never, {}), /no value for the slot "below"/);
  });
});
