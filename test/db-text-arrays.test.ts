// parseTextArray (db/text-arrays.ts) gives the very array pg's own parser (postgres-array) gives,
// for what PostgreSQL prints and for the forms it hands back to postgres-array.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import '../src/db/database.ts';
import { parseTextArray, TEXT_ARRAY } from '../src/db/text-arrays.ts';

const postgresArray = (text: string): unknown => (pg.types as unknown as { arrayParser: { create(t: string): { parse(): unknown } } }).arrayParser.create(text).parse();

describe('parseTextArray', () => {
  it('is the parser pg uses for text[] in this process', () => {
    assert.equal(pg.types.getTypeParser(TEXT_ARRAY, 'text'), parseTextArray);
  });

  it('gives what postgres-array gives, split or handed to it', () => {
    const cases = [
      '{}', '{a}', '{a,b}', '{usr_01jd0000000000000000000001,usr_01jd0000000000000000000002}', '{NULL}', '{a,NULL}', '{NULLx,xNULL}',
      '{""}', '{"a b",c}', '{"a\\"b"}', '{"a,b",c}', '{"NULL"}', '{{a,b},{c,d}}', '[1:2]={a,b}', '{ a ,b}', '{a,,b}', '{é,日本}',
    ];
    for (const text of cases) assert.deepEqual(parseTextArray(text), postgresArray(text), text);
  });
});
