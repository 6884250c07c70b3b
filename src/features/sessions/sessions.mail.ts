import type { MailMessage } from '../../mail/mailer.ts';

/** The e-mails of sign-in: an invitation to set a password, and a password reset link. */

export function invitationMail(to: string, input: { workspaceName: string; url: string; invitedBy: string | null }): MailMessage {
  return {
    to,
    subject: `You are invited to ${input.workspaceName} on Jobsite`,
    text: [
      'Hello,',
      '',
      `${input.invitedBy ?? 'An administrator'} added you to "${input.workspaceName}" on Jobsite.`,
      'Choose your password here (the link works once, for 72 hours):',
      '',
      `    ${input.url}`,
      '',
      'If you did not expect this, ignore this e-mail.',
    ].join('\n'),
  };
}

export function resetMail(to: string, input: { workspaceName: string; url: string }): MailMessage {
  return {
    to,
    subject: 'Reset your Jobsite password',
    text: [
      'Hello,',
      '',
      `Someone asked to reset your password for "${input.workspaceName}" on Jobsite.`,
      'Choose a new one here (the link works once, for 1 hour):',
      '',
      `    ${input.url}`,
      '',
      'Setting a new password signs you out everywhere. If you did not ask for this, ignore this e-mail:',
      'your password stays as it is.',
    ].join('\n'),
  };
}
