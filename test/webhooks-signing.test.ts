import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeaders } from '../src/features/webhooks/webhooks.signing.ts';

describe('webhook signatures', () => {
  const body = JSON.stringify({ id: 'evt_1', event: 'project.created', data: { name: 'Zoë’s "remodel" ✓' } });
  const now = () => Math.floor(Date.now() / 1000);

  it('makes whsec_ secrets of 32 random bytes', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), 'base64').length, 32);
    assert.notEqual(secret, generateWebhookSecret());
  });

  it('is accepted by @octokit/webhooks-methods and by standardwebhooks', async () => {
    const secret = generateWebhookSecret();
    const headers = signatureHeaders({ secrets: [secret], eventId: 'evt_1', timestamp: now(), body });
    assert.equal(await verify(secret, body, headers['x-service-signature']!), true);
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
  });

  it('fails both verifiers for another secret or a changed body', async () => {
    const secret = generateWebhookSecret();
    const headers = signatureHeaders({ secrets: [secret], eventId: 'evt_1', timestamp: now(), body });
    const other = generateWebhookSecret();
    assert.equal(await verify(other, body, headers['x-service-signature']!), false);
    assert.throws(() => new Webhook(other).verify(body, headers));
    assert.equal(await verify(secret, `${body} `, headers['x-service-signature']!), false);
    assert.throws(() => new Webhook(secret).verify(`${body} `, headers));
  });

  it('signs with both secrets during a rotation, so either verifies', async () => {
    const current = generateWebhookSecret();
    const previous = generateWebhookSecret();
    const headers = signatureHeaders({ secrets: [current, previous], eventId: 'evt_1', timestamp: now(), body });
    assert.equal(headers['webhook-signature']!.split(' ').length, 2);
    assert.ok(new Webhook(current).verify(body, headers));
    assert.ok(new Webhook(previous).verify(body, headers));
    assert.equal(await verify(current, body, headers['x-service-signature']!), true);
    assert.equal(await verify(previous, body, headers['x-service-signature-previous']!), true);
  });
});
