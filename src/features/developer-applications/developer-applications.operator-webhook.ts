import { sql } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { WebhookDeliveryStatus } from '../../db/schema.ts';
import { checkOutboundUrl, parseAllowList } from '../../http/ssrf-guard.ts';
import type { WebhookDeliveryView } from '../webhooks/webhooks.schemas.ts';
import { WebhooksRepository } from '../webhooks/webhooks.repository.ts';
import { toDeliveryView } from '../webhooks/webhooks.views.ts';

/**
 * The operator webhook (JOBSITE_OPERATOR_WEBHOOK_URL + JOBSITE_OPERATOR_WEBHOOK_SECRET) goes
 * through the same delivery machinery as workspace webhooks: it is an ordinary row of
 * webhook_endpoints, with a fixed id, in the system workspace that migration 007 creates. That
 * workspace has no users and no keys, so no API request can ever see the endpoint, its events or
 * its deliveries; the dispatcher does not care whose endpoint it is, so deliveries get the same
 * signatures, retries, lease, 410 handling and attempt log.
 *
 * The configuration is the source of truth: every API process syncs the row when it starts.
 */
export const SYSTEM_WORKSPACE_ID = 'wsp_00000000000000000000000000';
export const OPERATOR_ENDPOINT_ID = 'whk_00000000000000000000000000';

/** How long the previous secret keeps signing after the operator changes the configured one. */
const SECRET_CHANGE_GRACE_MS = 24 * 3600_000;

/**
 * Makes the operator endpoint match the configuration: created or updated (and enabled again,
 * whatever disabled it) when the URL is set, deleted with its deliveries when not. A changed
 * secret keeps the old one signing alongside for 24 h, as a rotation does. Returns a warning
 * when the URL is one deliveries will be refused to (a non-public address that
 * JOBSITE_WEBHOOK_ALLOW_PRIVATE does not allow), else null.
 */
export async function syncOperatorWebhook(db: Db, config: Config, now = new Date()): Promise<string | null> {
  const hook = config.developerProgram.operatorWebhook;
  if (!hook) {
    await db.deleteFrom('webhook_endpoints').where('id', '=', OPERATOR_ENDPOINT_ID).execute();
    return null;
  }
  await sql`
    insert into webhook_endpoints (id, workspace_id, url, description, events, enabled, secret, created_at, updated_at)
    values (${OPERATOR_ENDPOINT_ID}, ${SYSTEM_WORKSPACE_ID}, ${hook.url}, 'Operator webhook (JOBSITE_OPERATOR_WEBHOOK_URL)',
            array['developer_application.*'], true, ${hook.secret}, ${now}, ${now})
    on conflict (id) do update set
      url = excluded.url,
      enabled = true, disabled_reason = null, disabled_at = null,
      failing_since = case when webhook_endpoints.url = excluded.url and webhook_endpoints.enabled then webhook_endpoints.failing_since end,
      previous_secret = case when webhook_endpoints.secret <> excluded.secret then webhook_endpoints.secret else webhook_endpoints.previous_secret end,
      previous_secret_expires_at = case when webhook_endpoints.secret <> excluded.secret
        then ${new Date(now.getTime() + SECRET_CHANGE_GRACE_MS)}::timestamptz else webhook_endpoints.previous_secret_expires_at end,
      secret = excluded.secret,
      updated_at = case when (webhook_endpoints.url, webhook_endpoints.secret, webhook_endpoints.enabled) is distinct from (excluded.url, excluded.secret, true)
        then excluded.updated_at else webhook_endpoints.updated_at end`.execute(db);
  const check = await checkOutboundUrl(hook.url, parseAllowList(config.webhookAllowPrivate));
  return check.ok ? null
    : `JOBSITE_OPERATOR_WEBHOOK_URL: deliveries will fail: ${check.reason} (add its range to JOBSITE_WEBHOOK_ALLOW_PRIVATE if it is yours)`;
}

/**
 * The operator endpoint's deliveries, newest first, each with its latest attempts: what the CLI's
 * `jobsite applications deliveries` shows (no API request can see them). Kept while their events
 * are (30 days).
 */
export async function listOperatorDeliveries(db: Db, filters: { status?: WebhookDeliveryStatus; limit: number }): Promise<WebhookDeliveryView[]> {
  const webhooks = new WebhooksRepository();
  const rows = (await webhooks.listDeliveries(db, OPERATOR_ENDPOINT_ID, { limit: filters.limit, status: filters.status }, null)).slice(0, filters.limit);
  const attempts = await webhooks.attemptsOf(db, rows.map((r) => r.id));
  return rows.map((r) => toDeliveryView(r, attempts.get(r.id) ?? []));
}
