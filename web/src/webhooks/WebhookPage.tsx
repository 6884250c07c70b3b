import { useEffect, useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { useAction } from '../useAction.ts';
import { DeliveryLog } from './DeliveryLog.tsx';
import { WebhookHealth } from './WebhookList.tsx';
import { SecretOnce } from './SecretOnce.tsx';
import { WebhookForm } from './WebhookForm.tsx';
import { eventsInWords, formatTime, webhooksApi, type Webhook, type WebhookInput } from './webhooksApi.ts';

/** The grace periods offered for a rotation (the API takes 0..7 days; 24 h is its default). */
const GRACE = [
  { seconds: 86_400, words: '24 hours' },
  { seconds: 3_600, words: '1 hour' },
  { seconds: 604_800, words: '7 days' },
  { seconds: 0, words: 'none: the old secret stops at once' },
] as const;

type Confirming = 'delete' | 'rotate' | null;

/** How long a ping is followed on this page before saying it is still on its way. */
const PING_WATCH_MS = 15_000;

/** /settings/webhooks/{id}: one endpoint, what can be done to it, and its delivery log. */
export function WebhookPage({ id }: { id: string }) {
  const [webhook, setWebhook] = useState<Webhook | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [grace, setGrace] = useState<number>(GRACE[0].seconds);
  const [secret, setSecret] = useState<{ value: string; grace: number } | null>(null);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [logGeneration, setLogGeneration] = useState(0);
  const [, navigate] = useLocation();
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  useEffect(() => {
    let current = true;
    setWebhook(null);
    setLoadError(null);
    webhooksApi.get(id).then((w) => current && setWebhook(w), (err) => current && setLoadError(err));
    return () => {
      current = false;
    };
  }, [id]);

  /** Runs one action: clears the last message, shows the error in words if it fails. */
  function act(work: () => Promise<void>) {
    setNotice(null);
    return action.run(work);
  }

  const save = async (input: WebhookInput) => {
    setWebhook(await webhooksApi.update(id, input));
    setEditing(false);
    setNotice('The endpoint is saved.');
  };

  const setEnabled = (enabled: boolean) => act(async () => {
    setWebhook(await webhooksApi.update(id, { enabled }));
    setNotice(enabled ? 'The endpoint is enabled: new events are delivered to it.' : 'The endpoint is disabled: it gets no deliveries, and those waiting for a retry have failed.');
    setLogGeneration((g) => g + 1);
  });

  const ping = () => act(async () => {
    const { delivery_id } = await webhooksApi.ping(id);
    setNotice('A test event is queued; it appears in the delivery log below.');
    setLogGeneration((g) => g + 1);
    // Follow it for a while, so the answer shows here without looking for it in the log.
    const until = Date.now() + PING_WATCH_MS;
    while (live.current && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 1000));
      const d = await webhooksApi.delivery(id, delivery_id);
      const last = d.attempts[d.attempts.length - 1];
      if (last || d.status !== 'pending') {
        setNotice(d.status === 'succeeded'
          ? `The test event was delivered: the endpoint answered ${last?.status_code ?? ''} in ${last?.duration_ms ?? 0} ms.`
          : `The test event was not delivered: ${last?.status_code ? `the endpoint answered ${last.status_code}` : last?.error ?? d.last_error ?? 'no answer'}.${d.status === 'pending' ? ' It will be tried again.' : ''}`);
        setLogGeneration((g) => g + 1);
        return;
      }
    }
  });

  const rotate = () => act(async () => {
    const rotated = await webhooksApi.rotateSecret(id, grace);
    setConfirming(null);
    const { secret: value, ...rest } = rotated;
    setWebhook(rest);
    setSecret({ value, grace });
  });

  const remove = () => act(async () => {
    await webhooksApi.delete(id);
    navigate('/settings/webhooks', { replace: true });
  });

  if (loadError) {
    return <div className="webhooks"><p><Link href="/settings/webhooks">All webhooks</Link></p><h1>Webhook endpoint</h1><ErrorMessage error={loadError} /></div>;
  }
  if (!webhook) return <p role="status">Loading…</p>;
  const graceWords = GRACE.find((g) => g.seconds === grace)?.words ?? `${grace} s`;

  return (
    <div className="webhooks">
      <p><Link href="/settings/webhooks">All webhooks</Link></p>
      <h1 className="url">{webhook.url}</h1>
      {webhook.description ? <p>{webhook.description}</p> : null}
      <p className="muted">Events: {eventsInWords(webhook.events)}</p>
      <WebhookHealth webhook={webhook} />
      {webhook.previous_secret_expires_at
        ? <p>After the last rotation, the previous secret also signs deliveries until {formatTime(webhook.previous_secret_expires_at)}.</p>
        : null}
      {secret
        ? (
          <SecretOnce secret={secret.value} heading="The new signing secret" onDone={() => setSecret(null)}>
            <p>{secret.grace > 0
              ? `For ${GRACE.find((g) => g.seconds === secret.grace)?.words ?? `${secret.grace} s`}, deliveries are signed with both the new and the old secret, so the receiver keeps verifying while you change it over.`
              : 'The old secret no longer signs: the receiver must use this one now.'}</p>
          </SecretOnce>
        )
        : null}
      <p role="status" className={notice ? 'notice' : 'visually-hidden'}>{notice}</p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      {editing
        ? (
          <section aria-labelledby="edit-webhook" className="panel">
            <h2 id="edit-webhook">Edit the endpoint</h2>
            <WebhookForm webhook={webhook} submitLabel="Save" onSubmit={save} onCancel={() => setEditing(false)} />
          </section>
        )
        : (
          <div className="form-actions">
            <button type="button" onClick={ping} disabled={action.busy || !webhook.enabled}>Send a test event</button>
            <button type="button" className="secondary" onClick={() => setEditing(true)}>Edit</button>
            <button type="button" className="secondary" onClick={() => setEnabled(!webhook.enabled)} disabled={action.busy}>{webhook.enabled ? 'Disable' : 'Enable'}</button>
            <button type="button" className="secondary" onClick={() => setConfirming('rotate')}>Rotate secret</button>
            <button type="button" className="danger" onClick={() => setConfirming('delete')}>Delete</button>
          </div>
        )}
      <ConfirmDialog
        open={confirming === 'delete'} title="Delete this endpoint?" confirmLabel="Delete endpoint" danger busy={action.busy}
        onConfirm={remove} onCancel={() => setConfirming(null)}
      >
        <p>Deliveries to <span className="url">{webhook.url}</span> stop, and its delivery log is deleted with it. This cannot be undone.</p>
        {action.error && confirming === 'delete' ? <ErrorMessage error={action.error} /> : null}
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'rotate'} title="Rotate the signing secret?" confirmLabel="Rotate secret" busy={action.busy}
        onConfirm={rotate} onCancel={() => setConfirming(null)}
      >
        <p>A new secret is made and shown once. The old one can keep signing alongside it for a while, so the receiver does not reject deliveries while you change it over.</p>
        <label htmlFor="grace">Keep the old secret signing for</label>
        <select id="grace" value={grace} onChange={(e) => setGrace(Number(e.target.value))}>
          {GRACE.map((g) => <option key={g.seconds} value={g.seconds}>{g.words}</option>)}
        </select>
        <p className="hint">Chosen: {graceWords}. Deliveries then carry two signatures.</p>
        {action.error && confirming === 'rotate' ? <ErrorMessage error={action.error} /> : null}
      </ConfirmDialog>
      <DeliveryLog webhookId={id} enabled={webhook.enabled} generation={logGeneration} />
    </div>
  );
}
