/**
 * The embedded PostgreSQL is reached through a Unix-domain socket in a private directory next to
 * its data (issue 16: cheaper than loopback TCP per statement), and through TCP when the socket's
 * path would be too long; TCP on 127.0.0.1 stays open either way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { socketDirFor, startEmbeddedPostgres } from '../src/db/embedded.ts';

const dirs: string[] = [];
after(async () => {
  for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
});

/** A fresh data directory the server's user (postgres, when we are root) can reach, `depth` characters deeper than tmp. */
async function dataDir(depth = 0): Promise<string> {
  const base = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-socket-'));
  dirs.push(base);
  await fs.chmod(base, 0o755);
  if (depth === 0) return base;
  const deep = path.join(base, 'd'.repeat(depth));
  await fs.mkdir(deep, { mode: 0o755 });
  return deep;
}

/** The client address PostgreSQL sees for a connection to `url`: null over a Unix-domain socket. */
async function clientAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ addr: string | null }>('select host(inet_client_addr()) as addr')).rows[0]!.addr;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL on a Unix-domain socket', () => {
  it('puts the socket next to the data when its path fits, never where it would not or would need quoting', () => {
    assert.equal(socketDirFor('/srv/jobsite/postgres'), '/srv/jobsite/postgres/socket');
    const limit = process.platform === 'linux' ? 107 : 103;
    const fits = `/${'a'.repeat(limit - '/socket/.s.PGSQL.65535'.length - 1)}`;
    assert.equal(Buffer.byteLength(path.join(socketDirFor(fits)!, '.s.PGSQL.65535')), limit);
    assert.equal(socketDirFor(`${fits}b`), null, 'one byte too long');
    assert.equal(socketDirFor('/srv/job site/postgres'), null);
    assert.equal(socketDirFor("/srv/o'brien/postgres"), null);
    assert.equal(socketDirFor('/srv/a,b/postgres'), null);
  });

  it('connects through the socket in a 0700 directory, finds it again when reusing the server, and keeps TCP open', async () => {
    const dir = await dataDir();
    const server = await startEmbeddedPostgres(dir);
    try {
      assert.equal(server.started, true);
      assert.ok(server.socketDir, 'a short data directory gets a socket');
      assert.equal(new URL(server.url).searchParams.get('host'), server.socketDir);
      assert.equal((await fs.stat(server.socketDir)).mode & 0o777, 0o700);
      assert.ok((await fs.stat(path.join(server.socketDir, `.s.PGSQL.${server.port}`))).isSocket());
      assert.equal(await clientAddress(server.url), null, 'the pool connects through the socket');
      const tcp = `postgres://postgres:${new URL(server.url).password}@127.0.0.1:${server.port}/jobsite`;
      assert.equal(await clientAddress(tcp), '127.0.0.1');

      const again = await startEmbeddedPostgres(dir);
      try {
        assert.equal(again.started, false);
        assert.equal(again.url, server.url, 'a second process reads the socket from postmaster.pid');
        assert.equal(await clientAddress(again.url), null);
      } finally {
        await again.release();
      }
    } finally {
      await server.release({ forceStop: true });
    }
  });

  it('listens on TCP only when the socket path would be too long', async () => {
    const dir = await dataDir(120);
    const server = await startEmbeddedPostgres(dir);
    try {
      assert.equal(server.socketDir, null);
      assert.equal(new URL(server.url).search, '');
      assert.equal(await clientAddress(server.url), '127.0.0.1');
    } finally {
      await server.release({ forceStop: true });
    }
  });
});
