import { useEffect, useId, useRef, useState } from 'react';
import { useLocation, useSearch } from 'wouter';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { SectionProps } from '../settings/sectionProps.ts';
import { usePages, useWhenVisible } from '../usePages.ts';
import { InviteForm } from './InviteForm.tsx';
import { grantableRoles, mayManage, peopleApi, ROLES, type Person, type Role, type StatusFilter } from './peopleApi.ts';
import { PersonRow } from './PersonRow.tsx';
import './people.css';

const STATUSES: readonly StatusFilter[] = ['active', 'deactivated', 'all'];

/**
 * /settings/people: the workspace's people, filtered by status and role (in the address, so Back
 * keeps them), 50 at a time; admins and managers invite, change roles, deactivate and reactivate.
 * Everyone may read the directory (the API's rule); the others see it without the controls.
 */
export default function PeopleSettings({ session }: SectionProps) {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const status = (STATUSES as string[]).includes(params.get('status') ?? '') ? params.get('status') as StatusFilter : 'active';
  const role = (ROLES as string[]).includes(params.get('role') ?? '') ? params.get('role') as Role : '';
  const [inviting, setInviting] = useState(false);
  const inviteButton = useRef<HTMLButtonElement>(null);
  const wasInviting = useRef(false);
  // Closing the invitation gives the focus back to the button that opened it.
  useEffect(() => {
    if (wasInviting.current && !inviting) inviteButton.current?.focus();
    wasInviting.current = inviting;
  }, [inviting]);
  const [generation, setGeneration] = useState(0);
  // Rows changed here since the page loaded, shown as the API answered them.
  const [changed, setChanged] = useState<Record<string, Person>>({});
  const statusId = useId();
  const roleId = useId();
  const me = session.user;
  const roles = grantableRoles(me.role);
  const canInvite = roles.length > 0;

  const update = (next: { status?: StatusFilter; role?: Role | '' }) => {
    const p = new URLSearchParams();
    const ns = next.status ?? status;
    const nr = next.role ?? role;
    if (ns !== 'active') p.set('status', ns);
    if (nr) p.set('role', nr);
    const search = p.toString();
    navigate(search ? `/settings/people?${search}` : '/settings/people', { replace: true });
  };
  const pages = usePages<Person>(JSON.stringify([status, role, generation]), (cursor) => peopleApi.list({ status, role, cursor, limit: 50 }));
  const sentinel = useWhenVisible<HTMLDivElement>(() => {
    if (!pages.error) pages.loadMore();
  });

  return (
    <>
      <div className="page-heading">
        <h1>People</h1>
        {canInvite && !inviting ? <button type="button" ref={inviteButton} onClick={() => setInviting(true)}>Invite someone</button> : null}
      </div>
      {canInvite
        ? null
        : <p className="notice">Your role ({me.role}) may see who is in the workspace, but not invite people or change their role or status. An admin or a manager can.</p>}
      {inviting
        ? <InviteForm roles={roles} onInvited={() => setGeneration((g) => g + 1)} onClose={() => setInviting(false)} />
        : null}
      <form className="filters" aria-label="Filter people" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label htmlFor={statusId}>Status</label>
          <select id={statusId} value={status} onChange={(e) => update({ status: e.target.value as StatusFilter })}>
            <option value="active">Active</option>
            <option value="deactivated">Deactivated</option>
            <option value="all">All</option>
          </select>
        </div>
        <div>
          <label htmlFor={roleId}>Role</label>
          <select id={roleId} value={role} onChange={(e) => update({ role: e.target.value as Role | '' })}>
            <option value="">All roles</option>
            {ROLES.map((r) => <option key={r} value={r}>{r[0]!.toUpperCase() + r.slice(1)}</option>)}
          </select>
        </div>
      </form>
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {!pages.loading && !pages.error && pages.items.length === 0 ? <p>No one matches these filters.</p> : null}
      <ul className="people-list" aria-label="People">
        {pages.items.map((listed) => {
          const person = changed[listed.id] ?? listed;
          return (
            <PersonRow
              key={person.id} person={person} isMe={person.id === me.id} manageable={mayManage(me, person)} roles={roles}
              onChanged={(p) => setChanged((c) => ({ ...c, [p.id]: p }))}
            />
          );
        })}
      </ul>
      <div ref={sentinel} className="list-end">
        {pages.loading ? <p role="status">Loading people…</p> : null}
        {pages.hasMore && !pages.loading ? <button type="button" onClick={pages.loadMore}>Load more people</button> : null}
      </div>
    </>
  );
}
