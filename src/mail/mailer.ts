import nodemailer from 'nodemailer';
import type { Config } from '../config.ts';

/** An e-mail from Jobsite: plain text, nothing else. */
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
 * not set. Timeouts are short: someone is waiting (an operator at a terminal, an admin inviting a
 * user), and a failed mail can always be sent again (a new invitation, `resend-key`).
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
