/**
 * Runs the real CLI (`node --import tsx src/main.ts …`) as a child process, for the tests of the
 * command line and of the embedded PostgreSQL's life cycle. Each test uses data directories of
 * its own: nothing here touches the database of the test run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../src/cli/server-address.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: the configuration variables a developer may have set are cleared. */
export function cliEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...vars };
  for (const name of ['JOBSITE_PUBLIC_URL', 'JOBSITE_STORAGE', 'JOBSITE_RATE_LIMIT', 'JOBSITE_WEBHOOK_ALLOW_PRIVATE',
    'JOBSITE_SMTP_URL', 'JOBSITE_MAIL_FROM', 'JOBSITE_OPERATOR_WEBHOOK_URL', 'JOBSITE_OPERATOR_WEBHOOK_SECRET', 'JOBSITE_APPLICATION_RATE_LIMIT', 'JOBSITE_TRUST_PROXY', 'JOBSITE_SHUTDOWN_TIMEOUT_SECONDS']) {
    if (!(name in vars)) delete env[name];
  }
  return env;
}

const children = new Set<ChildProcess>();

function spawnCli(args: string[], env: NodeJS.ProcessEnv, entry = 'src/main.ts'): ChildProcess {
  const nodeArgs = entry.endsWith('.ts') ? ['--import', 'tsx', entry, ...args] : [entry, ...args];
  const child = spawn(process.execPath, nodeArgs, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Runs one CLI command to completion. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, options: { entry?: string; timeoutMs?: number } = {}): Promise<CliResult> {
  const child = spawnCli(args, env, options.entry);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`jobsite ${args.join(' ')} took too long\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A long-running `start` / `serve` / `worker` process. */
export class Service {
  /** The log lines' messages so far. */
  readonly messages: string[] = [];
  output = '';
  url = '';
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(readonly child: ChildProcess) {
    child.stdout!.setEncoding('utf8');
    child.stderr!.setEncoding('utf8');
    let partial = '';
    child.stdout!.on('data', (d: string) => {
      this.output += d;
      const lines = (partial + d).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        try {
          this.messages.push(String((JSON.parse(line) as { msg: unknown }).msg));
        } catch {
          this.messages.push(line);
        }
      }
    });
    child.stderr!.on('data', (d: string) => { this.output += d; });
    this.exited = new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `jobsite <role>` without waiting for it. */
  static spawn(role: 'start' | 'serve' | 'worker', env: NodeJS.ProcessEnv): Service {
    return new Service(spawnCli([role], env));
  }

  /** Starts `jobsite <role>` and waits until it is serving (`Jobsite API on …`, or `Worker running` for a worker). */
  static async start(role: 'start' | 'serve' | 'worker', env: NodeJS.ProcessEnv, timeoutMs = 45_000): Promise<Service> {
    const service = Service.spawn(role, env);
    const ready = role === 'worker' ? /^Worker running/ : /^Jobsite API on (http:\/\/\S+)/;
    const line = await service.waitFor(ready, timeoutMs);
    service.url = ready.exec(line)![1] ?? '';
    return service;
  }

  /** Waits for a log message matching `pattern` and returns it. */
  async waitFor(pattern: RegExp, timeoutMs = 45_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const line = this.messages.find((m) => pattern.test(m));
      if (line) return line;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new Error(`the process exited before logging ${pattern}:\n${this.output}`);
      }
      if (Date.now() > deadline) {
        this.child.kill('SIGKILL');
        throw new Error(`no ${pattern} in time:\n${this.output}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Sends `signal` and waits for the process to end. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 40_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.kill(signal);
    return this.waitForExit(timeoutMs);
  }

  async waitForExit(timeoutMs = 40_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the process did not exit in time:\n${this.output}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A fresh data directory under the system's temporary directory (0755: the server may run as `postgres`). */
export async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-cli-'));
  await fs.chmod(dir, 0o755);
  return dir;
}

const alive = isProcessAlive;

/** The pid of the embedded PostgreSQL of `dataDir` when one is running, else null. */
export async function postgresPid(dataDir: string): Promise<number | null> {
  const content = await fs.readFile(path.join(dataDir, 'postgres', 'pgdata', 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(content.split('\n')[0]);
  return pid && alive(pid) ? pid : null;
}

/** Whether the process `pid` has gone (waiting a little: the postmaster's last children exit just after it). */
export async function gone(pid: number, withinMs = 5000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** After a test file: kills CLI processes still running, stops their servers and removes the directories. */
export async function cleanUp(dataDirs: string[]): Promise<void> {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of dataDirs) {
    const pid = await postgresPid(dir);
    if (pid) {
      process.kill(pid, 'SIGQUIT'); // immediate shutdown: the directory is thrown away anyway
      await gone(pid, 10_000);
    }
    // As root with a data directory the postgres user cannot reach, the cluster is elsewhere.
    const cluster = await fs.realpath(path.join(dir, 'postgres')).catch(() => null);
    await fs.rm(dir, { recursive: true, force: true });
    if (cluster && !cluster.startsWith(`${dir}${path.sep}`)) await fs.rm(cluster, { recursive: true, force: true });
  }
}

/** An HTTP request to a running service, as a client would send it. */
export async function http(service: Service, key: string | null, method: string, url: string, body?: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const res = await fetch(`${service.url}${url}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  return { status: res.status, headers: res.headers, json };
}
