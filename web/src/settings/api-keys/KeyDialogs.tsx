import { useState, type FormEvent } from 'react';
import { ErrorMessage } from '../../ErrorMessage.tsx';
import { apiKeysApi, type ApiKey, type ApiKeyWithSecret } from './apiKeysApi.ts';
import { ModalDialog } from './ModalDialog.tsx';

interface DialogProps<T> {
  apiKey: ApiKey;
  onCancel: () => void;
  onDone: (result: T) => void;
  returnFocus: () => HTMLElement | null;
}

/** Asks before revoking: programs using the key stop at once, and it cannot be undone. */
export function RevokeDialog({ apiKey, onCancel, onDone, returnFocus }: DialogProps<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function revoke() {
    setBusy(true);
    setError(null);
    try {
      await apiKeysApi.revoke(apiKey.id);
      onDone();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <ModalDialog title={`Revoke “${apiKey.name}”?`} onCancel={onCancel} returnFocus={returnFocus}>
      <p>Programs using this key ({apiKey.prefix}…) are refused from now on (401). This cannot be undone: a revoked key never works again.</p>
      {error ? <ErrorMessage error={error} /> : null}
      <div className="form-actions">
        <button type="button" className="secondary" onClick={onCancel} autoFocus>Cancel</button>
        <button type="button" className="danger" onClick={() => void revoke()} disabled={busy}>{busy ? 'Revoking…' : 'Revoke key'}</button>
      </div>
    </ModalDialog>
  );
}

/** The API's grace periods (0..7 days), in words. */
const GRACE_CHOICES: Array<[seconds: number, words: string]> = [
  [0, 'No time: it stops now (for a leaked key)'],
  [3_600, '1 hour'],
  [86_400, '24 hours'],
  [3 * 86_400, '3 days'],
  [7 * 86_400, '7 days'],
];

/** A new secret for the key; the old one keeps working for the chosen grace period. */
export function RotateDialog({ apiKey, onCancel, onDone, returnFocus }: DialogProps<ApiKeyWithSecret>) {
  const [grace, setGrace] = useState(86_400);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  async function rotate(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onDone(await apiKeysApi.rotate(apiKey.id, grace));
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <ModalDialog title={`Rotate “${apiKey.name}”`} onCancel={onCancel} returnFocus={returnFocus}>
      <form onSubmit={(e) => void rotate(e)}>
        <p>The key gets a new secret, shown once. Give it to the programs that use the key while the old secret still works.</p>
        <label htmlFor="rotate-grace">Keep the old secret working for</label>
        <select id="rotate-grace" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
          {GRACE_CHOICES.map(([seconds, words]) => <option key={seconds} value={seconds}>{words}</option>)}
        </select>
        {error ? <ErrorMessage error={error} /> : null}
        <div className="form-actions">
          <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
          <button type="submit" disabled={busy}>{busy ? 'Rotating…' : 'Rotate key'}</button>
        </div>
      </form>
    </ModalDialog>
  );
}
