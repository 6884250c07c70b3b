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

/** Process ids of the PostgreSQL server's processes (the postmaster's children: backends, WAL writer, …), or null when it is not on this machine. */
export async function postgresPids(postmasterPid: number): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'utf8').catch(() => null);
    if (stat && Number(stat.split(') ')[1]!.split(' ')[1]) === postmasterPid) pids.push(Number(entry));
  }
  return pids;
}

/**
 * CPU time PostgreSQL has used so far, in microseconds: the sum over the postmaster's children
 * (every backend, and the WAL writer and checkpointer a write makes work). A backend that exits
 * during a measurement takes its time with it; the pools keep theirs open throughout.
 */
export async function postgresCpuMicros(postmasterPid: number): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (const pid of await postgresPids(postmasterPid)) {
    const micros = await cpuMicros(pid).catch(() => null);
    if (micros !== null) times.set(pid, micros);
  }
  return times;
}

/** CPU PostgreSQL spent between two readings of postgresCpuMicros (a backend started in between counts whole). */
export function postgresCpuSpent(before: Map<number, number>, after: Map<number, number>): number {
  let sum = 0;
  for (const [pid, micros] of after) sum += micros - (before.get(pid) ?? 0);
  return sum;
}

/** The postmaster's pid, when the server at `url` runs on this machine (its backend's parent), else null. */
export async function postmasterPid(url: string): Promise<number | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows: [row] } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const stat = await fs.readFile(`/proc/${row!.pid}/stat`, 'utf8').catch(() => null);
    return stat ? Number(stat.split(') ')[1]!.split(' ')[1]) : null;
  } finally {
    await client.end();
  }
}
