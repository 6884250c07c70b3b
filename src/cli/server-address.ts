import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Where the API of this data directory listens, for the CLI run in another terminal (which has
 * neither the server's PORT nor its JOBSITE_PUBLIC_URL): each API process writes a small file,
 * `<data dir>/run/api-<pid>.json`, when it listens and removes it when it stops. A file whose
 * process is gone (a crash) is ignored and cleared.
 */
export interface ServerAddress {
  pid: number;
  /** The base URL clients should use (JOBSITE_PUBLIC_URL, or the address it listens on). */
  publicUrl: string;
  startedAt: string;
}

const dirOf = (dataDir: string) => path.join(dataDir, 'run');
const fileOf = (dataDir: string, pid: number) => path.join(dirOf(dataDir), `api-${pid}.json`);

/** Whether `pid` is a live process (EPERM: alive, but another user's). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Records this process's address; the returned function removes it again (at shutdown). */
export async function recordServerAddress(dataDir: string, publicUrl: string): Promise<() => Promise<void>> {
  const address: ServerAddress = { pid: process.pid, publicUrl, startedAt: new Date().toISOString() };
  const file = fileOf(dataDir, process.pid);
  await fs.mkdir(dirOf(dataDir), { recursive: true });
  await fs.writeFile(`${file}.tmp`, JSON.stringify(address));
  await fs.rename(`${file}.tmp`, file);
  return () => fs.rm(file, { force: true });
}

/** The most recently started API process still running on this data directory, if any. */
export async function runningServer(dataDir: string): Promise<ServerAddress | null> {
  const names = await fs.readdir(dirOf(dataDir)).catch(() => [] as string[]);
  const found: ServerAddress[] = [];
  for (const name of names) {
    if (!/^api-\d+\.json$/.test(name)) continue;
    const file = path.join(dirOf(dataDir), name);
    const address = await fs.readFile(file, 'utf8').then((s) => JSON.parse(s) as ServerAddress, () => null);
    if (address && typeof address.pid === 'number' && isProcessAlive(address.pid)) found.push(address);
    else await fs.rm(file, { force: true }).catch(() => undefined);
  }
  return found.sort((a, b) => b.startedAt.localeCompare(a.startedAt))[0] ?? null;
}
