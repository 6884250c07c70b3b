import type { Db, Executor } from '../../db/database.ts';
import { clientBucket } from '../../http/client-address.ts';
import { ApiError } from '../../http/errors.ts';
import type { RateLimiter } from '../../http/rate-limit.ts';
import type { SessionAuthenticator } from '../../http/session-auth.ts';
import { hashSecret, isWellFormedSecret, newSecret } from '../../http/session-secret.ts';
import type { Mailer } from '../../mail/mailer.ts';
import type { EventLog } from '../events/events.log.ts';
import { toUserView, type UserRow } from '../users/users.views.ts';
import { WorkspacesRepository } from '../workspaces/workspaces.repository.ts';
import { hashPassword } from './passwords.ts';
import { invitationMail, resetMail } from './sessions.mail.ts';
import type { InvitationAcceptInput, InvitationView } from './sessions.schemas.ts';
import { SessionsRepository } from './sessions.repository.ts';

export const INVITE_TTL_MS = 72 * 3600_000;
export const RESET_TTL_MS = 3600_000;

const tokenNotFound = (): never => { throw new ApiError(404, 'token_not_found', 'Not found', 'This link is not one we issued; ask for a new one.'); };
const tokenGone = (code: 'token_expired' | 'token_used', detail: string): never => { throw new ApiError(410, code, 'Gone', detail); };

export interface IssuedInvitation {
  invite_url: string;
  invite_expires_at: string;
  /** True when the link was also e-mailed to the person (SMTP configured and the mail server took it). */
  invite_emailed: boolean;
}

/**
 * The single-use links that set a password: an invitation (72 hours, made with the user) and a
 * reset (1 hour, asked for by e-mail address). Only their SHA-256 is stored; issuing one makes
 * the user's earlier one of the same kind stop working.
 */
export class PasswordTokens {
  private readonly repo = new SessionsRepository();

  constructor(
    private readonly db: Db,
    /** The CLI, which only invites, has no session cache nor reset limiter. */
    private readonly deps: {
      publicUrl: string; mailer: Mailer | null; log: { warn(details: object, message: string): void };
      sessions?: SessionAuthenticator; resetLimiter?: RateLimiter; events?: EventLog;
    },
  ) {}

  /** Inside the transaction that made (or re-invites) the user; the mail goes after the commit (`mailInvitation`). */
  async issueInvitation(tx: Executor, userId: string): Promise<{ token: string; url: string; expiresAt: Date }> {
    const token = newSecret();
    const expiresAt = new Date(Date.now() + INVITE_TTL_MS);
    await this.repo.issueToken(tx, { token_hash: hashSecret(token), user_id: userId, kind: 'invite', expires_at: expiresAt });
    return { token, url: `${this.deps.publicUrl}/invite/${token}`, expiresAt };
  }

  async mailInvitation(user: UserRow, invitation: { url: string; expiresAt: Date }, workspaceName: string, invitedBy: string | null): Promise<IssuedInvitation> {
    let emailed = false;
    if (this.deps.mailer) {
      try {
        await this.deps.mailer.send(invitationMail(user.email, { workspaceName, url: invitation.url, invitedBy }));
        emailed = true;
      } catch (err) {
        this.deps.log.warn({ err, userId: user.id }, 'could not e-mail the invitation; the admin has its link');
      }
    }
    return { invite_url: invitation.url, invite_expires_at: invitation.expiresAt.toISOString(), invite_emailed: emailed };
  }

  async describeInvitation(token: string): Promise<InvitationView> {
    const row = await this.usable(token, 'invite');
    return {
      email: row.email, first_name: row.first_name, last_name: row.last_name,
      workspace: { id: row.workspace_id, name: row.workspace_name }, expires_at: row.expires_at.toISOString(),
    };
  }

  /** Sets the password (and names) and uses the token up; returns the user, whom the caller signs in. */
  async acceptInvitation(token: string, input: InvitationAcceptInput): Promise<string> {
    const row = await this.usable(token, 'invite');
    const passwordHash = await hashPassword(input.password);
    await this.db.transaction().execute(async (tx) => {
      if (!await this.repo.useToken(tx, hashSecret(token))) tokenGone('token_used', 'This invitation was already used; sign in, or ask for a password reset.');
      const names = {
        ...(input.first_name && input.first_name !== row.first_name ? { first_name: input.first_name } : {}),
        ...(input.last_name && input.last_name !== row.last_name ? { last_name: input.last_name } : {}),
      };
      const user = await this.repo.setPassword(tx, row.user_id, passwordHash, names);
      // The names are part of the user as the API shows it; the password is not (no event for it).
      if (Object.keys(names).length && this.deps.events) {
        await this.deps.events.emit(tx, { workspaceId: user.workspace_id, event: 'user.updated', projectId: null, data: toUserView(user) });
      }
    });
    return row.user_id;
  }

  /**
   * Always the same answer (202), whether or not the address is known: a link is e-mailed to each
   * active user with that address when SMTP is configured, in the background (so the answer takes
   * the same time either way), at most as often as the reset limiter allows.
   */
  async requestReset(email: string, address: string): Promise<void> {
    if (!this.deps.mailer || !this.deps.resetLimiter) return;
    const byEmail = await this.deps.resetLimiter.hit(`signin:reset:${email.toLowerCase()}`);
    const byAddress = await this.deps.resetLimiter.hit(`signin:reset-from:${clientBucket(address)}`);
    if (!byEmail.allowed || !byAddress.allowed) return;
    void this.sendResets(email).catch((err: unknown) => this.deps.log.warn({ err }, 'could not e-mail a password reset'));
  }

  private async sendResets(email: string): Promise<void> {
    const users = await this.repo.activeUsersByEmail(this.db, email);
    for (const user of users) {
      const token = newSecret();
      await this.repo.issueToken(this.db, { token_hash: hashSecret(token), user_id: user.id, kind: 'reset', expires_at: new Date(Date.now() + RESET_TTL_MS) });
      const workspace = await new WorkspacesRepository().get(this.db, user.workspace_id);
      await this.deps.mailer!.send(resetMail(user.email, { workspaceName: workspace?.name ?? 'Jobsite', url: `${this.deps.publicUrl}/reset/${token}` }));
    }
  }

  /** Sets the new password, uses the token up, and ends every session of the user. */
  async resetPassword(token: string, password: string): Promise<void> {
    const row = await this.usable(token, 'reset');
    const passwordHash = await hashPassword(password);
    await this.db.transaction().execute(async (tx) => {
      if (!await this.repo.useToken(tx, hashSecret(token))) tokenGone('token_used', 'This reset link was already used; ask for a new one.');
      await this.repo.setPassword(tx, row.user_id, passwordHash);
      await this.repo.deleteAllOfUser(tx, row.user_id);
    });
    this.deps.sessions?.forget({ userId: row.user_id });
  }

  private async usable(token: string, kind: 'invite' | 'reset') {
    if (!isWellFormedSecret(token)) return tokenNotFound();
    const row = await this.repo.getToken(this.db, hashSecret(token), kind) ?? tokenNotFound();
    const what = kind === 'invite' ? 'invitation' : 'reset link';
    if (row.used_at) tokenGone('token_used', `This ${what} was already used.`);
    if (row.expires_at.getTime() <= Date.now()) tokenGone('token_expired', `This ${what} has expired; ask for a new one.`);
    if (row.status !== 'active') tokenGone('token_expired', `This ${what} no longer works: the user was deactivated.`);
    return row;
  }
}
