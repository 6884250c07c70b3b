/**
 * Which errors count as an outage (db/unavailable.ts, storage/unavailable.ts), how they map to
 * problems (http/error-handler.ts), and how the availability tracker logs (db/availability.ts):
 * pure functions and a fake clock, no timing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Availability } from '../src/db/availability.ts';
import { databaseFailure, isDatabaseUnavailable } from '../src/db/unavailable.ts';
import { toApiError } from '../src/http/error-handler.ts';
import { StorageUnavailableError } from '../src/storage/blob-store.ts';
import { isStorageUnavailable, isStoreOutage } from '../src/storage/unavailable.ts';

const sysErr = (code: string, syscall = 'connect') => Object.assign(new Error(`${syscall} ${code} 127.0.0.1:5432`), { code, syscall });
const pgErr = (code: string, message: string) => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('databaseFailure', () => {
  it('sees an unreachable server in socket errors, shutdown SQLSTATEs and the driver\'s own words', () => {
    for (const err of [
      sysErr('ECONNREFUSED'), sysErr('ECONNRESET', 'read'), sysErr('ETIMEDOUT'), sysErr('EHOSTUNREACH'), sysErr('ENOTFOUND', 'getaddrinfo'),
      pgErr('57P01', 'terminating connection due to administrator command'),
      pgErr('57P02', 'terminating connection because of crash of another server process'),
      pgErr('57P03', 'the database system is starting up'),
      pgErr('08006', 'connection failure'), pgErr('53300', 'sorry, too many clients already'),
      new Error('Connection terminated unexpectedly'), new Error('Connection terminated due to connection timeout'),
      new Error('timeout exceeded when trying to connect'), new Error('Query read timeout'),
      new Error('Client has encountered a connection error and is not queryable'),
      Object.assign(new AggregateError([sysErr('ECONNREFUSED'), sysErr('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' }),
      new Error('wrapped', { cause: sysErr('ECONNREFUSED') }),
    ]) {
      assert.equal(databaseFailure(err), 'unreachable', String(err));
    }
  });

  it('tells a statement timeout apart, and leaves ordinary errors alone', () => {
    assert.equal(databaseFailure(pgErr('57014', 'canceling statement due to statement timeout')), 'timeout');
    assert.equal(databaseFailure(pgErr('57014', 'canceling statement due to user request')), null);
    for (const err of [
      pgErr('23505', 'duplicate key value violates unique constraint'), pgErr('42P01', 'relation "x" does not exist'),
      new Error('Connection refused by policy'), new TypeError('x is undefined'), null, undefined, 'ECONNREFUSED',
      // A client that cut its upload short: ECONNRESET without a syscall is not our socket.
      Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
      // The S3 client's errors carry $metadata: the blob store's, not the database's.
      Object.assign(sysErr('ECONNREFUSED'), { $metadata: { attempts: 3 } }),
    ]) {
      assert.equal(isDatabaseUnavailable(err), false, String(err));
    }
  });
});

describe('storage outages', () => {
  it('recognises the S3 client\'s network errors, 5xx and throttling, but not a missing object or a denied request', () => {
    const s3 = (name: string, status: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });
    for (const err of [sysErr('ECONNREFUSED'), sysErr('ECONNRESET', 'read'), s3('InternalError', 500), s3('ServiceUnavailable', 503),
      s3('SlowDown', 503), s3('TooManyRequests', 429), Object.assign(new Error('timed out'), { name: 'TimeoutError' })]) {
      assert.ok(isStoreOutage(err), String(err));
    }
    for (const err of [s3('NoSuchKey', 404), s3('AccessDenied', 403), s3('InvalidRange', 416), Object.assign(new Error('aborted'), { code: 'ECONNRESET' })]) {
      assert.equal(isStoreOutage(err), false, String(err));
    }
  });

  it('answers only the store\'s tagged errors as storage_unavailable (raw socket errors look like the database\'s)', () => {
    assert.ok(isStorageUnavailable(new StorageUnavailableError(sysErr('ECONNREFUSED'))));
    assert.equal(isStorageUnavailable(sysErr('ECONNREFUSED')), false);
    const storage = toApiError(new StorageUnavailableError(sysErr('ECONNREFUSED')));
    assert.equal(storage.status, 503);
    assert.equal(storage.code, 'storage_unavailable');
    assert.ok(Number(storage.headers['retry-after']) > 0);
  });
});

describe('toApiError for the database', () => {
  it('answers 503 database_unavailable with Retry-After, never 500', () => {
    for (const err of [sysErr('ECONNREFUSED'), pgErr('57P01', 'terminating connection due to administrator command'),
      new Error('Connection terminated unexpectedly'), pgErr('57014', 'canceling statement due to statement timeout')]) {
      const problem = toApiError(err);
      assert.equal(problem.status, 503, String(err));
      assert.equal(problem.code, 'database_unavailable');
      assert.ok(Number(problem.headers['retry-after']) > 0);
    }
    assert.equal(toApiError(new Error('boom')).status, 500);
  });
});

describe('Availability', () => {
  const tracker = () => {
    const lines: { level: string; msg: string }[] = [];
    let now = 1_000_000;
    const log = { warn: (_o: unknown, msg: string) => lines.push({ level: 'warn', msg }), info: (_o: unknown, msg: string) => lines.push({ level: 'info', msg }) };
    const a = new Availability({ name: 'database', log: log as never, now: () => now, quietMs: 30_000 });
    return { a, lines, advance: (ms: number) => { now += ms; } };
  };

  it('warns once when it goes, reminds at most every 30 s, and says once when it is back', () => {
    const { a, lines, advance } = tracker();
    assert.equal(a.isDown, false);
    for (let i = 0; i < 100; i++) {
      a.failed(sysErr('ECONNREFUSED'), 'api');
      advance(100); // 100 failures over 10 s
    }
    assert.equal(a.isDown, true);
    assert.deepEqual(lines.map((l) => l.level), ['warn']);
    advance(20_000); // 30 s since the warning
    a.failed(sysErr('ECONNREFUSED'), 'worker');
    a.failed(sysErr('ECONNREFUSED'), 'worker');
    assert.deepEqual(lines.map((l) => l.msg), ['database unreachable; answering 503 and retrying until it is back', 'database still unreachable']);
    a.recovered();
    a.recovered();
    assert.equal(a.isDown, false);
    assert.deepEqual(lines.map((l) => l.level), ['warn', 'warn', 'info']);
    a.failed(sysErr('ECONNREFUSED'), 'api'); // a new outage is news again
    assert.equal(lines.length, 4);
    a.stop();
  });

  it('probes while down and notices recovery by itself', async () => {
    const lines: string[] = [];
    let up = false;
    let probes = 0;
    const a = new Availability({
      name: 'database', probeMs: 1,
      log: { warn: (_o: unknown, m: string) => lines.push(m), info: (_o: unknown, m: string) => lines.push(m) } as never,
      probe: async () => {
        probes++;
        if (probes === 3) up = true;
        if (!up) throw sysErr('ECONNREFUSED');
      },
    });
    a.failed(sysErr('ECONNREFUSED'), 'api');
    await new Promise<void>((resolve) => {
      const check = () => (a.isDown ? setImmediate(check) : resolve());
      check();
    });
    assert.equal(probes, 3);
    assert.deepEqual(lines, ['database unreachable; answering 503 and retrying until it is back', 'database reachable again']);
    a.stop();
  });
});
