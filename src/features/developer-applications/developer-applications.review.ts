import type { Config } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { DeveloperApplicationStatus, WebhookDeliveryStatus } from '../../db/schema.ts';
import { ApiKeysRepository } from '../api-keys/api-keys.repository.ts';
import { EventLog } from '../events/events.log.ts';
import type { WebhookDeliveryView } from '../webhooks/webhooks.schemas.ts';
import { UsersRepository } from '../users/users.repository.ts';
import { WorkspacesService } from '../workspaces/workspaces.service.ts';
import type { Mailer } from '../../mail/mailer.ts';
import { keyMail, rejectionMail } from './developer-applications.mail.ts';
import { DeveloperApplicationsRepository } from './developer-applications.repository.ts';
import { listOperatorDeliveries, OPERATOR_ENDPOINT_ID, SYSTEM_WORKSPACE_ID } from './developer-applications.operator-webhook.ts';
import { toOperatorView, type ApplicationRow, type OperatorApplicationView } from './developer-applications.views.ts';

/** A decision the operator may not take (approving twice, approving a rejected one, …): the message says why and what to do. */
export class ReviewRefused extends Error {}

/** How the key (or the rejection) reached the applicant. */
export type Delivery =
  | { via: 'email' }
  /** No SMTP configured: the key is given to the operator, once. */
  | { via: 'printed'; key?: string }
  /** SMTP is configured but sending failed; the key was not shown and is revoked by resend-key. */
  | { via: 'failed'; error: string };

export interface Approval {
  application: OperatorApplicationView;
  workspace: { id: string; name: string };
  user: { id: string; email: string };
  apiKey: { id: string; expires_at: string | null };
  delivery: Delivery;
}

const when = (d: Date | null) => d?.toISOString() ?? 'an unknown time';

/**
 * The operator's side of the developer program (the CLI). Each decision locks the application
 * row, so concurrent decisions take turns and the second sees the first's outcome: an application
 * is approved or rejected once. Approval provisions the workspace, the applicant as its admin and
 * an API key in the same transaction; the key is mailed after the commit, so a mail failure never
 * undoes the approval: `resendKey` revokes the unsent key and sends a fresh one. Each decision
 * is announced to the operator webhook (developer_application.approved / .rejected) by an event
 * written in the decision's transaction.
 */
export class ApplicationReviewService {
  private readonly applications = new DeveloperApplicationsRepository();
  private readonly keys = new ApiKeysRepository();
  private readonly users = new UsersRepository();
  private readonly events = new EventLog();

  constructor(private readonly db: Db, private readonly config: Config, private readonly mailer: Mailer | null) {}

  async list(filters: { status?: DeveloperApplicationStatus; limit: number }): Promise<OperatorApplicationView[]> {
    return (await this.applications.list(this.db, filters)).map((row) => toOperatorView(row));
  }

  /** What the operator webhook was sent, newest first, with each delivery's attempts. */
  deliveries(filters: { status?: WebhookDeliveryStatus; limit: number }): Promise<WebhookDeliveryView[]> {
    return listOperatorDeliveries(this.db, filters);
  }

  async show(id: string): Promise<OperatorApplicationView> {
    return toOperatorView(await this.applications.get(this.db, id) ?? this.missing(id));
  }

  async approve(id: string, options: { workspaceName?: string; keyExpiresAt?: Date | null } = {}): Promise<Approval> {
    const now = new Date();
    const { row, made } = await this.db.transaction().execute(async (tx) => {
      const app = await this.applications.getForUpdate(tx, id) ?? this.missing(id);
      if (app.status === 'approved') {
        throw new ReviewRefused(`Application ${id} was already approved at ${when(app.reviewed_at)} (workspace ${app.workspace_id ?? 'since deleted'}). ` +
          `To send its key again: jobsite applications resend-key ${id}`);
      }
      if (app.status === 'rejected') {
        throw new ReviewRefused(`Application ${id} was rejected at ${when(app.reviewed_at)}; a rejected application cannot be approved. ` +
          'The applicant may apply again.');
      }
      const [first, ...rest] = app.contact_name.split(/\s+/);
      const made = await new WorkspacesService(this.db).provisionIn(tx, {
        name: options.workspaceName ?? app.company_name.slice(0, 200),
        adminEmail: app.email,
        adminFirstName: first?.slice(0, 100),
        adminLastName: rest.length ? rest.join(' ').slice(0, 100) : undefined,
        keyName: 'Developer program key',
        keyExpiresAt: options.keyExpiresAt ?? null,
      });
      const row = await this.applications.update(tx, id, {
        status: 'approved', reviewed_at: now, workspace_id: made.workspace.id, user_id: made.admin.id, api_key_id: made.api_key.id,
        notified_at: null, key_delivery: null,
      }, now);
      await this.announce(tx, 'developer_application.approved', row);
      return { row, made };
    });
    const delivery = await this.deliverKey(row, made.api_key.key, made.workspace.name, made.api_key.expires_at);
    return {
      application: toOperatorView(await this.applications.get(this.db, id) ?? row),
      workspace: { id: made.workspace.id, name: made.workspace.name },
      user: { id: made.admin.id, email: made.admin.email },
      apiKey: { id: made.api_key.id, expires_at: made.api_key.expires_at },
      delivery,
    };
  }

