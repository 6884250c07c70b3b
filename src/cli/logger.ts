import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { Config } from '../config.ts';

/**
 * The process's logger: one JSON object a line for log collectors, or, on a terminal (LOG_FORMAT
 * auto) or when asked (pretty), readable lines — `12:04:31 INFO: Jobsite API on http://…`.
 */
export function createLogger(config: Config): Logger {
  const format = config.logFormat === 'auto' ? (process.stdout.isTTY ? 'pretty' : 'json') : config.logFormat;
  if (format === 'json') return pino({ level: config.logLevel });
  // sync: a line is written before the process can exit (shutdown ends with process.exit).
  return pino({ level: config.logLevel }, pretty({ translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true }));
}
