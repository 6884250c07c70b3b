import type { MailMessage } from '../../mail/mailer.ts';

/** The developer program's e-mails to applicants (sent through src/mail/mailer.ts). */

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
