/**
 * What the benchmarks' measuring child processes share. Kept apart from support.ts, whose imports
 * (the embedded PostgreSQL, migrations) would swell the memory a child measures.
 */
import fs from 'node:fs/promises';

/** The environment of a benchmark's own Jobsite process (data directory, database, a public URL, no logs). */
export function benchEnv(dataDir: string, url: string) {
  return { JOBSITE_DATA_DIR: dataDir, DATABASE_URL: url, JOBSITE_PUBLIC_URL: 'http://bench.test', LOG_LEVEL: 'silent' };
}

/** This process's peak (VmHWM) or current (VmRSS) resident memory in bytes, from /proc. */
export async function procStatus(field: 'VmHWM' | 'VmRSS'): Promise<number> {
  const status = await fs.readFile('/proc/self/status', 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) * 1024;
}
