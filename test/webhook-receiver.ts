/**
 * A real HTTP receiver on 127.0.0.1 for the webhook tests: records every request (raw body bytes,
 * headers, arrival order) and answers per path as the test says (default 200).
 */
import http from 'node:http';
import type net from 'node:net';
import pino from 'pino';
import { WebhookDispatcher } from '../src/features/webhooks/webhooks.dispatcher.ts';
import type { TestContext } from './helpers.ts';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** performance.now() when the body had arrived. */
  at: number;
}

/** Answers one request; return without ending `res` to hold it. */
export type Responder = (req: Received, res: http.ServerResponse, index: number) => void;

export class Receiver {
  readonly received: Received[] = [];
  private readonly responders = new Map<string, Responder>();
  private readonly sockets = new Set<net.Socket>();
  private readonly held = new Set<http.ServerResponse>();
  private server!: http.Server;
  port = 0;

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    r.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const rec: Received = { path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: performance.now() };
        const index = r.received.filter((x) => x.path === path).length;
        r.received.push(rec);
        const responder = r.responders.get(path);
        if (responder) {
          r.held.add(res);
          res.on('close', () => r.held.delete(res));
          responder(rec, res, index);
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        }
      });
    });
    r.server.keepAliveTimeout = 60_000;
    r.server.on('connection', (s) => {
      r.sockets.add(s);
      s.on('close', () => r.sockets.delete(s));
    });
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    r.port = (r.server.address() as net.AddressInfo).port;
    return r;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Polls `check` until it returns something truthy; fails with `what` after `timeoutMs`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A started dispatcher sending the test app's deliveries (real clock, 2 s per send, no jitter): for the feature tests that check what a receiver got. */
export async function startWebhookDispatcher(t: TestContext): Promise<WebhookDispatcher> {
  const dispatcher = new WebhookDispatcher(
    { db: t.db, connectionString: t.url, config: t.config, log: pino({ level: 'silent' }), clock: { now: () => new Date() } },
    { timeoutMs: 2000, random: () => 0.5 },
  );
  await dispatcher.start();
  return dispatcher;
}
