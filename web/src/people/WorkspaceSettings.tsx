import { useCallback, useEffect, useId, useMemo, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { nowIn, zoneGroups } from '../timeZones.ts';
import type { SectionProps } from '../settings/sectionProps.ts';
import { useAction } from '../useAction.ts';
import { peopleApi, type Workspace } from './peopleApi.ts';
import './people.css';

/**
 * /settings/workspace: the workspace's name and time zone (PATCH /v1/workspace with If-Match;
 * admins only — the others see them without the form). A 412 is said in words, with Reload.
 */
export default function WorkspaceSettings({ session }: SectionProps) {
  const [workspace, setWorkspace] = useState<Workspace | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [name, setName] = useState('');
  const [zone, setZone] = useState('UTC');
  const [nameProblem, setNameProblem] = useState<string | null>(null);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const id = useId();
  const isAdmin = session.user.role === 'admin';

  const load = useCallback(() => {
    setLoadError(null);
    action.clear();
    peopleApi.workspace().then(({ body, etag: tag }) => {
      setWorkspace(body);
      setEtag(tag);
      setName(body.name);
      setZone(body.time_zone);
    }, setLoadError);
  }, []);
  useEffect(load, [load]);
  const groups = useMemo(() => zoneGroups(['UTC', ...(workspace ? [workspace.time_zone] : [])]), [workspace]);

  async function save(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    action.clear();
    setNotice(null);
    if (!name.trim()) {
      setNameProblem('Enter a name for the workspace.');
      (e.currentTarget.elements.namedItem('name') as HTMLInputElement | null)?.focus();
      return;
    }
    await action.run(async () => {
      const { body, etag: tag } = await peopleApi.updateWorkspace({ name: name.trim(), time_zone: zone }, etag);
      setWorkspace(body);
      setEtag(tag);
      setName(body.name);
      setZone(body.time_zone);
      setNotice('The workspace is saved.');
    });
  }

  if (loadError) return <><h1>Workspace</h1><ErrorMessage error={loadError} /></>;
  if (!workspace) return <><h1>Workspace</h1><p role="status">Loading the workspace…</p></>;

  const usedFor = (
    <div className="hint" id={`${id}-zone-hint`}>
      <p>Used for local times when a photo does not tell its own: a photo whose camera time has no offset from UTC and no GPS
        position, in a project without coordinates, is read in this zone, and the reports of such projects print their times in it.
        A new zone applies to photos processed from now on; photos already processed keep theirs.</p>
    </div>
  );

  if (!isAdmin) {
    return (
      <>
        <h1>Workspace</h1>
        <dl className="facts">
          <dt>Name</dt><dd>{workspace.name}</dd>
          <dt>Time zone</dt><dd>{workspace.time_zone} <span className="muted">(now {nowIn(workspace.time_zone)})</span></dd>
        </dl>
        {usedFor}
        <p className="notice">Only an admin may change the workspace; your role is {session.user.role}.</p>
      </>
    );
  }

  const stale = action.error instanceof ApiProblem && action.error.status === 412;
  return (
    <form className="workspace-form" aria-labelledby={`${id}-heading`} onSubmit={save} noValidate>
      <h1 id={`${id}-heading`}>Workspace</h1>
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {stale
        ? (
          <div className="error" role="alert">
            <strong>Someone else changed the workspace; reload</strong>
            <span> to see their changes, then make yours again. Nothing was saved. </span>
            <button type="button" onClick={load}>Reload</button>
          </div>
        )
        : action.error ? <ErrorMessage error={action.error} /> : null}
      <label htmlFor={`${id}-name`}>Name</label>
      <input
        id={`${id}-name`} name="name" value={name} maxLength={200} required autoComplete="organization"
        aria-invalid={nameProblem ? true : undefined} aria-describedby={nameProblem ? `${id}-name-error` : undefined}
        onChange={(e) => { setName(e.target.value); setNameProblem(null); }}
      />
      {nameProblem ? <p className="field-error" id={`${id}-name-error`}>{nameProblem}</p> : null}
      <p className="hint">Shown in invitations and on reports.</p>
      <label htmlFor={`${id}-zone`}>Time zone</label>
      <select id={`${id}-zone`} name="time_zone" value={zone} aria-describedby={`${id}-zone-hint ${id}-zone-now`} onChange={(e) => setZone(e.target.value)}>
        {groups.map(([region, zones]) => (
          <optgroup key={region} label={region}>
            {zones.map((z) => <option key={z} value={z}>{z.replaceAll('_', ' ')}</option>)}
          </optgroup>
        ))}
      </select>
      <p className="hint" id={`${id}-zone-now`}>Now in {zone.replaceAll('_', ' ')}: {nowIn(zone)}.</p>
      {usedFor}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : 'Save workspace'}</button>
      </div>
    </form>
  );
}
