import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { newId } from '../ids.ts';
import { problemType } from './errors.ts';

const CLIENT_ERRORS: Record<string, { status: number; code: string; detail: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', detail: 'The request headers are larger than the server accepts (16 KiB in all by default); send fewer or shorter headers (cookies included).' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', detail: 'The request was not received in time.' },
};
const MALFORMED = { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP/1.1.' };

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (headers too large, a
 * malformed request line, a timeout). They get the same problem+json as everything else, with
 * `Connection: close`, and the connection is closed: the parser cannot tell where the next request
 * would start. A HEAD gets the headers only, when the refused bytes show it was one.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  // A response already under way on this connection cannot be followed by another one.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inFlight?.headersSent) {
    socket.destroy(err);
    return;
  }
  const known = (err.code && CLIENT_ERRORS[err.code]) || MALFORMED;
  const requestId = newId('request');
  const body = JSON.stringify({
    type: problemType(known.code), title: STATUS_CODES[known.status], status: known.status, detail: known.detail, code: known.code, request_id: requestId,
  });
  const isHead = Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(`HTTP/1.1 ${known.status} ${STATUS_CODES[known.status]}\r\n` +
    `Content-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n` +
    (isHead ? '' : body), () => socket.destroy());
}
