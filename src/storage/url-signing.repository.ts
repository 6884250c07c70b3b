import crypto from 'node:crypto';
import type { Db } from '../db/database.ts';

/**
 * The secret that signs file URLs: JOBSITE_URL_SIGNING_SECRET when the operator set one, else the
 * one row of `url_signing_secret`, which the first process to start creates (32 random bytes) and
 * every later one reads, so that all API processes agree without any configuration.
 */
export async function loadUrlSigningSecret(db: Db, override: string | null): Promise<Buffer> {
  if (override !== null) return Buffer.from(override, 'utf8');
  await db.insertInto('url_signing_secret')
    .values({ secret: crypto.randomBytes(32) })
    .onConflict((oc) => oc.doNothing())
    .execute();
  const row = await db.selectFrom('url_signing_secret').select('secret').executeTakeFirstOrThrow();
  return row.secret;
}
