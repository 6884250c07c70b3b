import fs from 'node:fs';
import type { Agent } from 'undici';
import { OutboundError, outboundRequest, type OutboundResponse } from '../../http/outbound.ts';
import type { AttemptRecord, ClaimedDelivery } from './deliveries.repository.ts';
import { parseRetryAfter } from './retry-schedule.ts';
import { signatureHeaders } from './webhooks.signing.ts';

/** One attempt of a delivery: a signed POST of its stored payload, and what it came to. */

/** How much of a receiver's answer is kept with the attempt. */
const EXCERPT_BYTES = 4096;

const VERSION = (JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The User-Agent of every delivery: the version, and the installation to write to. */
export const webhookUserAgent = (publicUrl: string) => `Jobsite-Webhooks/${VERSION} (+${publicUrl})`;

/** What one attempt came to. */
export interface Outcome {
  record: AttemptRecord;
  /** A 2xx answer. */
  ok: boolean;
  /** The receiver answered 410 Gone. */
  gone: boolean;
  retryAfterMs: number | null;
}

export interface Sender {
  /** The SSRF-guarded connection pool. */
  agent: Agent;
  userAgent: string;
  timeoutMs: number;
}

/** One POST of the stored payload, signed at `attemptedAt`; never throws. */
export async function attemptDelivery(d: ClaimedDelivery, sender: Sender, attemptedAt: Date): Promise<Outcome> {
  const secrets = d.previous_secret ? [d.secret!, d.previous_secret] : [d.secret!];
  const headers = {
    'content-type': 'application/json',
    ...signatureHeaders({ secrets, eventId: d.event_id, timestamp: Math.floor(attemptedAt.getTime() / 1000), body: d.payload }),
    'x-service-event': d.event,
    'x-service-delivery': d.id,
  };
  const base = { deliveryId: d.id, leaseToken: d.lease_token, endpointId: d.endpoint_id, attemptedAt };
  const started = performance.now();
  let response: OutboundResponse;
  try {
    response = await outboundRequest(d.url!, {
      method: 'POST', userAgent: sender.userAgent, headers, body: d.payload,
      timeoutMs: sender.timeoutMs, maxResponseBytes: EXCERPT_BYTES, agent: sender.agent,
    });
  } catch (err) {
    const error = err instanceof OutboundError ? `${err.code}: ${err.message}` : `network_error: ${(err as Error).message}`;
    return {
      ok: false, gone: false, retryAfterMs: null,
      record: { ...base, statusCode: null, durationMs: Math.round(performance.now() - started), responseExcerpt: null, error },
    };
  }
  const status = response.status;
  const ok = status >= 200 && status < 300;
  const location = response.headers.location;
  return {
    ok,
    gone: status === 410,
    retryAfterMs: ok ? null : parseRetryAfter(response.headers['retry-after'], attemptedAt),
    record: {
      ...base,
      statusCode: status,
      durationMs: Math.round(response.durationMs),
      responseExcerpt: excerptText(response.bodyExcerpt),
      error: status >= 300 && status < 400
        ? `redirect not followed${location ? ` (Location: ${String(location).slice(0, 500)})` : ''}` : null,
    },
  };
}

/** The first 4 KB of a response as text (PostgreSQL text holds no NUL characters). */
function excerptText(bytes: Buffer): string | null {
  if (bytes.length === 0) return null;
  return bytes.toString('utf8').replaceAll('\u0000', '\uFFFD');
}
