import { sql } from 'kysely';
import type { Db } from '../db/database.ts';
import { SYSTEM_WORKSPACE_ID } from '../features/developer-applications/developer-applications.operator-webhook.ts';

/**
 * What a first start on an empty database tells the operator: there is nobody to sign in yet, so
 * say how to make the first workspace and key, and where the reference is. Null once a workspace
 * exists (the operator's system workspace does not count).
 */
export async function firstRunHint(db: Db, publicUrl: string): Promise<string | null> {
  const { rows } = await sql<{ any: boolean }>`
    select exists (select 1 from workspaces where id <> ${SYSTEM_WORKSPACE_ID}) as any`.execute(db);
  if (rows[0]?.any) return null;
  return [
    'No workspace yet. Next, in another terminal:',
    '  npm run jobsite -- workspace create --name "Acme Builders" --admin-email you@example.com',
    `It prints an API key; the API reference is at ${publicUrl}/docs.`,
  ].join('\n');
}
