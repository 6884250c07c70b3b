/** What every benchmark needs: a fresh database, free ports, and process CPU time. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/db/embedded.ts';
import { migrateAll } from '../src/runtime.ts';
import { databaseUrl } from '../test/db-url.ts';

export interface BenchDatabase {
  /** A fresh, migrated database. */
  url: string;
  /** Drops it, and stops the embedded server if this run started one. */
  drop(): Promise<void>;
}

/** A fresh database on DATABASE_URL's server, or on an embedded server in a temporary directory. */
export async function createBenchDatabase(): Promise<BenchDatabase> {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded = async () => undefined as void;
  if (!serverUrl) {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-bench-'));
    await fs.chmod(dir, 0o755);
    const server = await startEmbeddedPostgres(dir);
    serverUrl = server.urlFor('postgres');
    stopEmbedded = async () => { await server.release({ forceStop: true }); await fs.rm(dir, { recursive: true, force: true }); };
  }
  const dbName = `jobsite_bench_${crypto.randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl(serverUrl, 'postgres') });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = databaseUrl(serverUrl, dbName);
  await migrateAll(url);
  return {
    url,
    async drop() {
      await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => undefined);
      await admin.end();
      await stopEmbedded();
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** CPU time (user + system) a process has used so far, in microseconds (Linux /proc, 100 ticks/s). */
export async function cpuMicros(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}
