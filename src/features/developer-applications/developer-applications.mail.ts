import nodemailer from 'nodemailer';
import type { Config } from '../../config.ts';

/** An e-mail to an applicant: plain text, nothing else. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Sends mail (the adapter in front of SMTP); rejects when the mail server did not take it. */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/**
 * An SMTP mailer from JOBSITE_SMTP_URL and JOBSITE_MAIL_FROM (nodemailer), or null when they are
 * not set. Timeouts are short: the operator is waiting at a terminal, and a failure only means
 * the key is sent again later (`jobsite applications resend-key`).
 */
export function createMailer(config: Config): Mailer | null {
  const { smtpUrl, mailFrom } = config.developerProgram;
  if (!smtpUrl || !mailFrom) return null;
  const transport = nodemailer.createTransport(
    { url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000, dnsTimeout: 10_000 },
    { from: mailFrom },
  );
  return {
    async send(message) {
      const info = await transport.sendMail({ ...message, headers: { 'Auto-Submitted': 'auto-generated' } });
      if (info.rejected.length > 0) throw new Error(`the mail server refused ${info.rejected.join(', ')}`);
    },
    close: () => transport.close(),
  };
}

interface KeyMailInput {
  contactName: string;
  companyName: string;
  workspaceName: string;
  key: string;
  expiresAt: Date | null;
  publicUrl: string;
}

export function keyMail(to: string, input: KeyMailInput): MailMessage {
  return {
    to,
    subject: 'Your Jobsite API key',
    text: [
      `Hello ${input.contactName},`,
      '',
      `Your application for API access for ${input.companyName} was approved. Your workspace "${input.workspaceName}" is ready,`,
      'with you as its admin. Here is your API key:',
      '',
      `    ${input.key}`,
      '',
      'Keep it secret: it is shown only in this e-mail, and we keep only a hash of it.',
      ...(input.expiresAt ? [`It works until ${input.expiresAt.toISOString()}.`] : []),
      '',
      `Base URL:       ${input.publicUrl}/v1`,
      `API reference:  ${input.publicUrl}/docs`,
      '',
      'Try it:',
      '',
      `    curl -H "Authorization: Bearer ${input.key}" ${input.publicUrl}/v1/users/me`,
      '',
      'You can create more keys, rotate this one (POST /v1/api-keys/{id}/rotate) or revoke it through the API.',
    ].join('\n'),
  };
}

export function rejectionMail(to: string, input: { contactName: string; companyName: string; reason: string }): MailMessage {
  return {
    to,
    subject: 'Your Jobsite API application',
    text: [
      `Hello ${input.contactName},`,
      '',
      `Thank you for applying for API access for ${input.companyName}. We cannot approve the application.`,
      '',
      'The reason:',
      '',
      ...input.reason.split('\n').map((line) => `    ${line}`),
      '',
      'You may apply again.',
    ].join('\n'),
  };
}
