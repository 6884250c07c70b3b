import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Where the embedded PostgreSQL's files live, and as whom it runs.
 *
 * PostgreSQL refuses to run as root, so as root the server runs as the `postgres` OS user. That
 * user must reach the binaries and the cluster, which a checkout in a private directory
 * (`/root/jobsite`, a 0700 `mktemp -d`) does not allow. Then, and only then:
 *   - the binaries are copied once per version to /var/lib/jobsite/postgres-<version>-<platform>/;
 *   - the cluster is kept in /var/lib/jobsite/<hash of the data directory's real path>/, owned by
 *     `postgres`, and `<data dir>/postgres` is a symbolic link to it: the link is the record that
 *     finds the same cluster again (even after the data directory is moved). The password file
 *     stays in the data directory.
 * Anyone else (not root, or root with a reachable data directory) keeps everything in place.
 */
export const RELOCATION_ROOT = '/var/lib/jobsite';

export interface Binaries {
  postgres: string;
  pg_ctl: string;
  initdb: string;
}

export interface OsUser {
  uid: number;
  gid: number;
}

export interface ClusterHome {
  /** The server's directory: PGDATA in `pgdata/`, its log in `server.log`. */
  serverDir: string;
  /** Set when the cluster is kept outside the data directory because the server's user cannot reach it. */
  relocated: boolean;
}

/** PostgreSQL refuses to run as root: as root we run it as the `postgres` OS user, created if missing. */
export async function serverOsUser(): Promise<OsUser | null> {
  if (process.getuid?.() !== 0) return null;
  const lookup = async (): Promise<OsUser | null> => {
    try {
      const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
      const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
      return { uid, gid };
    } catch {
      return null;
    }
  };
  const existing = await lookup();
  if (existing) return existing;
  await run('sh', ['-c', 'getent group postgres >/dev/null || groupadd --system postgres']);
  await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres']);
  const created = await lookup();
  if (!created) throw new Error('Could not create the "postgres" OS user that the embedded PostgreSQL runs as.');
  return created;
}

