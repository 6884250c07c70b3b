import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { ApiError } from './errors.ts';

/** A connection that has sent nothing for this long when closing begins is closed (a preconnect, not a request on its way). */
const SILENT_GRACE_MS = 1000;
/** While closing, how often connections that have become idle or stayed silent are closed. */
const SWEEP_MS = 100;

/**
 * Closing the API without dropping a request (see docs/operations.md, "Stopping"). app.close()
 * stops accepting connections, closes the idle keep-alive ones and waits for the rest; this adds
 * what Fastify and node leave out:
 *
 * - requests already running finish (and those already sent when closing begins are served),
 *   and their responses carry `Connection: close`, so the client does not keep a connection the
 *   server is about to drop (a busy keep-alive connection would otherwise stay open after its
 *   response, and app.close() wait for its 72 s keep-alive timeout);
 * - connections that become idle later (a response that started before closing did) are closed,
 *   and so are connections that never sent a byte (node does not count them as idle, so one
 *   browser preconnect would hold the close up for minutes), once they have been silent for a second;
 * - a request arriving on an open connection after closing began gets a 503 problem+json,
 *   `shutting_down`, with `Retry-After` and `Connection: close` (it needs Fastify's
 *   `return503OnClosing: false`, whose own 503 is not problem+json).
 *
 * Requests still running when the shutdown budget runs out are cut by the caller
 * (`app.server.closeAllConnections()`).
 */
export function registerDraining(app: FastifyInstance): void {
  const opened = new Map<Socket, number>();
  app.server.on('connection', (socket: Socket) => {
    opened.set(socket, performance.now());
    socket.once('close', () => opened.delete(socket));
  });

  /** Every response from now on says `Connection: close`. */
  let draining = false;
  /** Every request from now on is refused. */
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    draining = true;
    // Two turns of the event loop before the listener closes: connections the kernel has already
    // accepted, and requests already sent on idle keep-alive connections, reach the server and
    // are served, instead of being reset with the listener and the idle connections.
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    closing = true;
    sweep = setInterval(() => {
      app.server.closeIdleConnections();
      const now = performance.now();
      for (const [socket, since] of opened) {
        if (socket.bytesRead === 0 && now - since >= SILENT_GRACE_MS) socket.destroy();
      }
    }, SWEEP_MS);
  });
  app.addHook('onClose', async () => clearInterval(sweep));

  app.addHook('onRequest', async (_req, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    throw new ApiError(503, 'shutting_down', 'Service unavailable',
      'This server is shutting down; send the request again (a new connection reaches a server that is up).',
      {}, { 'retry-after': '1' });
  });

  app.addHook('onSend', async (_req, reply) => {
    if (draining) reply.header('connection', 'close');
  });
}
