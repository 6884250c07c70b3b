/**
 * The one way the service makes HTTP requests to URLs that users chose (webhook deliveries,
 * photo imports by URL): through an undici Agent whose every new connection passes the SSRF
 * guard, with a total deadline, no redirects followed, and a capped response excerpt.
 */
import net from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import {
  type AllowList, type HostResolver, NO_PRIVATE_RANGES, SSRF_BLOCKED, SsrfBlockedError, firstRefusal,
  guardedLookup, hostOf, parseOutboundUrl, systemResolver,
} from './ssrf-guard.ts';

export type OutboundFailure =
  | 'invalid_url' // not http(s), credentials in the URL, malformed
  | 'ssrf_blocked' // the host is or resolves to a non-public address outside the allow list
  | 'dns_failure' // the host does not resolve
  | 'connection_refused'
  | 'timeout' // nothing, or not everything, arrived within timeoutMs
  | 'tls_error' // handshake or certificate failure
  | 'network_error'; // reset, closed mid-response, invalid HTTP, anything else on the wire

export class OutboundError extends Error {
  constructor(readonly code: OutboundFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export interface OutboundRequestOptions {
  method?: string;
  /** Names the service to the receiver; sent as User-Agent. */
  userAgent: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** Deadline for connect, headers and body together. Default 10 s. */
  timeoutMs?: number;
  /** The response body is read up to this many bytes, then the connection is dropped. Default 4096. */
  maxResponseBytes?: number;
  /** Ranges allowed despite being non-public; picks the shared agent for that list. */
  allow?: AllowList;
  /** An agent from createGuardedAgent (tests inject a resolver this way); wins over `allow`. */
  agent?: Dispatcher;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The first maxResponseBytes of the body. */
  bodyExcerpt: Buffer;
  /** True when the body was longer than the excerpt. */
  bodyTruncated: boolean;
  durationMs: number;
}

export interface GuardedAgentOptions {
  allow?: AllowList;
  resolve?: HostResolver;
  /** Open connections per origin; keep-alive reuses them. Default 64. */
  connectionsPerOrigin?: number;
  /** Ceiling on the TCP/TLS handshake; the request deadline usually ends it sooner. Default 10 s. */
  connectTimeoutMs?: number;
}

/**
 * An Agent (keep-alive, pooled per origin) whose connector refuses literal addresses that are
 * not allowed and resolves names through guardedLookup — node's net/tls skip `lookup` for an
 * IP literal, so the literal is judged here before the connector sees it.
 */
export function createGuardedAgent(options: GuardedAgentOptions = {}): Agent {
  const allow = options.allow ?? NO_PRIVATE_RANGES;
  const connectToVerifiedAddress = buildConnector({
    lookup: guardedLookup(allow, options.resolve ?? systemResolver),
    timeout: options.connectTimeoutMs ?? 10_000,
  });
  const connect: buildConnector.connector = (target, callback) => {
    if (net.isIP(target.hostname)) {
      const refusal = firstRefusal(target.hostname, [target.hostname], allow);
      if (refusal) {
        queueMicrotask(() => callback(new SsrfBlockedError(refusal), null));
        return;
      }
    }
    connectToVerifiedAddress(target, callback);
  };
  return new Agent({ connect, connections: options.connectionsPerOrigin ?? 64, pipelining: 1 });
}

const sharedAgents = new Map<string, Agent>();

/** One agent per allow list for the whole process, so connections are pooled across callers. */
export function sharedGuardedAgent(allow: AllowList = NO_PRIVATE_RANGES): Agent {
  const key = allow.cidrs.join(',');
  let agent = sharedAgents.get(key);
  if (!agent) {
    agent = createGuardedAgent({ allow });
    sharedAgents.set(key, agent);
  }
  return agent;
}

/** Closes the shared agents' pooled connections (at shutdown). */
export async function closeSharedGuardedAgents(): Promise<void> {
  const agents = [...sharedAgents.values()];
  sharedAgents.clear();
  await Promise.all(agents.map((a) => a.close()));
}

/**
 * Sends one request and reads at most maxResponseBytes of the answer. Any status, 3xx included,
 * is a response (redirects are not followed); failures throw an OutboundError.
 */
export async function outboundRequest(target: string | URL, options: OutboundRequestOptions): Promise<OutboundResponse> {
  const parsed = parseOutboundUrl(target);
  if (!parsed.ok) throw new OutboundError('invalid_url', parsed.reason);
  const { url } = parsed;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 4096;
  const agent = options.agent ?? sharedGuardedAgent(options.allow);

  const started = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  try {
    const response = await agent.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: (options.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: withUserAgent(options.headers, options.userAgent),
      body: options.body,
      signal: deadline.signal,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    const { excerpt, truncated } = await readExcerpt(response.body, maxBytes);
    return {
      status: response.statusCode,
      headers: response.headers,
      bodyExcerpt: excerpt,
      bodyTruncated: truncated,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    };
  } catch (err) {
    throw toOutboundError(err, url, deadline.signal.aborted ? timeoutMs : null);
  } finally {
    clearTimeout(timer);
  }
}

export interface OutboundDownload {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The final URL (after redirects). */
  url: URL;
  /** The body as it arrives; failures (the deadline included) surface as OutboundErrors while reading. */
  body: AsyncIterable<Buffer>;
  /** Drops the connection when the body will not be read to the end. */
  cancel(): void;
}

export interface OutboundDownloadOptions {
  userAgent: string;
  /** Deadline for every hop, the headers and the whole body together. */
  timeoutMs: number;
  /** Redirects followed (each hop passes the SSRF guard again). Default 3. */
  maxRedirects?: number;
  allow?: AllowList;
  agent?: Dispatcher;
}

/**
 * A GET whose body is streamed rather than excerpted (photo imports by URL): redirects are
 * followed up to `maxRedirects`, every connection goes through the guarded agent, and one
 * deadline covers everything until the last byte is read.
 */
export async function outboundDownload(target: string | URL, options: OutboundDownloadOptions): Promise<OutboundDownload> {
  const agent = options.agent ?? sharedGuardedAgent(options.allow);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  let current: string | URL = target;
  try {
    for (let hop = 0; ; hop++) {
      const parsed = parseOutboundUrl(current);
      if (!parsed.ok) throw new OutboundError('invalid_url', parsed.reason);
      const { url } = parsed;
      let response: Dispatcher.ResponseData;
      try {
        response = await agent.request({
          origin: url.origin, path: url.pathname + url.search, method: 'GET',
          headers: { 'user-agent': options.userAgent, accept: 'image/*, video/*, */*;q=0.5' },
          signal: deadline.signal, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs,
        });
      } catch (err) {
        throw toOutboundError(err, url, deadline.signal.aborted ? options.timeoutMs : null);
      }
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        discard(response.body);
        if (hop >= (options.maxRedirects ?? 3)) throw new OutboundError('network_error', `More than ${options.maxRedirects ?? 3} redirects.`);
        current = new URL(location, url);
        continue;
      }
      const body = response.body;
      async function* chunks(): AsyncGenerator<Buffer> {
        try {
          for await (const chunk of body as AsyncIterable<Buffer>) yield chunk;
        } catch (err) {
          throw toOutboundError(err, url, deadline.signal.aborted ? options.timeoutMs : null);
        } finally {
          clearTimeout(timer);
        }
      }
      return {
        status: response.statusCode, headers: response.headers, url, body: chunks(),
        cancel: () => {
          clearTimeout(timer);
          discard(body);
        },
      };
    }
  } catch (err) {
    clearTimeout(timer);
    throw err;
  }
}

/** Drops a response body unread (undici reports its destruction as an error; nobody is listening for it). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function withUserAgent(headers: Record<string, string> | undefined, userAgent: string): Record<string, string> {
  const all: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== 'user-agent') all[name] = value;
  }
  all['user-agent'] = userAgent;
  return all;
}

/** Reads up to `max` bytes; a longer body is destroyed, which closes its connection. */
async function readExcerpt(body: Dispatcher.ResponseData['body'], max: number): Promise<{ excerpt: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (length + chunk.length > max) {
      chunks.push(chunk.subarray(0, max - length));
      length = max;
      body.destroy();
      return { excerpt: Buffer.concat(chunks, length), truncated: true };
    }
    chunks.push(chunk);
    length += chunk.length;
  }
  return { excerpt: Buffer.concat(chunks, length), truncated: false };
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA', 'ENODATA']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|EPROTO$)/;

function toOutboundError(err: unknown, url: URL, timedOutAfter: number | null): OutboundError {
  if (err instanceof OutboundError) return err;
  const where = `${hostOf(url)}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`;
  if (timedOutAfter !== null) {
    return new OutboundError('timeout', `No complete response from ${where} within ${timedOutAfter} ms.`, { cause: err });
  }
  const cause = rootCause(err);
  const code = cause.code ?? '';
  if (code === SSRF_BLOCKED) return new OutboundError('ssrf_blocked', cause.message, { cause: err });
  if (DNS_CODES.has(code)) {
    return new OutboundError('dns_failure', `The host ${hostOf(url)} could not be resolved (${code}).`, { cause: err });
  }
  if (code === 'ECONNREFUSED') return new OutboundError('connection_refused', `${where} refused the connection.`, { cause: err });
  if (TIMEOUT_CODES.has(code)) {
    return new OutboundError('timeout', `No complete response from ${where} in time (${code}).`, { cause: err });
  }
  if (TLS_CODE.test(code)) return new OutboundError('tls_error', `TLS with ${where} failed: ${cause.message}`, { cause: err });
  return new OutboundError('network_error', `The request to ${where} failed: ${cause.message || code || 'unknown error'}`, { cause: err });
}

/** The error that says what happened: undici and autoSelectFamily wrap socket errors. */
function rootCause(err: unknown): NodeJS.ErrnoException {
  let current = err as NodeJS.ErrnoException & { errors?: unknown[] };
  for (let depth = 0; depth < 5; depth++) {
    if (current?.code && current.code !== 'UND_ERR_SOCKET') return current;
    if (current instanceof AggregateError && current.errors.length) {
      current = current.errors[current.errors.length - 1] as typeof current;
    } else if (current?.cause) {
      current = current.cause as typeof current;
    } else {
      break;
    }
  }
  return current ?? new Error(String(err));
}
