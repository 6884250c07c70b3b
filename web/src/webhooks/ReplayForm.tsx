import { useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { webhooksApi } from './webhooksApi.ts';

/** A Date as a datetime-local value in the browser's time zone ("2026-11-25T07:30"). */
function toLocalInput(date: Date): string {
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * Replay: every event of [from, to) that the endpoint subscribes to is delivered again (one new
 * delivery each). The inputs are in the browser's time; the API takes RFC 3339 instants.
 */
export function ReplayForm({ webhookId, enabled, onQueued }: { webhookId: string; enabled: boolean; onQueued(): void }) {
  const [from, setFrom] = useState(() => toLocalInput(new Date(Date.now() - 3_600_000)));
  const [to, setTo] = useState('');
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);

  async function replay(e: FormEvent) {
    e.preventDefault();
    action.clear();
    setNotice(null);
    const since = new Date(from);
    const until = to ? new Date(to) : new Date();
    if (Number.isNaN(since.getTime())) {
      action.setError(new ApiProblem(0, 'no_from', 'Choose when to start', 'Fill in “From” with a date and time.'));
      return;
    }
    await action.run(async () => {
      const { queued } = await webhooksApi.replay(webhookId, since.toISOString(), until.toISOString());
      setNotice(queued === 0
        ? 'No events of this endpoint’s kinds happened in that time: nothing was queued.'
        : `${queued} ${queued === 1 ? 'delivery was' : 'deliveries were'} queued; they appear in the log above.`);
      onQueued();
    });
  }

  return (
    <form className="replay-form" onSubmit={replay} aria-labelledby="replay-h">
      <h3 id="replay-h">Send past events again</h3>
      <p className="hint">Every event in the range that this endpoint subscribes to is delivered again, with its original id (receivers dedupe on it). Events are kept 30 days. Times are in your time zone.</p>
      <div className="log-filters">
        <div>
          <label htmlFor="replay-from">From</label>
          <input id="replay-from" type="datetime-local" value={from} required onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div>
          <label htmlFor="replay-to">To <span className="muted">(empty: now)</span></label>
          <input id="replay-to" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <button type="submit" disabled={action.busy || !enabled}>{action.busy ? 'Queuing…' : 'Replay'}</button>
      </div>
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>{notice}</p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
    </form>
  );
}
