import type { Config } from '../config.ts';
import { createMailer } from '../mail/mailer.ts';
import { ApplicationReviewService, ReviewRefused, type Approval, type Delivery } from '../features/developer-applications/developer-applications.review.ts';
import type { OperatorApplicationView } from '../features/developer-applications/developer-applications.views.ts';
import { withDatabase } from './admin.actions.ts';
import { CliError } from './errors.ts';

/** Exit code of a decision that was recorded, but whose e-mail to the applicant failed. */
export const MAIL_FAILED_EXIT = 3;

/**
 * `jobsite applications …`: the operator's review of developer applications. A refused decision
 * (approving twice, approving a rejected application, an unknown id) exits with 1 and says why.
 */
async function withReview<T>(config: Config, work: (review: ApplicationReviewService) => Promise<T>): Promise<T> {
  const mailer = createMailer(config);
  try {
    return await withDatabase(config, (db) => work(new ApplicationReviewService(db, config, mailer)));
  } catch (err) {
    if (err instanceof ReviewRefused) throw new CliError(err.message, 1);
    throw err;
  } finally {
    mailer?.close();
  }
}

const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

export async function listApplications(config: Config, opts: { status?: 'pending' | 'approved' | 'rejected'; limit: number; json?: boolean }): Promise<void> {
  const list = await withReview(config, (r) => r.list({ status: opts.status, limit: opts.limit }));
  if (opts.json) return console.log(JSON.stringify(list, null, 2));
  if (!list.length) return console.log(opts.status ? `No ${opts.status} applications.` : 'No applications.');
  for (const a of list) console.log([a.id, a.status.padEnd(8), day(a.created_at), a.email, a.company_name].join('  '));
}

export async function listOperatorDeliveries(config: Config, opts: { status?: 'pending' | 'succeeded' | 'failed'; limit: number; json?: boolean }): Promise<void> {
  const list = await withReview(config, (r) => r.deliveries({ status: opts.status, limit: opts.limit }));
  if (opts.json) return console.log(JSON.stringify(list, null, 2));
  if (!list.length) {
    const configured = config.developerProgram.operatorWebhook !== null;
    return console.log(`No ${opts.status ? `${opts.status} ` : ''}deliveries to the operator webhook.` +
      (configured ? '' : ' (JOBSITE_OPERATOR_WEBHOOK_URL is not set here; the API processes sync the webhook from their own configuration.)'));
  }
  const width = Math.max(...list.map((d) => d.event.length));
  for (const d of list) {
    const last = d.last_error ?? (d.last_status_code !== null ? `HTTP ${d.last_status_code}` : 'not attempted yet');
    console.log([
      d.id, d.status.padEnd(9), day(d.created_at), d.event.padEnd(width),
      `${d.attempt_count} attempt${d.attempt_count === 1 ? ' ' : 's'}`, last,
      ...(d.next_attempt_at ? [`next ${day(d.next_attempt_at)}`] : []),
    ].join('  '));
  }
}

function describe(a: OperatorApplicationView): string {
  return [
    `Application  ${a.id}  (${a.status})`,
    `Company      ${a.company_name}${a.website ? `  ${a.website}` : ''}`,
    `Contact      ${a.contact_name} <${a.email}>`,
    `Submitted    ${a.created_at}${a.client_ip ? ` from ${a.client_ip}` : ''}`,
    ...(a.expected_monthly_requests !== null ? [`Requests     about ${a.expected_monthly_requests} a month`] : []),
    ...(a.reviewed_at ? [`Reviewed     ${a.reviewed_at}`] : []),
    ...(a.rejection_reason !== null ? [`Reason       ${a.rejection_reason}`] : []),
    ...(a.workspace_id ? [`Workspace    ${a.workspace_id}  admin ${a.user_id}  key ${a.api_key_id}`] : []),
    ...(a.status !== 'pending'
      ? [`Applicant    ${a.notified_at ? `${a.key_delivery === 'printed' ? 'key printed for the operator' : 'e-mailed'} at ${a.notified_at}` : 'not told yet'}`] : []),
    'Intended use:',
    ...a.intended_use.split('\n').map((line) => `  ${line}`),
  ].join('\n');
}

