import { useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, type Session } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';

/** E-mail and password, labelled; a failure is shown in words and focus stays in the form; `notice`: news from a reset. */
export function SignIn({ onSignedIn, notice = null }: { onSignedIn(session: Session): void; notice?: string | null }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const emailId = useId();
  const passwordId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await api.signIn(email.trim(), password));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit} aria-labelledby="sign-in-heading" noValidate={false}>
        <h1 id="sign-in-heading">Sign in to Jobsite</h1>
        {notice && !error ? <p className="notice" role="status">{notice}</p> : null}
        {error ? <ErrorMessage error={error} /> : null}
        <label htmlFor={emailId}>E-mail</label>
        <input id={emailId} name="email" type="email" autoComplete="username" inputMode="email" required autoFocus
          value={email} onChange={(e) => setEmail(e.target.value)} />
        <label htmlFor={passwordId}>Password</label>
        <input id={passwordId} name="password" type="password" autoComplete="current-password" required
          value={password} onChange={(e) => setPassword(e.target.value)} />
        <button type="submit" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <p className="links"><Link href="/forgot-password">Forgot your password?</Link></p>
      </form>
    </main>
  );
}
