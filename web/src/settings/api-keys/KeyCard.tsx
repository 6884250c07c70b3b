import type { ApiKey } from './apiKeysApi.ts';
import { exactTime, TimeInWords } from './times.tsx';

const STATUS_WORDS: Record<ApiKey['status'], string> = { active: 'Active', expired: 'Expired', revoked: 'Revoked' };

/** One key: what it is, whose, its times in words, and what may be done to it. */
export function KeyCard({ apiKey, owner, onRotate, onRevoke }: {
  apiKey: ApiKey;
  /** The owner in words ("You", "Ada Lovelace"). */
  owner: string;
  onRotate: () => void;
  onRevoke: () => void;
}) {
  const k = apiKey;
  const headingId = `key-${k.id}`;
  return (
    <li className={`key-card key-${k.status}`} aria-labelledby={headingId}>
      <div className="key-title">
        <h3 id={headingId} tabIndex={-1}>{k.name}</h3>
        <span className={`badge status-${k.status}`}>{STATUS_WORDS[k.status]}</span>
        {k.read_only ? <span className="badge">Read-only</span> : null}
      </div>
      <dl className="key-facts">
        <div><dt>Owner</dt><dd>{owner}</dd></div>
        <div><dt>Begins with</dt><dd><code>{k.prefix}…</code></dd></div>
        <div><dt>Created</dt><dd>{exactTime(k.created_at)}</dd></div>
        <div>
          <dt>{k.status === 'expired' ? 'Expired' : 'Expires'}</dt>
          <dd>{k.expires_at ? <TimeInWords iso={k.expires_at} /> : 'Never'}</dd>
        </div>
        <div><dt>Last used</dt><dd>{k.last_used_at ? <TimeInWords iso={k.last_used_at} /> : 'Never'}</dd></div>
        {k.rotated_at ? <div><dt>Rotated</dt><dd><TimeInWords iso={k.rotated_at} /></dd></div> : null}
        {k.previous_secret_expires_at && k.status === 'active'
          ? <div><dt>Old secret works until</dt><dd><TimeInWords iso={k.previous_secret_expires_at} /></dd></div>
          : null}
        {k.revoked_at ? <div><dt>Revoked</dt><dd><TimeInWords iso={k.revoked_at} /></dd></div> : null}
      </dl>
      {k.status === 'active' ? (
        <div className="form-actions">
          <button type="button" className="secondary" onClick={onRotate}>Rotate<span className="visually-hidden"> {k.name}</span></button>
          <button type="button" className="danger-outline" onClick={onRevoke}>Revoke<span className="visually-hidden"> {k.name}</span></button>
        </div>
      ) : null}
    </li>
  );
}
