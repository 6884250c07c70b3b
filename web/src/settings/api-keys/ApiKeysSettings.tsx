import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'wouter';
import { displayName } from '../../api.ts';
import { ErrorMessage } from '../../ErrorMessage.tsx';
import type { SectionProps } from '../sectionProps.ts';
import { apiKeysApi, type ApiKey, type ApiKeyWithSecret, type KeyStatusFilter, type WorkspaceUser } from './apiKeysApi.ts';
import { CreateKeyForm } from './CreateKeyForm.tsx';
import { KeyCard } from './KeyCard.tsx';
import { RevokeDialog, RotateDialog } from './KeyDialogs.tsx';
import { SecretPanel, type ShownSecret } from './SecretPanel.tsx';
import { exactTime, relativeTime } from './times.tsx';
import './apiKeys.css';

const PAGE_SIZE = 20;

/**
 * `/settings/api-keys[/<user id>]`: the keys programs use to call the API. Everyone manages their
 * own; admins see, create, rotate and revoke everyone's, and may narrow the list to one person
 * (the address names them; anyone else naming a person gets the API's 403 in words).
 */
export default function ApiKeysSettings({ session, rest }: SectionProps) {
  const me = session.user;
  const isAdmin = me.role === 'admin';
  const ownerFilter = rest.split('/')[0] || undefined;
  const [, navigate] = useLocation();
  const [status, setStatus] = useState<KeyStatusFilter>('all');
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [users, setUsers] = useState<WorkspaceUser[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [dialog, setDialog] = useState<{ kind: 'rotate' | 'revoke'; key: ApiKey } | null>(null);
  const [notice, setNotice] = useState('');
  const newKeyButton = useRef<HTMLButtonElement>(null);
  /** Counts list requests, so that an older answer arriving late is dropped. */
  const lastLoad = useRef(0);

  const load = useCallback(async (after: string | null) => {
    const mine = ++lastLoad.current;
    setLoading(true);
    setError(null);
    try {
      const page = await apiKeysApi.list({ status, user_id: ownerFilter, cursor: after, limit: PAGE_SIZE });
      if (mine !== lastLoad.current) return;
      setKeys((before) => (after ? [...before, ...page.data] : page.data));
      setCursor(page.has_more ? page.next_cursor : null);
    } catch (err) {
      if (mine !== lastLoad.current) return;
      if (!after) setKeys([]);
      setError(err);
    } finally {
      if (mine === lastLoad.current) setLoading(false);
    }
  }, [status, ownerFilter]);

  useEffect(() => {
    void load(null);
  }, [load]);

  // Admins see whose each key is, and may make keys for others: they need the people's names.
  useEffect(() => {
    if (isAdmin) apiKeysApi.allUsers().then(setUsers, setError);
  }, [isAdmin]);

  function ownerWords(userId: string): string {
    if (userId === me.id) return 'You';
    const user = users?.find((u) => u.id === userId);
    if (!user) return userId;
    return `${displayName(user)}${user.status === 'deactivated' ? ' (deactivated)' : ''}`;
  }

  function created(key: ApiKeyWithSecret) {
    setCreating(false);
    setNotice('');
    setSecret({
      heading: `New key “${key.name}”`,
      secret: key.key,
      note: <p>{key.read_only ? 'Read-only. ' : ''}{key.expires_at ? `It expires ${relativeTime(key.expires_at)} (${exactTime(key.expires_at)}).` : 'It does not expire.'}{key.user_id !== me.id ? ` It acts as ${ownerWords(key.user_id)}.` : ''}</p>,
    });
    void load(null);
  }

  function rotated(key: ApiKeyWithSecret) {
    setDialog(null);
    setNotice('');
    setSecret({
      heading: `New secret for “${key.name}”`,
      secret: key.key,
      note: <p>{key.previous_secret_expires_at
        ? `The old secret keeps working until ${exactTime(key.previous_secret_expires_at)} (${relativeTime(key.previous_secret_expires_at)}), then it is refused.`
        : 'The old secret no longer works.'}</p>,
    });
    void load(null);
  }

  function revoked(key: ApiKey) {
    // Revoked here at once (the API answers 204, no body): its buttons go as the dialog closes,
    // so the focus lands on the key's name rather than on a button about to vanish.
    setKeys((all) => all.map((k) => (k.id === key.id ? { ...k, status: 'revoked', revoked_at: new Date().toISOString() } : k)));
    setDialog(null);
    setNotice(`The key “${key.name}” is revoked: programs using it are refused from now on.`);
    void load(null);
  }

  // The panel or the form held the focus; give it to where a next key would start.
  const focusNewKey = () => requestAnimationFrame(() => newKeyButton.current?.focus());
  const closeSecret = () => {
    setSecret(null);
    focusNewKey();
  };

  const headingOf = (key: ApiKey) => () => document.getElementById(`key-${key.id}`);
  const filteredOwner = ownerFilter && users?.find((u) => u.id === ownerFilter);
  return (
    <div className="api-keys">
      <div className="page-heading">
        <h1>API keys</h1>
        {!creating && !secret
          ? <button type="button" ref={newKeyButton} onClick={() => setCreating(true)}>New API key</button>
          : null}
      </div>
      <p className="muted">
        A key lets a program use the API as its user, with that user's role.{' '}
        {isAdmin ? 'As an admin you see and manage everyone\'s keys.' : 'You see and manage your own keys.'}
      </p>

      {secret ? <SecretPanel shown={secret} onClose={closeSecret} /> : null}
      {creating
        ? <CreateKeyForm me={me} users={users?.filter((u) => u.status === 'active') ?? null} onCreated={created} onCancel={() => {
          setCreating(false);
          focusNewKey();
        }} />
        : null}
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>{notice}</p>

      <div className="key-filters">
        <div>
          <label htmlFor="key-status">Show</label>
          <select id="key-status" value={status} onChange={(e) => setStatus(e.target.value as KeyStatusFilter)}>
            <option value="all">All keys</option>
            <option value="active">Active</option>
            <option value="expired">Expired</option>
            <option value="revoked">Revoked</option>
          </select>
        </div>
        {isAdmin ? (
          <div>
            <label htmlFor="key-whose">Whose</label>
            <select id="key-whose" value={ownerFilter ?? ''} onChange={(e) => navigate(`/settings/api-keys${e.target.value ? `/${e.target.value}` : ''}`)}>
              <option value="">Everyone's</option>
              {ownerFilter && !filteredOwner ? <option value={ownerFilter}>{ownerFilter}</option> : null}
              {(users ?? []).map((u) => <option key={u.id} value={u.id}>{u.id === me.id ? 'Yours' : displayName(u)}</option>)}
            </select>
          </div>
        ) : null}
      </div>

      <h2 id="keys-heading">{ownerFilter ? `Keys of ${ownerWords(ownerFilter)}` : isAdmin ? 'All keys' : 'Your keys'}</h2>
      {error ? <ErrorMessage error={error} /> : null}
      {!loading && !error && keys.length === 0
        ? <p>{status === 'all' ? 'No keys yet.' : `No ${status} keys.`}</p>
        : null}
      <ul className="key-list" aria-labelledby="keys-heading">
        {keys.map((k) => (
          <KeyCard key={k.id} apiKey={k} owner={ownerWords(k.user_id)}
            onRotate={() => setDialog({ kind: 'rotate', key: k })}
            onRevoke={() => setDialog({ kind: 'revoke', key: k })} />
        ))}
      </ul>
      {loading ? <p role="status">Loading keys…</p> : null}
      {cursor && !loading ? <button type="button" className="secondary" onClick={() => void load(cursor)}>Load more keys</button> : null}

      {dialog?.kind === 'revoke'
        ? <RevokeDialog apiKey={dialog.key} onCancel={() => setDialog(null)} onDone={() => revoked(dialog.key)} returnFocus={headingOf(dialog.key)} />
        : null}
      {dialog?.kind === 'rotate'
        ? <RotateDialog apiKey={dialog.key} onCancel={() => setDialog(null)} onDone={rotated} returnFocus={headingOf(dialog.key)} />
        : null}
    </div>
  );
}