/** execFile options for a command run as the server's user (from `/`: our working directory may be private). */
export function asUser(user: OsUser | null) {
  return { ...(user ?? {}), ...(user ? { cwd: '/' } : {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' } };
}

/** Whether `user` passes `test <flag> <file>` (ACLs and every parent directory included). */
async function userCan(user: OsUser, flag: '-x' | '-w' | '-r', file: string): Promise<boolean> {
  return run('test', [flag, file], asUser(user)).then(() => true, () => false);
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(() => true, () => false);
}

/** `RELOCATION_ROOT`, made if missing: root's, and traversable by the server's user. */
async function relocationRoot(user: OsUser, why: string): Promise<string> {
  try {
    // Made here: set the mode whatever the umask (an npm run under umask 077 would make it 0700).
    if (await fs.mkdir(RELOCATION_ROOT, { recursive: true })) await fs.chmod(RELOCATION_ROOT, 0o755);
  } catch (err) {
    throw new Error(`${why}, and ${RELOCATION_ROOT} could not be made for it (${(err as Error).message}). ` +
      'Set JOBSITE_DATA_DIR to a directory the "postgres" user can reach (for example under /var/lib or /srv), or set DATABASE_URL.');
  }
  if (!(await userCan(user, '-x', RELOCATION_ROOT))) {
    throw new Error(`${why}, and cannot reach ${RELOCATION_ROOT} either. ` +
      'Set JOBSITE_DATA_DIR to a directory the "postgres" user can reach, or set DATABASE_URL.');
  }
  return RELOCATION_ROOT;
}

/**
 * The binaries the server's user can run: the npm package's own, or a copy of them made once per
 * version under `RELOCATION_ROOT` (into a scratch directory renamed into place, so processes
 * racing to make it never see half a copy).
 */
export async function reachableBinaries(bin: Binaries, user: OsUser | null): Promise<Binaries> {
  if (!user || (await userCan(user, '-x', bin.initdb))) return bin;
  const nativeDir = path.dirname(path.dirname(bin.initdb));
  const pkgDir = path.dirname(nativeDir);
  const { name, version } = JSON.parse(await fs.readFile(path.join(pkgDir, 'package.json'), 'utf8')) as { name: string; version: string };
  const root = await relocationRoot(user, `The "postgres" OS user cannot run the PostgreSQL binaries in ${nativeDir}`);
  const copy = path.join(root, `${name.replace(/^@/, '').replace(/\//g, '-')}-${version}`);
  if (!(await exists(path.join(copy, 'bin', 'initdb')))) {
    const scratch = `${copy}.${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`;
    await fs.rm(scratch, { recursive: true, force: true });
    await fs.cp(nativeDir, scratch, { recursive: true, verbatimSymlinks: true });
    await run('chmod', ['-R', 'a+rX', scratch]); // an install under umask 077 made them root's only
    await fs.rename(scratch, copy).catch(async (err: NodeJS.ErrnoException) => {
      await fs.rm(scratch, { recursive: true, force: true });
      if (!(await exists(path.join(copy, 'bin', 'initdb')))) throw err; // else another process won the race
    });
  }
  const at = (file: string) => path.join(copy, 'bin', path.basename(file));
  return { postgres: at(bin.postgres), pg_ctl: at(bin.pg_ctl), initdb: at(bin.initdb) };
}

/**
 * Where the cluster of `dataDir` lives. Called with the data directory's lock held, so the link
 * is made once. Follows an existing `<dataDir>/postgres` link; refuses one whose target is gone
 * (the database is lost unless restored there, and starting an empty one in its place would hide
 * that).
 */
export async function clusterHome(dataDir: string, user: OsUser | null): Promise<ClusterHome> {
  const inPlace = path.join(dataDir, 'postgres');
  const link = await fs.readlink(inPlace).catch(() => null);
  const target = link === null ? null : path.resolve(dataDir, link);
  // A link of ours; any other (made by hand, to another disk say) is followed as it always was.
  if (target !== null && path.dirname(target) === RELOCATION_ROOT) {
    if (!(await exists(target))) {
      throw new Error(`${inPlace} points to ${target}, which is gone: the embedded database kept there is lost unless ` +
        `you restore it. Remove the link ${inPlace} to start with an empty database.`);
    }
    return { serverDir: target, relocated: true };
  }
  if (!user || target !== null || (await userCan(user, '-x', dataDir))) return { serverDir: inPlace, relocated: false };
  // A server still running in place (started before a parent directory was closed) is reused, never copied.
  if (await runsInPlace(path.join(inPlace, 'pgdata'))) return { serverDir: inPlace, relocated: false };

  const real = await fs.realpath(dataDir);
  const root = await relocationRoot(user, `The embedded PostgreSQL runs as the "postgres" OS user, which cannot reach ${dataDir}`);
  const serverDir = path.join(root, crypto.createHash('sha256').update(real).digest('hex').slice(0, 16));
  const credsFile = path.join(dataDir, 'embedded-postgres.json');
  if (await exists(inPlace)) {
    // Left by an earlier version (or by hand) where the server cannot reach it: move it over.
    await moveAside(serverDir);
    await fs.cp(inPlace, serverDir, { recursive: true, verbatimSymlinks: true });
    await fs.rm(inPlace, { recursive: true, force: true });
  } else if (!(await exists(credsFile))) {
    // A data directory made afresh at the path of a deleted one: its cluster, whose password went
    // with the deleted directory, is set aside rather than reused or destroyed.
    await moveAside(serverDir);
  }
  await fs.mkdir(serverDir, { recursive: true, mode: 0o700 });
  await run('chown', ['-R', `${user.uid}:${user.gid}`, serverDir]);
  await fs.chmod(serverDir, 0o700);
  // Which data directory this cluster belongs to, for whoever lists RELOCATION_ROOT.
  await fs.writeFile(path.join(serverDir, 'DATA_DIRECTORY'), `${real}\n`);
  await fs.symlink(serverDir, inPlace);
  return { serverDir, relocated: true };
}

async function moveAside(dir: string): Promise<void> {
  if (await exists(path.join(dir, 'pgdata', 'PG_VERSION'))) {
    await fs.rename(dir, `${dir}.orphaned-${new Date().toISOString().replace(/[:.]/g, '')}`);
  } else {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Whether the postmaster.pid of `pgdata` names a live process. */
async function runsInPlace(pgdata: string): Promise<boolean> {
  const pid = Number((await fs.readFile(path.join(pgdata, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
