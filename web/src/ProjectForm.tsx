import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { ApiProblem, type Project, type ProjectInput } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { CoverFieldset, CrewFieldset, extrasOf, TagsFieldset, type ProjectExtras } from './projects/ProjectFormExtras.tsx';
import { useAction } from './useAction.ts';

type Field = 'name' | 'street_address_1' | 'city' | 'state' | 'postal_code' | 'country' | 'lat' | 'lon' | 'radius_m';
type Values = Record<Field, string>;

const LABELS: Record<Field, string> = {
  name: 'Name', street_address_1: 'Street', city: 'City', state: 'State', postal_code: 'Postal code',
  country: 'Country', lat: 'Latitude', lon: 'Longitude', radius_m: 'Geofence radius in metres',
};
const FIELDS = Object.keys(LABELS) as Field[];

function valuesOf(p: Project | null): Values {
  return {
    name: p?.name ?? '', street_address_1: p?.address.street_address_1 ?? '', city: p?.address.city ?? '',
    state: p?.address.state ?? '', postal_code: p?.address.postal_code ?? '', country: p?.address.country ?? '',
    lat: p?.coordinates ? String(p.coordinates.lat) : '', lon: p?.coordinates ? String(p.coordinates.lon) : '',
    radius_m: p?.geofence && 'radius_m' in p.geofence ? String(p.geofence.radius_m) : '',
  };
}

/** The checks the API makes too, in words and before sending: a name; both coordinates or neither, in range. */
export function checkProject(v: Values): Partial<Record<Field, string>> {
  const errors: Partial<Record<Field, string>> = {};
  if (!v.name.trim()) errors.name = 'Enter a name.';
  const lat = v.lat.trim();
  const lon = v.lon.trim();
  if (lat && !lon) errors.lon = 'Enter a longitude too, or clear the latitude.';
  if (lon && !lat) errors.lat = 'Enter a latitude too, or clear the longitude.';
  if (lat && !(Number.isFinite(Number(lat)) && Number(lat) >= -90 && Number(lat) <= 90)) errors.lat = 'Latitude must be a number from -90 to 90.';
  if (lon && !(Number.isFinite(Number(lon)) && Number(lon) >= -180 && Number(lon) <= 180)) errors.lon = 'Longitude must be a number from -180 to 180.';
  const radius = v.radius_m.trim();
  if (radius && !(Number.isFinite(Number(radius)) && Number(radius) >= 1 && Number(radius) <= 50_000)) errors.radius_m = 'The radius must be a number of metres from 1 to 50,000.';
  else if (radius && !(lat && lon)) errors.radius_m = 'A radius is drawn around the coordinates: enter them too, or clear the radius.';
  return errors;
}

/** `initial`: the values the form opened with; the geofence is sent only when its field changed (a drawn polygon stays as it is). */
function inputOf(v: Values, initial: Values): ProjectInput {
  const part = (s: string) => s.trim() || null;
  const radius = v.radius_m.trim();
  return {
    name: v.name.trim(),
    address: { street_address_1: part(v.street_address_1), city: part(v.city), state: part(v.state), postal_code: part(v.postal_code), country: part(v.country) },
    coordinates: v.lat.trim() && v.lon.trim() ? { lat: Number(v.lat), lon: Number(v.lon) } : null,
    ...(radius === initial.radius_m.trim() ? {} : { geofence: radius ? { radius_m: Number(radius) } : null }),
  };
}

/** The API's `errors[]` path ("body/address/city", "coordinates.lat") → our field, if it is one. */
function fieldOfPath(path: string): Field | null {
  const last = path.split(/[./]/).filter(Boolean).pop() ?? '';
  return (FIELDS as string[]).includes(last) ? last as Field : null;
}

/**
 * A project's name, address, coordinates, crew, tags and (on an edit) cover: new (empty) or an
 * edit (pre-filled). Checked here before sending; the API's field errors are shown next to their
 * fields, the others as a list.
 */