  async reject(id: string, reason: string): Promise<{ application: OperatorApplicationView; delivery: Delivery }> {
    const now = new Date();
    const row = await this.db.transaction().execute(async (tx) => {
      const app = await this.applications.getForUpdate(tx, id) ?? this.missing(id);
      if (app.status === 'rejected') throw new ReviewRefused(`Application ${id} was already rejected at ${when(app.reviewed_at)}.`);
      if (app.status === 'approved') {
        throw new ReviewRefused(`Application ${id} was approved at ${when(app.reviewed_at)} (workspace ${app.workspace_id ?? 'since deleted'}); ` +
          'it can no longer be rejected. Revoke its keys or deactivate its users instead.');
      }
      const row = await this.applications.update(tx, id, { status: 'rejected', reviewed_at: now, rejection_reason: reason }, now);
      await this.announce(tx, 'developer_application.rejected', row);
      return row;
    });
    let delivery: Delivery = { via: 'printed' };
    if (this.mailer) {
      try {
        await this.mailer.send(rejectionMail(row.email, { contactName: row.contact_name, companyName: row.company_name, reason }));
        await this.applications.markNotified(this.db, id, null, 'email', new Date());
        delivery = { via: 'email' };
      } catch (err) {
        delivery = { via: 'failed', error: (err as Error).message };
      }
    }
    return { application: toOperatorView(await this.applications.get(this.db, id) ?? row), delivery };
  }

  /**
   * A fresh key for an approved application, sent like the first: the current key is revoked in
   * the same transaction. A key that already reached the applicant (mailed, or printed for the
   * operator) is replaced only with `force`.
   */
  async resendKey(id: string, options: { force?: boolean; keyExpiresAt?: Date | null } = {}): Promise<Approval> {
    const { row, key, workspaceName, issued } = await this.db.transaction().execute(async (tx) => {
      const app = await this.applications.getForUpdate(tx, id) ?? this.missing(id);
      if (app.status !== 'approved') {
        throw new ReviewRefused(`Application ${id} is ${app.status}; only an approved application has a key to send` +
          (app.status === 'pending' ? ` (approve it: jobsite applications approve ${id}).` : '.'));
      }
      if (app.notified_at && !options.force) {
        throw new ReviewRefused(`The key of application ${id} was ${app.key_delivery === 'email' ? `e-mailed to ${app.email}` : 'printed'} at ${when(app.notified_at)}. ` +
          'To revoke it and send a new one, add --force.');
      }
      const user = app.workspace_id && app.user_id ? await this.users.get(tx, app.workspace_id, app.user_id) : undefined;
      if (!user) throw new ReviewRefused(`The workspace or user that application ${id} created no longer exists.`);
      if (user.status !== 'active') throw new ReviewRefused(`User ${user.id} (${user.email}) is deactivated; reactivate them first.`);
      const workspace = await tx.selectFrom('workspaces').select('name').where('id', '=', user.workspace_id).executeTakeFirstOrThrow();
      if (app.api_key_id) await this.keys.revoke(tx, app.api_key_id);
      const issued = await this.keys.issue(tx, {
        workspaceId: user.workspace_id, userId: user.id, name: 'Developer program key', readOnly: false, createdBy: null,
        expiresAt: options.keyExpiresAt ?? null,
      });
      const now = new Date();
      const row = await this.applications.update(tx, id, { api_key_id: issued.row.id, notified_at: null, key_delivery: null }, now);
      return { row, key: issued.secret, workspaceName: workspace.name, issued: issued.row };
    });
    const delivery = await this.deliverKey(row, key, workspaceName, issued.expires_at?.toISOString() ?? null);
    return {
      application: toOperatorView(await this.applications.get(this.db, id) ?? row),
      workspace: { id: row.workspace_id!, name: workspaceName },
      user: { id: row.user_id!, email: row.email },
      apiKey: { id: issued.id, expires_at: issued.expires_at?.toISOString() ?? null },
      delivery,
    };
  }

  /** Mails the key when SMTP is configured (recording that it was sent); otherwise hands it to the operator. */
  private async deliverKey(app: ApplicationRow, key: string, workspaceName: string, expiresAt: string | null): Promise<Delivery> {
    if (!this.mailer) {
      await this.applications.markNotified(this.db, app.id, app.api_key_id, 'printed', new Date());
      return { via: 'printed', key };
    }
    try {
      await this.mailer.send(keyMail(app.email, {
        contactName: app.contact_name, companyName: app.company_name, workspaceName, key,
        expiresAt: expiresAt ? new Date(expiresAt) : null, publicUrl: this.config.publicUrl,
      }));
    } catch (err) {
      return { via: 'failed', error: (err as Error).message };
    }
    await this.applications.markNotified(this.db, app.id, app.api_key_id, 'email', new Date());
    return { via: 'email' };
  }

  /** To the operator webhook, if one is configured (through the webhook delivery queue, like developer_application.created). */
  private async announce(tx: Executor, event: 'developer_application.approved' | 'developer_application.rejected', row: ApplicationRow): Promise<void> {
    await this.events.emit(tx, { workspaceId: SYSTEM_WORKSPACE_ID, event, projectId: null, data: toOperatorView(row), onlyEndpointId: OPERATOR_ENDPOINT_ID });
  }

  private missing(id: string): never {
    throw new ReviewRefused(`No developer application ${id}.`);
  }
}
