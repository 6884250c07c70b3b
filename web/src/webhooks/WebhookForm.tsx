import { useId, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { useAction } from '../useAction.ts';
import { EventPicker } from './EventPicker.tsx';
import type { Webhook, WebhookInput } from './webhooksApi.ts';

/** The API's words about one field (`body.url`, `body.events.3`), if it named it. */
function fieldProblem(error: unknown, field: string): string | undefined {
  if (!(error instanceof ApiProblem)) return undefined;
  const found = error.errors.filter((e) => e.path === `body.${field}` || e.path.startsWith(`body.${field}.`));
  return found.length ? found.map((e) => e.message).join('; ') : undefined;
}

/**
 * A new endpoint, or changes to one: URL, description, events and (editing) enabled. The URL is
 * checked by the API (http(s), public addresses only); its refusal shows under the field in words.
 */
export function WebhookForm({ webhook, submitLabel, onSubmit, onCancel }: {
  webhook?: Webhook;
  submitLabel: string;
  onSubmit(input: WebhookInput): Promise<void>;
  onCancel(): void;
}) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? ['*']);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const action = useAction();
  const id = useId();
  const urlProblem = fieldProblem(action.error, 'url');
  const eventsProblem = fieldProblem(action.error, 'events') ?? (events.length === 0 && action.error ? 'Choose at least one event, or All events.' : undefined);

  async function submit(e: FormEvent) {
    e.preventDefault();
    action.clear();
    if (events.length === 0) {
      action.setError(new ApiProblem(0, 'no_events', 'Choose what to send', 'Tick All events, or at least one event type.'));
      return;
    }
    await action.run(() => onSubmit({ url: url.trim(), description: description.trim() || null, events, ...(webhook ? { enabled } : {}) }));
  }

  return (
    <form className="webhook-form" onSubmit={submit} noValidate>
      <label htmlFor={`${id}-url`}>URL</label>
      <p className="hint" id={`${id}-url-hint`}>Where the events are POSTed: an http(s) address on the public internet.</p>
      <input
        id={`${id}-url`} type="url" inputMode="url" autoComplete="off" required value={url} maxLength={2000}
        aria-invalid={urlProblem ? true : undefined}
        aria-describedby={`${id}-url-hint${urlProblem ? ` ${id}-url-problem` : ''}`}
        onChange={(e) => setUrl(e.target.value)}
      />
      {urlProblem ? <p id={`${id}-url-problem`} className="field-problem">{urlProblem}</p> : null}
      <label htmlFor={`${id}-description`}>Description <span className="muted">(optional)</span></label>
      <input id={`${id}-description`} value={description} maxLength={1000} onChange={(e) => setDescription(e.target.value)} />
      <EventPicker value={events} onChange={setEvents} problem={eventsProblem} />
      {webhook
        ? (
          <label className="check">
            <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
            Enabled (a disabled endpoint gets no deliveries)
          </label>
        )
        : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : submitLabel}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
