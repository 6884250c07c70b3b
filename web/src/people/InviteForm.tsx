import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { copyOrSelect } from '../clipboard.ts';
import { useAction } from '../useAction.ts';
import { peopleApi, personName, ROLE_WORDS, type InvitedPerson, type Role } from './peopleApi.ts';

type Field = 'email' | 'first_name' | 'last_name' | 'role';
const LABELS: Record<Field, string> = { email: 'E-mail', first_name: 'First name', last_name: 'Last name', role: 'Role' };

const expiryFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });

/**
 * Invite someone: POST /v1/users {email, first_name, last_name, role}. The answer says whether
 * the link was e-mailed; when it was not, the link is shown with a Copy button to pass on.
 */
export function InviteForm({ roles, onInvited, onClose }: { roles: Role[]; onInvited(person: InvitedPerson): void; onClose(): void }) {
  const [values, setValues] = useState<Record<Field, string>>({ email: '', first_name: '', last_name: '', role: roles.includes('standard') ? 'standard' : roles[0]! });
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const action = useAction();
  const [invited, setInvited] = useState<InvitedPerson | null>(null);
  const id = useId();

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    action.clear();
    const email = values.email.trim();
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      setFieldErrors({ email: email ? 'Enter an e-mail address such as rosa@example.com.' : 'Enter their e-mail address.' });
      (form.elements.namedItem('email') as HTMLInputElement | null)?.focus();
      return;
    }
    setFieldErrors({});
    await action.run(async () => {
      const person = await peopleApi.invite({
        email, first_name: values.first_name.trim() || null, last_name: values.last_name.trim() || null, role: values.role as Role,
      });
      setInvited(person);
      onInvited(person);
    }, (err) => {
      if (err instanceof ApiProblem) {
        const byField: Partial<Record<Field, string>> = {};
        for (const fe of err.errors) {
          const f = fe.path.split(/[./]/).pop() as Field;
          if (f in LABELS) byField[f] = `${LABELS[f]} ${fe.message}.`;
        }
        if (err.code === 'email_taken') byField.email = 'Someone in this workspace already has this address.';
        setFieldErrors(byField);
      }
      action.setError(err);
    });
  }

  if (invited) return <Invited person={invited} onAnother={() => { setInvited(null); setValues({ ...values, email: '', first_name: '', last_name: '' }); }} onClose={onClose} />;

  const field = (f: Exclude<Field, 'role'>, extra: { type?: string; autoComplete: string; required?: boolean }) => {
    const inputId = `${id}-${f}`;
    return (
      <div>
        <label htmlFor={inputId}>{LABELS[f]}{extra.required ? '' : ' (optional)'}</label>
        <input
          id={inputId} name={f} type={extra.type ?? 'text'} value={values[f]} autoComplete={extra.autoComplete} required={extra.required}
          autoFocus={f === 'email'} aria-invalid={fieldErrors[f] ? true : undefined} aria-describedby={fieldErrors[f] ? `${inputId}-error` : undefined}
          onChange={(e) => {
            setValues({ ...values, [f]: e.target.value });
            if (fieldErrors[f]) setFieldErrors({ ...fieldErrors, [f]: undefined });
          }}
        />
        {fieldErrors[f] ? <p className="field-error" id={`${inputId}-error`}>{fieldErrors[f]}</p> : null}
      </div>
    );
  };

  return (
    <form className="invite-form" aria-labelledby={`${id}-heading`} onSubmit={submit} noValidate>
      <h2 id={`${id}-heading`}>Invite someone</h2>
      <p className="muted">They get a link to choose a password; it works once, for 72 hours.</p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      {field('email', { type: 'email', autoComplete: 'off', required: true })}
      <div className="invite-names">
        {field('first_name', { autoComplete: 'off' })}
        {field('last_name', { autoComplete: 'off' })}
      </div>
      <label htmlFor={`${id}-role`}>Role</label>
      <select id={`${id}-role`} name="role" value={values.role} aria-describedby={`${id}-role-hint`} onChange={(e) => setValues({ ...values, role: e.target.value })}>
        {roles.map((r) => <option key={r} value={r}>{r[0]!.toUpperCase() + r.slice(1)}</option>)}
      </select>
      <p className="hint" id={`${id}-role-hint`}>A {values.role} may do {ROLE_WORDS[values.role as Role]}.</p>
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Inviting…' : 'Send invitation'}</button>
        <button type="button" className="secondary" onClick={onClose} disabled={action.busy}>Cancel</button>
      </div>
    </form>
  );
}

/** The answer: "e-mailed", or the link to pass on by hand, with its expiry. */
function Invited({ person, onAnother, onClose }: { person: InvitedPerson; onAnother(): void; onClose(): void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const linkRef = useRef<HTMLInputElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const linkId = useId();
  // The form's button is gone: the focus goes to what replaced it.
  useEffect(() => headingRef.current?.focus(), []);
  const expires = expiryFormat.format(new Date(person.invite_expires_at));

  async function copy() {
    setCopied(await copyOrSelect(person.invite_url, linkRef.current) ? 'The link is copied.' : 'The link is selected: press Ctrl+C (⌘C on a Mac) to copy it.');
  }

  return (
    <section className="invite-result" aria-label="Invitation">
      <h2 ref={headingRef} tabIndex={-1}>Invitation ready</h2>
      {person.invite_emailed
        ? (
          <p role="status" className="notice">
            Invitation e-mailed to <strong className="email">{person.email}</strong>. The link works once, until {expires}.
          </p>
        )
        : (
          <>
            <p role="status" className="notice">
              {personName(person)} is added, but the invitation was not e-mailed (this server does not send mail, or the mail
              server refused it). Give them this link yourself: it works once, until {expires}.
            </p>
            <label htmlFor={linkId}>Invitation link for {person.email}</label>
            <div className="copy-row">
              <input id={linkId} ref={linkRef} readOnly value={person.invite_url} onFocus={(e) => e.currentTarget.select()} />
              <button type="button" onClick={copy}>Copy</button>
            </div>
            <p className="hint" role="status">{copied}</p>
          </>
        )}
      <div className="form-actions">
        <button type="button" onClick={onAnother}>Invite someone else</button>
        <button type="button" className="secondary" onClick={onClose}>Done</button>
      </div>
    </section>
  );
}
