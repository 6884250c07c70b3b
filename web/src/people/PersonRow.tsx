import { useId, useRef, useState } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { peopleApi, personName, type Person, type Role } from './peopleApi.ts';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const roleTitle = (r: string) => r[0]!.toUpperCase() + r.slice(1);
const ROLE_NOUN: Record<Role, string> = { admin: 'an admin', manager: 'a manager', standard: 'a standard user', restricted: 'a restricted user' };

/**
 * One person: name, e-mail, handle, role and status; for whom the caller may manage, a role
 * picker offering only the roles the caller may give, and Deactivate (after a confirm dialog) or
 * Reactivate. The API decides in the end: a refusal is shown in words on the row.
 */
export function PersonRow({ person, isMe, manageable, roles, onChanged }: {
  person: Person;
  isMe: boolean;
  manageable: boolean;
  roles: Role[];
  onChanged(person: Person): void;
}) {
  const name = personName(person);
  const [role, setRole] = useState<Role>(person.role);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const id = useId();
  // The person's own role is offered even when the caller could not give it (it is not a change).
  const offered = roles.includes(person.role) ? roles : [person.role, ...roles];

  async function change(body: { role?: Role; status?: 'active' | 'deactivated' }, done: (p: Person) => string) {
    if (action.busy) return;
    setNotice(null);
    await action.run(async () => {
      const updated = await peopleApi.update(person.id, body);
      onChanged(updated);
      setRole(updated.role);
      setNotice(done(updated));
    });
  }

  function confirm() {
    dialog.current?.showModal();
    // The safe choice first; Escape also cancels. Closing gives the focus back to the row's button.
    cancel.current?.focus();
  }

  function deactivate() {
    dialog.current?.close();
    void change({ status: 'deactivated' }, () => `${name} is deactivated and signed out everywhere.`);
  }

  return (
    <li className="person" aria-labelledby={`${id}-name`}>
      <div className="person-facts">
        <p className="person-name" id={`${id}-name`}>{name}{isMe ? <span className="muted"> (you)</span> : null}</p>
        {name === person.email ? null : <p className="email">{person.email}</p>}
        <p className="muted">@{person.handle} · {roleTitle(person.role)}</p>
        <p className={person.status === 'active' ? 'status-active' : 'status-deactivated'}>
          {person.status === 'active' ? 'Active' : `Deactivated${person.deactivated_at ? ` on ${dateFormat.format(new Date(person.deactivated_at))}` : ''}`}
        </p>
      </div>
      {manageable
        ? (
          <div className="person-actions">
            {person.status === 'active'
              ? (
                <form className="role-form" onSubmit={(e) => { e.preventDefault(); void change({ role }, (p) => `${name} is now ${ROLE_NOUN[p.role]}.`); }}>
                  <label htmlFor={`${id}-role`}>Role of {name}</label>
                  <div className="role-row">
                    <select id={`${id}-role`} value={role} onChange={(e) => setRole(e.target.value as Role)}>
                      {offered.map((r) => <option key={r} value={r}>{roleTitle(r)}</option>)}
                    </select>
                    <button type="submit" disabled={action.busy || role === person.role} aria-label={`Change role of ${name}`}>Change role</button>
                  </div>
                </form>
              )
              : null}
            <button
              type="button" className={person.status === 'active' ? 'danger' : 'secondary'} aria-disabled={action.busy || undefined}
              aria-label={`${person.status === 'active' ? 'Deactivate' : 'Reactivate'} ${name}`}
              onClick={() => (person.status === 'active'
                ? confirm()
                : void change({ status: 'active' }, () => `${name} is active again; they can sign in with their password.`))}
            >
              {person.status === 'active' ? 'Deactivate' : 'Reactivate'}
            </button>
          </div>
        )
        : null}
      {notice ? <p role="status" className="person-notice">{notice}</p> : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <dialog ref={dialog} className="confirm-dialog" aria-labelledby={`${id}-dialog-title`} aria-describedby={`${id}-dialog-text`}>
        <h2 id={`${id}-dialog-title`}>Deactivate {name}?</h2>
        <div id={`${id}-dialog-text`}>
          <p>
            {name} is signed out at once: every session they have ends, in the browser and on their phone, and their API keys stop
            working for good. Their open tasks are unassigned. What they made — photos, comments, reports — stays.
          </p>
          <p>You can reactivate them later; they then sign in with their password again.</p>
        </div>
        <div className="form-actions">
          <button type="button" className="danger" onClick={deactivate}>Deactivate and sign out</button>
          <button type="button" className="secondary" ref={cancel} onClick={() => dialog.current?.close()}>Cancel</button>
        </div>
      </dialog>
    </li>
  );
}
