import { useEffect, useId, useState } from 'react';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { webhooksApi, type EventType } from './webhooksApi.ts';

let catalogue: Promise<EventType[]> | null = null;
/** GET /v1/event-types once per page load: the list is fixed by the server version. */
export function eventTypes(): Promise<EventType[]> {
  catalogue ??= webhooksApi.eventTypes().then((r) => r.data, (err) => {
    catalogue = null;
    throw err;
  });
  return catalogue;
}

/** Event types grouped by their resource ("photo" → photo.created, …), in the catalogue's order. */
function byResource(types: EventType[]): Array<{ resource: string; types: EventType[] }> {
  const groups: Array<{ resource: string; types: EventType[] }> = [];
  // A ping reaches its endpoint whatever it subscribes to, so subscribing to it means nothing.
  for (const type of types.filter((t) => t.name !== 'webhook.ping')) {
    const resource = type.name.slice(0, type.name.indexOf('.'));
    const group = groups.find((g) => g.resource === resource);
    if (group) group.types.push(type);
    else groups.push({ resource, types: [type] });
  }
  return groups;
}

/**
 * The endpoint's event filter as checkboxes: "All events" (`*`), or per resource "every photo
 * event" (`photo.*`, which also takes photo events added later) and the single event types.
 * `value` is the list of patterns the API stores.
 */
export function EventPicker({ value, onChange, problem }: { value: string[]; onChange(next: string[]): void; problem?: string }) {
  const [types, setTypes] = useState<EventType[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const id = useId();
  useEffect(() => {
    let live = true;
    eventTypes().then((t) => live && setTypes(t), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, []);

  const all = value.includes('*');
  const has = (pattern: string) => value.includes(pattern);
  const toggle = (pattern: string, on: boolean) => {
    const rest = value.filter((p) => p !== pattern);
    if (!on) return onChange(rest);
    // A resource wildcard takes in its single events: they are not stored twice.
    if (pattern.endsWith('.*')) return onChange([...rest.filter((p) => !p.startsWith(pattern.slice(0, -1))), pattern]);
    onChange([...rest, pattern]);
  };

  return (
    <fieldset className="event-picker" aria-describedby={problem ? `${id}-problem` : undefined}>
      <legend>Events to send</legend>
      <p className="hint">A test event (ping) reaches the endpoint whatever it subscribes to.</p>
      <label className="check">
        <input type="checkbox" checked={all} onChange={(e) => onChange(e.target.checked ? ['*'] : [])} />
        All events, including kinds added later
      </label>
      {error ? <ErrorMessage error={error} /> : null}
      {!types && !error ? <p role="status">Loading the event types…</p> : null}
      {types && !all
        ? byResource(types).map((group) => {
          const wildcard = `${group.resource}.*`;
          const every = has(wildcard);
          return (
            <fieldset key={group.resource} className="event-group">
              <legend>{group.resource.replace('_', ' ')}</legend>
              <label className="check">
                <input type="checkbox" checked={every} onChange={(e) => toggle(wildcard, e.target.checked)} />
                Every {group.resource.replace('_', ' ')} event
              </label>
              {group.types.map((type) => (
                <label key={type.name} className="check" title={type.description}>
                  <input type="checkbox" checked={every || has(type.name)} disabled={every} onChange={(e) => toggle(type.name, e.target.checked)} />
                  <code>{type.name}</code>
                </label>
              ))}
            </fieldset>
          );
        })
        : null}
      {problem ? <p id={`${id}-problem`} className="field-problem">{problem}</p> : null}
    </fieldset>
  );
}
