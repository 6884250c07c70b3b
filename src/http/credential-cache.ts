import type { Actor } from './actor.ts';

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

  async resolve(hash: Buffer, now: number, lookup: (hash: Buffer) => Promise<R>): Promise<R> {
    const cacheKey = hash.toString('base64');
    let entry = this.entries.get(cacheKey);
    if (!entry || entry.expires <= now) {
      const generation = this.generation;
      entry = { result: await lookup(hash), expires: now + this.ttlMs };
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      if (generation === this.generation) this.entries.set(cacheKey, entry);
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
