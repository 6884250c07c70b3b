// Kysely's statements as prepared statements (db/prepared.ts): one name per shape, reused; and a
// statement a concurrent migration made stale fails once, then goes unnamed on that connection.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../src/db/database.ts';
import { statementName } from '../src/db/prepared.ts';
import { createTestDatabase } from './helpers.ts';

let database: { url: string; drop(): Promise<void> };
let handle: DatabaseHandle;
before(async () => {
  database = await createTestDatabase();
  handle = openDatabase(database.url, { max: 1 }); // one connection: what it prepared is what it has
});
after(async () => { await handle?.close(); await database?.drop(); });

const preparedNames = async () =>
  (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(handle.db)).rows.map((r) => r.name);

describe('prepared statements', () => {
  it('prepares each query shape once per connection, under the name of its text', async () => {
    await sql`create table shapes (id int primary key, label text)`.execute(handle.db);
    const byId = (id: number) => handle.db.selectFrom('shapes' as never).selectAll().where('id' as never, '=', id as never);
    for (let id = 0; id < 3; id++) await byId(id).execute();
    const name = statementName(byId(0).compile().sql)!;
    assert.ok((await preparedNames()).includes(name));
    assert.equal((await preparedNames()).filter((n) => n === name).length, 1);
    // A statement without parameters (BEGIN, DDL, scripts) goes unnamed.
    assert.ok(!(await preparedNames()).includes(statementName('select 1')!));
  });

  it('leaves searches (ilike) unnamed: their plan depends on the pattern, so each execution is planned', async () => {
    await sql`create table labels (id int primary key, label text)`.execute(handle.db);
    const search = (q: string) => handle.db.selectFrom('labels' as never).selectAll().where('label' as never, 'ilike', `%${q}%` as never);
    const before = await preparedNames();
    for (const q of ['oak', 'pine', 'elm', 'ash', 'fir', 'yew', 'bay']) await search(q).execute();
    assert.equal(statementName(search('oak').compile().sql), null);
    assert.deepEqual(await preparedNames(), before, 'no statement prepared for the search');
  });

  it('after another connection adds a column, fails once with the stale plan, then answers unnamed', async () => {
    await sql`create table widened (id int primary key)`.execute(handle.db);
    await sql`insert into widened values (1)`.execute(handle.db);
    const read = () => handle.db.selectFrom('widened' as never).selectAll().where('id' as never, '=', 1 as never).execute();
    assert.deepEqual(await read(), [{ id: 1 }]);
    const other = openDatabase(database.url, { max: 1, prepare: false });
    await sql`alter table widened add column note text`.execute(other.db);
    await other.close();
    await assert.rejects(read(), /cached plan must not change result type/);
    assert.deepEqual(await read(), [{ id: 1, note: null }]);
    assert.deepEqual(await read(), [{ id: 1, note: null }]);
  });
});
