import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { api, ApiProblem, type Invitation, type Session } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { PasswordField, passwordProblem, refusePassword } from './PasswordField.tsx';

/** A link that does not work (404/410), in words, with the way forward. */
export function DeadLink({ error, kind }: { error: ApiProblem; kind: 'invite' | 'reset' }) {
  const used = error.code === 'token_used';
  const expired = error.code === 'token_expired';
  const title = kind === 'invite'
    ? used ? 'This invitation has already been used' : expired ? 'This invitation has expired' : 'This invitation link does not work'
    : used ? 'This reset link has already been used' : expired ? 'This reset link has expired' : 'This reset link does not work';
  return (
    <div role="alert">
      <h1>{title}</h1>
      {kind === 'invite' ? (
        used
          ? <p>The password for this account is already set. Sign in with it, or ask for a reset link if you have forgotten it.</p>
          : <p>{expired ? 'Invitations work for 72 hours.' : 'Check that the whole link from the e-mail was opened.'} Ask the person who invited you to send a new invitation.</p>
      ) : (
        <p>{used ? 'Each reset link works once.' : expired ? 'Reset links work for one hour.' : 'Check that the whole link from the e-mail was opened.'} Ask for a new link below.</p>
      )}
      <p className="links">
        <Link href="/">Sign in</Link>
        <Link href="/forgot-password">Forgot your password?</Link>
      </p>
    </div>
  );
}

export function isDeadLink(error: unknown): error is ApiProblem {
  return error instanceof ApiProblem && (error.status === 404 || error.status === 410);
}

/** /invite/{token}: greets the invited person, takes their name and a password, signs them in. */
export function InvitePage({ token, onSignedIn }: { token: string; onSignedIn(session: Session): void }) {
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [firstName, setFirstName] = useState('');
  const [lastName, setLastName] = useState('');
  const [password, setPassword] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const firstId = useId();
  const lastId = useId();

  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    setLoadError(null);
    api.invitation(token).then(
      (inv) => {
        if (!live) return;
        setInvitation(inv);
        setFirstName(inv.first_name ?? '');
        setLastName(inv.last_name ?? '');
      },
      (err) => live && setLoadError(err),
    );
    return () => { live = false; };
  }, [token, attempt]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (refusePassword(event, password, setProblem)) return;
    setBusy(true);
    try {
      const body: { password: string; first_name?: string; last_name?: string } = { password };
      if (firstName.trim()) body.first_name = firstName.trim();
      if (lastName.trim()) body.last_name = lastName.trim();
      onSignedIn(await api.acceptInvitation(token, body));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  if (loadError || isDeadLink(error)) {
    const e = isDeadLink(error) ? error : loadError;
    return (
      <main className="sign-in">
        <div className="card">
          {isDeadLink(e) ? <DeadLink error={e} kind="invite" /> : (
            <>
              <h1>Jobsite</h1>
              <ErrorMessage error={e} />
              <button type="button" onClick={() => setAttempt((n) => n + 1)}>Try again</button>
            </>
          )}
        </div>
      </main>
    );
  }
  if (!invitation) return <p className="centered" role="status">Loading…</p>;

  return (
    <main className="sign-in">
      <form className="card" onSubmit={submit} aria-labelledby="invite-heading" noValidate>
        <h1 id="invite-heading">Welcome to {invitation.workspace.name}</h1>
        <p>You are invited to join <strong>{invitation.workspace.name}</strong> on Jobsite as <strong className="email">{invitation.email}</strong>. Choose a password to sign in with.</p>
        {error ? <ErrorMessage error={error} /> : null}
        <label htmlFor={firstId}>First name</label>
        <input id={firstId} name="given-name" autoComplete="given-name" maxLength={100} value={firstName} onChange={(e) => setFirstName(e.target.value)} />
        <label htmlFor={lastId}>Last name</label>
        <input id={lastId} name="family-name" autoComplete="family-name" maxLength={100} value={lastName} onChange={(e) => setLastName(e.target.value)} />
        {/* For password managers: the account the new password belongs to. */}
        <input type="email" name="email" autoComplete="username" value={invitation.email} readOnly hidden />
        <PasswordField label="Password" value={password} onChange={(v) => { setPassword(v); if (problem) setProblem(passwordProblem(v)); }} problem={problem} />
        <button type="submit" disabled={busy}>{busy ? 'Joining…' : 'Join and sign in'}</button>
      </form>
    </main>
  );
}
