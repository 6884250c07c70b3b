import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ApiProblem, displayName, type User } from '../../api.ts';
import { ErrorMessage } from '../../ErrorMessage.tsx';
import { apiKeysApi, type ApiKeyWithSecret, type NewApiKey, type WorkspaceUser } from './apiKeysApi.ts';

type Expiry = 'never' | '30' | '90' | '365' | 'date';

const DAY_MS = 86_400_000;

/** yyyy-mm-dd of a day in the viewer's time zone (what <input type="date"> speaks). */
function isoDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** When a key made now with this choice stops working; null: never. A date means its start, in the viewer's time zone. */
export function expiryTime(expiry: Expiry, date: string, now = Date.now()): Date | null {
  if (expiry === 'never') return null;
  if (expiry === 'date') return date ? new Date(`${date}T00:00`) : null;
  return new Date(now + Number(expiry) * DAY_MS);
}

/**
 * A new key: its name, read-only or not, when it expires and (admins) whose it is. The secret the
 * API answers goes straight to the parent, which shows it once.
 */
export function CreateKeyForm({ me, users, onCreated, onCancel }: {
  me: User;
  /** Admins: the active users a key may be made for; null for everyone else (their own keys only). */
  users: WorkspaceUser[] | null;
  onCreated: (key: ApiKeyWithSecret) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState('');
  const [readOnly, setReadOnly] = useState(false);
  const [expiry, setExpiry] = useState<Expiry>('never');
  const [date, setDate] = useState('');
  const [owner, setOwner] = useState(me.id);
  const [problem, setProblem] = useState<{ field: 'name' | 'date' | null; words: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const nameRef = useRef<HTMLInputElement>(null);
  const dateRef = useRef<HTMLInputElement>(null);
  const tomorrow = isoDay(new Date(Date.now() + DAY_MS));

  useEffect(() => {
    nameRef.current?.focus();
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    if (!name.trim()) {
      setProblem({ field: 'name', words: 'Enter a name: what the key is for, e.g. “CI deploys”.' });
      nameRef.current?.focus();
      return;
    }
    const expiresAt = expiryTime(expiry, date);
    if (expiry === 'date' && (!expiresAt || expiresAt.getTime() <= Date.now())) {
      setProblem({ field: 'date', words: 'Choose a day after today.' });
      dateRef.current?.focus();
      return;
    }
    setProblem(null);
    const body: NewApiKey = { name: name.trim(), read_only: readOnly };
    if (expiresAt) body.expires_at = expiresAt.toISOString();
    if (owner !== me.id) body.user_id = owner;
    setBusy(true);
    try {
      onCreated(await apiKeysApi.create(body));
    } catch (err) {
      const field = err instanceof ApiProblem ? err.errors.find((f) => f.path === 'body.name') : undefined;
      if (field) {
        setProblem({ field: 'name', words: `Name ${field.message}.` });
        nameRef.current?.focus();
      }
      setError(err);
      setBusy(false);
    }
  }

  const nameProblem = problem?.field === 'name' ? problem.words : null;
  const dateProblem = problem?.field === 'date' ? problem.words : null;
  return (
    <form className="key-form" aria-label="New API key" noValidate onSubmit={(e) => void submit(e)}>
      <h2>New API key</h2>
      <label htmlFor="key-name">Name</label>
      <p className="hint" id="key-name-hint">What the key is for, so you know which to revoke later.</p>
      <input id="key-name" ref={nameRef} value={name} maxLength={100} autoComplete="off"
        aria-invalid={nameProblem ? true : undefined} aria-describedby={nameProblem ? 'key-name-hint key-name-problem' : 'key-name-hint'}
        onChange={(e) => {
          setName(e.target.value);
          if (problem?.field === 'name') setProblem(null);
        }} />
      {nameProblem ? <p className="field-problem" id="key-name-problem">{nameProblem}</p> : null}

      {users ? (
        <>
          <label htmlFor="key-owner">For</label>
          <p className="hint" id="key-owner-hint">The key acts as this person, with their role.</p>
          <select id="key-owner" value={owner} aria-describedby="key-owner-hint" onChange={(e) => setOwner(e.target.value)}>
            {users.map((u) => <option key={u.id} value={u.id}>{u.id === me.id ? `${displayName(u)} (you)` : `${displayName(u)} (${u.role})`}</option>)}
          </select>
        </>
      ) : null}

      <div className="checkbox">
        <input id="key-read-only" type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} aria-describedby="key-read-only-hint" />
        <label htmlFor="key-read-only">Read-only</label>
      </div>
      <p className="hint" id="key-read-only-hint">It may read whatever its user may; every write is refused (403).</p>

      <label htmlFor="key-expiry">Expires</label>
      <select id="key-expiry" value={expiry} onChange={(e) => {
        setExpiry(e.target.value as Expiry);
        if (problem?.field === 'date') setProblem(null);
      }}>
        <option value="never">Never</option>
        <option value="30">In 30 days</option>
        <option value="90">In 90 days</option>
        <option value="365">In 365 days</option>
        <option value="date">On a date…</option>
      </select>
      {expiry === 'date' ? (
        <>
          <label htmlFor="key-expiry-date">Expiry date</label>
          <p className="hint" id="key-expiry-date-hint">The key stops working when this day begins (your time zone).</p>
          <input id="key-expiry-date" ref={dateRef} type="date" min={tomorrow} value={date}
            aria-invalid={dateProblem ? true : undefined}
            aria-describedby={dateProblem ? 'key-expiry-date-hint key-expiry-date-problem' : 'key-expiry-date-hint'}
            onChange={(e) => {
              setDate(e.target.value);
              if (problem?.field === 'date') setProblem(null);
            }} />
          {dateProblem ? <p className="field-problem" id="key-expiry-date-problem">{dateProblem}</p> : null}
        </>
      ) : null}

      {error && !nameProblem ? <ErrorMessage error={error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={busy}>{busy ? 'Creating…' : 'Create key'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