export function ProjectForm({ title, project, submitLabel, onSubmit, onCancel, problemWords }: {
  title: string;
  project: Project | null;
  submitLabel: string;
  /** `extras`: the crew, tags and cover chosen (the cover only on an edit). */
  onSubmit: (input: ProjectInput, extras: ProjectExtras) => Promise<void>;
  onCancel: () => void;
  /** Words for a problem this form's caller knows better (412 on an edit). */
  problemWords?: (problem: ApiProblem) => ReactNode | null;
}) {
  const [initial] = useState<Values>(() => valuesOf(project));
  const [values, setValues] = useState<Values>(initial);
  const [extras, setExtras] = useState<ProjectExtras>(() => extrasOf(project));
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [otherErrors, setOtherErrors] = useState<string[]>([]);
  const action = useAction();
  const id = useId();
  const headingId = `${id}-heading`;

  async function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = e.currentTarget;
    action.clear();
    setOtherErrors([]);
    const found = checkProject(values);
    setFieldErrors(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      (form.elements.namedItem(first) as HTMLInputElement | null)?.focus();
      return;
    }
    await action.run(() => onSubmit(inputOf(values, initial), extras), (err) => {
      if (err instanceof ApiProblem && err.errors.length > 0) {
        const byField: Partial<Record<Field, string>> = {};
        const others: string[] = [];
        for (const fe of err.errors) {
          const f = fieldOfPath(fe.path);
          if (f) byField[f] = `${LABELS[f]} ${fe.message}.`;
          else others.push(`${fe.path} ${fe.message}`);
        }
        setFieldErrors(byField);
        setOtherErrors(others);
      }
      action.setError(err);
    });
  }

  const custom = action.error instanceof ApiProblem && problemWords ? problemWords(action.error) : null;
  const field = (f: Field, extra: { required?: boolean; inputMode?: 'decimal'; autoComplete?: string; hint?: string } = {}) => {
    const inputId = `${id}-${f}`;
    const errorId = `${inputId}-error`;
    const hintId = `${inputId}-hint`;
    const describedBy = [extra.hint ? hintId : '', fieldErrors[f] ? errorId : ''].filter(Boolean).join(' ') || undefined;
    return (
      <div className="form-field">
        <label htmlFor={inputId}>{LABELS[f]}{extra.required ? '' : ' (optional)'}</label>
        {extra.hint ? <p className="muted hint" id={hintId}>{extra.hint}</p> : null}
        <input
          id={inputId} name={f} value={values[f]} autoFocus={f === 'name'} required={extra.required} inputMode={extra.inputMode} autoComplete={extra.autoComplete ?? 'off'}
          aria-invalid={fieldErrors[f] ? true : undefined} aria-describedby={describedBy}
          onChange={(e) => {
            setValues({ ...values, [f]: e.target.value });
            // The problem goes as soon as the field changes; the check runs again on sending.
            if (fieldErrors[f]) setFieldErrors({ ...fieldErrors, [f]: undefined });
          }}
        />
        {fieldErrors[f] ? <p className="field-error" id={errorId}>{fieldErrors[f]}</p> : null}
      </div>
    );
  };

  return (
    <form className="project-form" aria-labelledby={headingId} onSubmit={submit} noValidate>
      <h2 id={headingId}>{title}</h2>
      {custom ?? (action.error ? <ErrorMessage error={action.error} /> : null)}
      {otherErrors.length > 0 ? <ul className="error" aria-label="Problems">{otherErrors.map((m) => <li key={m}>{m}</li>)}</ul> : null}
      {field('name', { required: true })}
      {field('street_address_1', { autoComplete: 'address-line1' })}
      {field('city', { autoComplete: 'address-level2' })}
      {field('state', { autoComplete: 'address-level1' })}
      {field('postal_code', { autoComplete: 'postal-code' })}
      {field('country', { autoComplete: 'country-name' })}
      <fieldset>
        <legend>Coordinates (optional: both or neither)</legend>
        {field('lat', { inputMode: 'decimal', hint: 'From -90 to 90, e.g. -36.8485' })}
        {field('lon', { inputMode: 'decimal', hint: 'From -180 to 180, e.g. 174.7633' })}
      </fieldset>
      {field('radius_m', {
        inputMode: 'decimal',
        hint: project?.geofence && 'type' in project.geofence
          ? 'This project has a drawn geofence (set through the API). A radius here replaces it; leave this empty to keep it.'
          : 'Photos uploaded without a project and taken within this distance of the coordinates are filed here. From 1 to 50,000.',
      })}
      <CrewFieldset value={extras.memberIds} onChange={(memberIds) => setExtras((x) => ({ ...x, memberIds }))} />
      <TagsFieldset value={extras.tags} onChange={(tags) => setExtras((x) => ({ ...x, tags }))} />
      {/* A new project has no photos yet: the cover is chosen on an edit. */}
      {project ? <CoverFieldset projectId={project.id} value={extras.coverPhotoId} onChange={(coverPhotoId) => setExtras((x) => ({ ...x, coverPhotoId }))} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : submitLabel}</button>
        <button type="button" onClick={onCancel} disabled={action.busy}>Cancel</button>
      </div>
    </form>
  );
}
