import crypto from 'node:crypto';
import type { Actor } from './actor.ts';

/**
 * A secret's SHA-256 as base64: the cache's key, the same bytes as the stored hash. One-shot
 * hashing to a string costs a fifth of a Hash object and a Buffer (it runs on every request).
 */
export const digestOf = (secret: string): string => crypto.hash('sha256', secret, 'base64');

/**
 * A few seconds' memory of what credential hashes (API keys, session cookies) resolved to, so the
 * hot path does not query on every request. Revocation therefore reaches other processes within
 * `ttlMs`; the process that revoked forgets at once. A lookup that was in flight while something
 * was forgotten may be stale, so it is used but not kept.
 */
export class CredentialCache<R extends { state: string; actor?: Actor }> {
  private readonly entries = new Map<string, { result: R; expires: number }>();
  private generation = 0;

  constructor(private readonly ttlMs: number, private readonly maxEntries: number) {}

  /** `digest`: the secret's SHA-256 in base64 (digestOf); `lookup` gets it as bytes, the stored form. */
  async resolve(digest: string, now: number, lookup: (hash: Buffer) => Promise<R>): Promise<R> {
    let entry = this.entries.get(digest);
    if (!entry || entry.expires <= now) {
      const generation = this.generation;
      entry = { result: await lookup(Buffer.from(digest, 'base64')), expires: now + this.ttlMs };
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      if (generation === this.generation) this.entries.set(digest, entry);
    }
    return entry.result;
  }

  /** Drops every resolved entry whose actor `matches` (a revoked key or session, a deactivated user). */
  forget(matches: (actor: Actor) => boolean): void {
    this.generation++;
    for (const [k, { result }] of this.entries) {
      if (result.state === 'ok' && result.actor && matches(result.actor)) this.entries.delete(k);
    }
  }
}
