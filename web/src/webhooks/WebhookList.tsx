import { useState } from 'react';
import { Link } from 'wouter';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { usePages } from '../usePages.ts';
import { SecretOnce } from './SecretOnce.tsx';
import { WebhookForm } from './WebhookForm.tsx';
import { disabledInWords, eventsInWords, formatTime, webhooksApi, type Webhook, type WebhookWithSecret } from './webhooksApi.ts';

/** How an endpoint is doing, in words: disabled and why, or its last success / failing streak. */
export function WebhookHealth({ webhook: w }: { webhook: Webhook }) {
  if (!w.enabled) {
    return <p className="webhook-off"><strong>{disabledInWords(w)}</strong>{w.disabled_at ? ` Since ${formatTime(w.disabled_at)}.` : ''} It gets no deliveries until it is enabled.</p>;
  }
  if (w.failing_since) return <p className="webhook-failing">Enabled. Deliveries have been failing since {formatTime(w.failing_since)}.</p>;
  return <p>Enabled. {w.last_success_at ? `Last successful delivery ${formatTime(w.last_success_at)}.` : 'No successful delivery yet.'}</p>;
}

/** /settings/webhooks: the workspace's endpoints, and a new one (its secret shown once). */
export function WebhookList() {
  const [generation, setGeneration] = useState(0);
  const pages = usePages<Webhook>(String(generation), (cursor) => webhooksApi.list(cursor));
  const [adding, setAdding] = useState(false);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);
  const [enableError, setEnableError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function create(input: Parameters<typeof webhooksApi.create>[0]) {
    const webhook = await webhooksApi.create(input);
    setAdding(false);
    setCreated(webhook);
    setGeneration((g) => g + 1);
  }

  async function enable(w: Webhook) {
    setEnableError(null);
    setNotice(null);
    try {
      await webhooksApi.update(w.id, { enabled: true });
      setNotice(`${w.url} is enabled again: new events are delivered to it.`);
      setGeneration((g) => g + 1);
    } catch (err) {
      setEnableError(err);
    }
  }

  return (
    <div className="webhooks">
      <div className="page-heading">
        <h1>Webhooks</h1>
        {!adding && !pages.error ? <button type="button" onClick={() => { setAdding(true); setCreated(null); }}>Add an endpoint</button> : null}
      </div>
      <p className="muted">Jobsite POSTs each event to these addresses, signed with the endpoint’s secret. See the delivery log of an endpoint to follow them.</p>
      {adding
        ? (
          <section aria-labelledby="new-webhook" className="panel">
            <h2 id="new-webhook">New endpoint</h2>
            <WebhookForm submitLabel="Create endpoint" onSubmit={create} onCancel={() => setAdding(false)} />
          </section>
        )
        : null}
      {created
        ? (
          <SecretOnce secret={created.secret} heading="The endpoint is created: its signing secret" onDone={() => setCreated(null)}>
            <p>Deliveries to <span className="url">{created.url}</span> are signed with it. <Link href={`/settings/webhooks/${created.id}`}>Open the endpoint</Link> to send a test event.</p>
          </SecretOnce>
        )
        : null}
      {notice ? <p role="status" className="notice">{notice}</p> : null}
      {enableError ? <ErrorMessage error={enableError} /> : null}
      {pages.error ? <ErrorMessage error={pages.error} /> : null}
      {!pages.loading && !pages.error && pages.items.length === 0 ? <p>No endpoints yet.</p> : null}
      <ul className="webhook-list" aria-label="Endpoints">
        {pages.items.map((w) => (
          <li key={w.id} className="webhook-card">
            <Link href={`/settings/webhooks/${w.id}`} className="url">{w.url}</Link>
            {w.description ? <p>{w.description}</p> : null}
            <p className="muted">Events: {eventsInWords(w.events)}</p>
            <WebhookHealth webhook={w} />
            {!w.enabled ? <button type="button" onClick={() => enable(w)} aria-label={`Enable ${w.url}`}>Enable</button> : null}
          </li>
        ))}
      </ul>
      {pages.loading ? <p role="status">Loading…</p> : null}
      {pages.hasMore && !pages.loading ? <button type="button" className="secondary" onClick={pages.loadMore}>Load more</button> : null}
    </div>
  );
}
