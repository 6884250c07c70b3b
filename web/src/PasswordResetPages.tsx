import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { DeadLink, isDeadLink } from './InvitePage.tsx';
import { PasswordField, passwordProblem, refusePassword } from './PasswordField.tsx';
import { useAction } from './useAction.ts';

/** /forgot-password: asks for the e-mail; the answer never tells whether the account exists. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const action = useAction();
  const emailId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    await action.run(async () => {
      await api.requestPasswordReset(email.trim());
      setSentTo(email.trim());
    });
  }

  if (sentTo) {
    return (
      <main className="sign-in">
        <div className="card" role="status">
          <h1>Check your e-mail</h1>
          <p>If an account exists for <strong className="email">{sentTo}</strong>, we sent a link to set a new password. It works for one hour.</p>
          <p className="muted">No e-mail after a few minutes? Check the spam folder, or ask your administrator.</p>
          <p className="links"><Link href="/">Back to sign in</Link></p>
        </div>
      </main>
    );
  }
  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit} aria-labelledby="forgot-heading">
        <h1 id="forgot-heading">Forgot your password?</h1>
        <p>Enter the e-mail address you sign in with, and we will send you a link to set a new password.</p>
        {action.error ? <ErrorMessage error={action.error} /> : null}
        <label htmlFor={emailId}>E-mail</label>
        <input id={emailId} name="email" type="email" autoComplete="username" inputMode="email" required autoFocus maxLength={254}
          value={email} onChange={(e) => setEmail(e.target.value)} />
        <button type="submit" disabled={action.busy}>{action.busy ? 'Sending…' : 'Send the link'}</button>
        <p className="links"><Link href="/">Back to sign in</Link></p>
      </form>
    </main>
  );
}

/** /reset/{token}: a new password; then back to sign-in with a success message. */
export function ResetPasswordPage({ token, onDone }: { token: string; onDone(): void }) {
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (refusePassword(event, password, setProblem)) return;
    setBusy(true);
    try {
      await api.resetPassword(token, password);
      onDone();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  if (isDeadLink(error)) {
    return <main className="sign-in"><div className="card"><DeadLink error={error} kind="reset" /></div></main>;
  }
  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit} aria-labelledby="reset-heading" noValidate>
        <h1 id="reset-heading">Set a new password</h1>
        <p>Choose a new password. Every device signed in with the old one will be signed out.</p>
        {error ? <ErrorMessage error={error} /> : null}
        <PasswordField label="New password" value={password} onChange={(v) => { setPassword(v); if (problem) setProblem(passwordProblem(v)); }} problem={problem} />
        <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Set the new password'}</button>
      </form>
    </main>
  );
}