export async function showApplication(config: Config, id: string, opts: { json?: boolean }): Promise<void> {
  const app = await withReview(config, (r) => r.show(id));
  console.log(opts.json ? JSON.stringify(app, null, 2) : describe(app));
}

const expiry = (seconds: number | undefined) => (seconds ? new Date(Date.now() + seconds * 1000) : null);

/** Prints what a key delivery came to, and fails with exit code 3 if the e-mail did not go. */
function reportKey(result: Approval, verb: string, json: boolean | undefined): void {
  const { application: a, delivery } = result;
  if (json) {
    console.log(JSON.stringify({
      application: a, workspace: result.workspace, user: result.user,
      api_key: { ...result.apiKey, ...(delivery.via === 'printed' ? { key: delivery.key } : {}) },
      delivery: delivery.via, ...(delivery.via === 'failed' ? { error: delivery.error } : {}),
    }, null, 2));
  } else {
    console.log([
      `${verb.padEnd(11)}${a.id}  ${a.company_name}`,
      `Workspace  ${result.workspace.id}  ${result.workspace.name}`,
      `Admin      ${result.user.id}  ${result.user.email}`,
      delivery.via === 'printed' ? `API key    ${delivery.key}` : `API key    ${result.apiKey.id}`,
      ...(result.apiKey.expires_at ? [`Expires    ${result.apiKey.expires_at}`] : []),
      '',
      delivery.via === 'email' ? `The key was e-mailed to ${a.email}.`
        : delivery.via === 'printed' ? `No e-mail was sent (JOBSITE_SMTP_URL is not set): give the key to ${a.email} yourself. It is shown only now.`
          : `The key was NOT sent: see below.`,
    ].join('\n'));
  }
  mailFailure(delivery, `${a.id} is ${a.status}, but the e-mail with its key to ${a.email} could not be sent: `,
    `The key was not shown. Once mail works, run: jobsite applications resend-key ${a.id}  (it revokes the unsent key and sends a new one)`);
}

function mailFailure(delivery: Delivery, what: string, next: string): void {
  if (delivery.via === 'failed') throw new CliError(`${what}${delivery.error}\n${next}`, MAIL_FAILED_EXIT);
}

export async function approveApplication(config: Config, id: string, opts: { workspaceName?: string; keyExpiresIn?: number; json?: boolean }): Promise<void> {
  const result = await withReview(config, (r) => r.approve(id, { workspaceName: opts.workspaceName, keyExpiresAt: expiry(opts.keyExpiresIn) }));
  reportKey(result, 'Approved', opts.json);
}

export async function resendKey(config: Config, id: string, opts: { force?: boolean; keyExpiresIn?: number; json?: boolean }): Promise<void> {
  const result = await withReview(config, (r) => r.resendKey(id, { force: opts.force, keyExpiresAt: expiry(opts.keyExpiresIn) }));
  reportKey(result, 'New key', opts.json);
}

export async function rejectApplication(config: Config, id: string, opts: { reason: string; json?: boolean }): Promise<void> {
  const { application: a, delivery } = await withReview(config, (r) => r.reject(id, opts.reason));
  if (opts.json) {
    console.log(JSON.stringify({ application: a, delivery: delivery.via, ...(delivery.via === 'failed' ? { error: delivery.error } : {}) }, null, 2));
  } else {
    console.log([
      `Rejected   ${a.id}  ${a.company_name}`,
      delivery.via === 'email' ? `The reason was e-mailed to ${a.email}.`
        : delivery.via === 'printed' ? `No e-mail was sent (JOBSITE_SMTP_URL is not set): tell ${a.email} yourself; their status lookup shows "rejected".`
          : 'The applicant was NOT told: see below.',
    ].join('\n'));
  }
  mailFailure(delivery, `${a.id} is rejected, but the e-mail to ${a.email} could not be sent: `, 'Tell the applicant yourself; their status lookup shows "rejected".');
}
