import path from 'node:path';
import { parseCidr } from './http/ssrf-guard.ts';

/** Validated, frozen configuration read once from the environment at start-up. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string | null;
  dataDir: string;
  publicUrl: string;
  storage: string;
  webhookAllowPrivate: string[];
  rateLimitPerMinute: number;
  logLevel: string;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };

  const port = int('PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const rateLimitPerMinute = int('JOBSITE_RATE_LIMIT', 600, 1, 1_000_000_000);

  let databaseUrl: string | null = env.DATABASE_URL || null;
  if (databaseUrl) {
    try {
      const u = new URL(databaseUrl);
      if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
        problems.push(`DATABASE_URL must start with postgres:// or postgresql:// (got "${u.protocol}")`);
      }
    } catch {
      problems.push('DATABASE_URL is not a valid URL');
      databaseUrl = null;
    }
  }

  const dataDir = path.resolve(env.JOBSITE_DATA_DIR || './data');

  let publicUrl = env.JOBSITE_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  try {
    const u = new URL(publicUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('JOBSITE_PUBLIC_URL must be an http(s) URL');
    publicUrl = publicUrl.replace(/\/+$/, '');
  } catch {
    problems.push(`JOBSITE_PUBLIC_URL is not a valid URL (got "${publicUrl}")`);
  }

  const storage = env.JOBSITE_STORAGE || 'file';
  if (storage !== 'file' && !/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/.test(storage)) {
    problems.push(`JOBSITE_STORAGE must be "file" or "s3://bucket" (got "${storage}")`);
  }

  const webhookAllowPrivate = (env.JOBSITE_WEBHOOK_ALLOW_PRIVATE || '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const cidr of webhookAllowPrivate) {
    try {
      parseCidr(cidr);
    } catch (err) {
      problems.push(`JOBSITE_WEBHOOK_ALLOW_PRIVATE: ${(err as Error).message}`);
    }
  }

  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    port, host, databaseUrl, dataDir, publicUrl, storage, webhookAllowPrivate, rateLimitPerMinute, logLevel,
  });
}
