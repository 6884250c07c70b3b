import { useEffect, useId, useState } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { usePages } from '../usePages.ts';
import { eventTypes } from './EventPicker.tsx';
import { ReplayForm } from './ReplayForm.tsx';
import { DELIVERY_STATUSES, formatTime, webhooksApi, type Attempt, type Delivery, type DeliveryStatus, type EventType } from './webhooksApi.ts';

/** How often deliveries still pending on screen are asked about again. */
const POLL_MS = 2000;

const STATUS_WORDS: Record<DeliveryStatus, string> = { pending: 'Pending', succeeded: 'Succeeded', failed: 'Failed' };
const FILTER_WORDS: Record<DeliveryStatus, string> = { pending: 'Pending or retrying', succeeded: 'Succeeded', failed: 'Failed (gave up)' };

/** The API's status, with "Retrying" for a pending delivery whose attempts so far failed. */
const statusInWords = (d: Delivery) => (d.status === 'pending' && d.attempt_count > 0 ? 'Retrying' : STATUS_WORDS[d.status]);

function attemptInWords(a: Attempt): string {
  const answer = a.status_code !== null ? `Answered ${a.status_code}` : `No answer${a.error ? ` (${a.error})` : ''}`;
  return `${answer} in ${a.duration_ms} ms`;
}

/** What became of a delivery, in one line. */
function outcome(d: Delivery): string {
  const code = d.last_status_code !== null ? `last answer ${d.last_status_code}` : d.last_error ? `last error: ${d.last_error}` : 'not attempted yet';
  const attempts = `${d.attempt_count} ${d.attempt_count === 1 ? 'attempt' : 'attempts'}`;
  const next = d.status === 'pending' && d.next_attempt_at ? `; next attempt ${formatTime(d.next_attempt_at)}` : '';
  return `${attempts}, ${code}${next}`;
}

/** The request body a delivery sent: the stored event (GET /v1/events/{id}), fetched on demand. */
function RequestBody({ eventId }: { eventId: string }) {
  const [body, setBody] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (body !== null) return <pre className="body-preview" tabIndex={0} aria-label="Request body">{body}</pre>;
  return (
    <>
      <button type="button" className="secondary" onClick={() => webhooksApi.event(eventId).then((e) => setBody(JSON.stringify(e, null, 2)), setError)}>Show the request body</button>
      {error ? <ErrorMessage error={error} /> : null}
    </>
  );
}

function DeliveryItem({ delivery: d, enabled, onRetry }: { delivery: Delivery; enabled: boolean; onRetry(d: Delivery): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const id = useId();
  return (
    <li className="delivery" aria-labelledby={`${id}-h`}>
      <h3 id={`${id}-h`} className="delivery-head">
        <span className={`delivery-status status-${d.status}`}>{statusInWords(d)}</span> <code>{d.event}</code>
        <span className="muted"> {formatTime(d.created_at)}</span>
      </h3>
      <p>{outcome(d)}</p>
      <details>
        <summary>Attempts and bodies</summary>
        {d.attempts.length === 0 ? <p>No attempt yet.</p> : null}
        <ol className="attempts">
          {d.attempts.map((a, i) => (
            <li key={i}>
              <p>{formatTime(a.attempted_at)}: {attemptInWords(a)}{a.status_code !== null && a.error ? ` (${a.error})` : ''}</p>
              {a.response_excerpt ? <pre className="body-preview" tabIndex={0} aria-label="Response body">{a.response_excerpt}</pre> : null}
            </li>
          ))}
        </ol>
        {d.attempt_count > d.attempts.length ? <p className="hint">The latest {d.attempts.length} of {d.attempt_count} attempts.</p> : null}
        <RequestBody eventId={d.event_id} />
      </details>
      <button
        type="button" className="secondary" disabled={busy || !enabled}
        onClick={async () => {
          setBusy(true);
          await onRetry(d);
          setBusy(false);
        }}
      >Retry now</button>
    </li>
  );
}

/**
 * An endpoint's deliveries, newest first, by status and event type; each with its attempts
 * (answer code, time taken, the response's first 4 KB) and the body it sent; retry one, or
 * replay a time range. Deliveries still pending on screen are refreshed until they settle.
 */
export function DeliveryLog({ webhookId, enabled, generation }: { webhookId: string; enabled: boolean; generation: number }) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [event, setEvent] = useState('');
  const [types, setTypes] = useState<EventType[]>([]);
  const [fresh, setFresh] = useState<Map<string, Delivery>>(new Map());
  const [refresh, setRefresh] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const key = `${webhookId}|${status}|${event}|${generation}|${refresh}`;
  const pages = usePages<Delivery>(key, (cursor) => webhooksApi.deliveries(webhookId, { status, event, cursor }));
  const shown = pages.items.map((d) => fresh.get(d.id) ?? d);
  const pendingIds = shown.filter((d) => d.status === 'pending').map((d) => d.id).join(',');

  useEffect(() => {
    eventTypes().then(setTypes, () => setTypes([]));
  }, []);
  useEffect(() => setFresh(new Map()), [key]);
  useEffect(() => {
    if (!pendingIds) return;
    const timer = setTimeout(async () => {
      const updated = await Promise.all(pendingIds.split(',').map((id) => webhooksApi.delivery(webhookId, id).catch(() => null)));
      setFresh((prev) => new Map([...prev, ...updated.filter((d): d is Delivery => d !== null).map((d) => [d.id, d] as const)]));
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [pendingIds, webhookId, fresh]);

  async function retry(d: Delivery) {
    setNotice(null);
    setError(null);
    try {
      const queued = await webhooksApi.retry(webhookId, d.id);
      setFresh((prev) => new Map(prev).set(queued.id, queued));
      setNotice(`The ${d.event} delivery is queued to be sent again now.`);
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section className="delivery-log" aria-labelledby="delivery-log">
      <h2 id="delivery-log">Delivery log</h2>
      {!enabled ? <p className="hint">The endpoint is disabled: enable it to ping, retry or replay.</p> : null}
      <div className="log-filters">
        <div>
          <label htmlFor="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value as DeliveryStatus | '')}>
            <option value="">Any status</option>
            {DELIVERY_STATUSES.map((s) => <option key={s} value={s}>{FILTER_WORDS[s]}</option>)}
          </select>
        </div>
        <div>
          <label htmlFor="delivery-event">Event</label>
          <select id="delivery-event" value={event} onChange={(e) => setEvent(e.target.value)}>
            <option value="">Any event</option>
            {types.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
          </select>
        </div>
        <button type="button" className="secondary" onClick={() => setRefresh((r) => r + 1)}>Refresh</button>
      </div>
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>{notice}</p>
      {error ? <ErrorMessage error={error} /> : null}
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {!pages.loading && !pages.error && shown.length === 0 ? <p>No deliveries{status || event ? ' match these filters' : ' yet'}.</p> : null}
      <ul className="deliveries" aria-label="Deliveries">
        {shown.map((d) => <DeliveryItem key={d.id} delivery={d} enabled={enabled} onRetry={retry} />)}
      </ul>
      {pages.loading ? <p role="status">Loading deliveries…</p> : null}
      {pages.hasMore && !pages.loading ? <button type="button" className="secondary" onClick={pages.loadMore}>Load older deliveries</button> : null}
      <ReplayForm webhookId={webhookId} enabled={enabled} onQueued={() => setRefresh((r) => r + 1)} />
    </section>
  );
}
