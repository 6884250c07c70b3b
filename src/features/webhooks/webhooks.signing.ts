import crypto from 'node:crypto';

/**
 * Delivery signatures. Every delivery carries two independent schemes over the exact body bytes:
 *
 * - GitHub style: `X-Service-Signature: sha256=<hex HMAC-SHA256(key = the secret string's UTF-8
 *   bytes, message = body)>` (what `@octokit/webhooks-methods` verifies). It can carry one
 *   signature, so it uses the current secret; during a rotation the previous secret's signature
 *   is in `X-Service-Signature-Previous`.
 * - Standard Webhooks: `webhook-id` (the event id, the same on every retry), `webhook-timestamp`
 *   (unix seconds of this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256(key = the
 *   base64-decoded part of the secret after `whsec_`, message = "<id>.<timestamp>.<body>")>`,
 *   space-separated for each valid secret (what the `standardwebhooks` package verifies).
 */
const SECRET_PREFIX = 'whsec_';

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + crypto.randomBytes(32).toString('base64');
}

function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

export function githubSignature(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex')}`;
}

export function standardSignature(secret: string, eventId: string, timestamp: number, body: string): string {
  return `v1,${crypto.createHmac('sha256', standardKey(secret)).update(`${eventId}.${timestamp}.${body}`).digest('base64')}`;
}

export interface SigningInput {
  /** The current secret first; the previous one (during a rotation) second. */
  secrets: readonly string[];
  eventId: string;
  /** Unix seconds of this attempt. */
  timestamp: number;
  body: string;
}

export function signatureHeaders({ secrets, eventId, timestamp, body }: SigningInput): Record<string, string> {
  const [current, previous] = secrets;
  if (!current) throw new Error('signatureHeaders needs at least one secret');
  const headers: Record<string, string> = {
    'x-service-signature': githubSignature(current, body),
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => standardSignature(s, eventId, timestamp, body)).join(' '),
  };
  if (previous) headers['x-service-signature-previous'] = githubSignature(previous, body);
  return headers;
}
