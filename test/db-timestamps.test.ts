// parseTimestamptz (db/timestamps.ts) gives the very Date pg's own parser gives, for what
// PostgreSQL prints in any session time zone and for the forms it hands back to postgres-date.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import '../src/db/database.ts';
import { parseTimestamptz } from '../src/db/timestamps.ts';
import { createTestDatabase } from './helpers.ts';

// What pg uses once database.ts is loaded.
const pgDefault = (pg.types as unknown as { getTypeParser(oid: number, format: 'text'): (t: string) => unknown }).getTypeParser(1184, 'text');

const same = (text: string) => {
  const ours = parseTimestamptz(text) as Date | number;
  const theirs = postgresDate(text) as Date | number;
  assert.ok(Object.is(+ours, +theirs), `${text}: ${+ours} vs ${+theirs}`);
};

let postgresDate: (text: string) => unknown;
let database: { url: string; drop(): Promise<void> };
before(async () => {
  postgresDate = (await import('postgres-date' as string)).default;
  database = await createTestDatabase();
});
after(async () => database?.drop());

describe('parseTimestamptz', () => {
  it('is the parser pg uses for timestamptz in this process', () => {
    assert.equal(pgDefault, parseTimestamptz);
  });

  it('agrees with postgres-date on fractions, offsets with minutes and seconds, and the forms it passes on', () => {
    const fixed = ['2026-11-25 16:25:42.693+00', '2026-11-25 16:25:42+00', '2026-11-25 16:25:42.1-03', '2026-11-25 16:25:42.123456+05:30',
      '1900-01-01 00:00:00+00:19:32', '2026-03-29 01:59:59.999-09:30', 'infinity', '-infinity', '0050-06-01 12:00:00+00',
      '0999-12-31 23:59:59.999+00', '2020-01-01 00:00:00+00 BC', '12020-01-01 00:00:00+00', '2026-11-25 16:25:42.057+00'];
    for (const text of fixed) same(text);
    // Every millisecond fraction with 1, 2 and 3 digits, where 1000 × parseFloat rounds either way.
    for (let f = 0; f < 1000; f++) {
      same(`2026-01-02 03:04:05.${String(f).padStart(3, '0')}+00`);
      if (f < 100) same(`2026-01-02 03:04:05.${String(f).padStart(2, '0')}-07`);
    }
  });

  it('reads what PostgreSQL prints in session time zones with odd offsets', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      for (const zone of ['UTC', 'Asia/Kolkata', 'America/St_Johns', 'Europe/Amsterdam', 'Pacific/Chatham', 'America/Sao_Paulo']) {
        await client.query(`set timezone = '${zone}'`);
        const { rows } = await client.query<{ at: Date; text: string }>(`
          select at, at::text as text from (values ('1900-01-01 00:00:00+00'::timestamptz), ('1970-01-01 00:00:00.5+00'), ('2026-03-29 01:30:00.123456+00'),
            ('2026-11-25 16:25:42.693+00'), ('9999-12-31 23:59:59.999+00'), ('0001-01-01 00:00:00+00')) v(at)`);
        for (const row of rows) {
          same(row.text);
          assert.equal(+row.at, +(postgresDate(row.text) as Date), `${zone} ${row.text}`);
        }
      }
    } finally {
      await client.end();
    }
  });
});
