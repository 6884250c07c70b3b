import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { ApiProblem, displayName, type Photo, type Project, type User } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { projectsApi, type ProjectDetails, type ProjectTag, type Tag } from './projectsApi.ts';
import './projects.css';

/** What the project form chooses besides the fields: the crew, the tags, the cover photo. */
export interface ProjectExtras {
  memberIds: string[];
  tags: ProjectTag[];
  coverPhotoId: string | null;
}

export function extrasOf(project: Project | null): ProjectExtras {
  const p = project as ProjectDetails | null;
  return { memberIds: p?.member_ids ?? [], tags: p?.tags ?? [], coverPhotoId: p?.cover_photo_id ?? null };
}

/**
 * The crew and tag changes between `before` and `after`, one PUT or DELETE each (the API's
 * idempotent crew and tagging endpoints). True when anything was sent.
 */
export async function saveCrewAndTags(projectId: string, before: ProjectExtras, after: ProjectExtras): Promise<boolean> {
  const calls: Array<() => Promise<unknown>> = [];
  for (const userId of after.memberIds) if (!before.memberIds.includes(userId)) calls.push(() => projectsApi.addMember(projectId, userId));
  for (const userId of before.memberIds) if (!after.memberIds.includes(userId)) calls.push(() => projectsApi.removeMember(projectId, userId));
  const had = new Set(before.tags.map((t) => t.id));
  const has = new Set(after.tags.map((t) => t.id));
  for (const tag of after.tags) if (!had.has(tag.id)) calls.push(() => projectsApi.applyTag(projectId, tag.id));
  for (const tag of before.tags) if (!has.has(tag.id)) calls.push(() => projectsApi.removeTag(projectId, tag.id));
  // One after the other: each moves the project's updated_at under its row lock anyway.
  for (const call of calls) await call();
  return calls.length > 0;
}

function useLoaded<T>(load: () => Promise<T>, key: string) {
  const [state, setState] = useState<{ value: T | null; error: unknown }>({ value: null, error: null });
  useEffect(() => {
    let live = true;
    load().then((value) => live && setState({ value, error: null }), (error) => live && setState({ value: null, error }));
    return () => {
      live = false;
    };
  // `load` is new on every render; `key` says when to load again.
  }, [key]);
  return state;
}

/** The crew: a checkbox for each active user of the workspace. */
export function CrewFieldset({ value, onChange }: { value: string[]; onChange(memberIds: string[]): void }) {
  const users = useLoaded<User[]>(projectsApi.users, 'users');
  const id = useId();
  return (
    <fieldset className="choice-list">
      <legend>Crew (optional)</legend>
      {users.error ? <ErrorMessage error={users.error} /> : null}
      {!users.value && !users.error ? <p role="status">Loading people…</p> : null}
      {users.value?.length === 0 ? <p>No one to add yet.</p> : null}
      {users.value && users.value.length > 0
        ? (
          <ul className="checkbox-list">
            {users.value.map((user) => (
              <li key={user.id}>
                <input
                  type="checkbox" id={`${id}-${user.id}`} checked={value.includes(user.id)}
                  onChange={(e) => onChange(e.target.checked ? [...value, user.id] : value.filter((m) => m !== user.id))}
                />
                <label htmlFor={`${id}-${user.id}`}>
                  {displayName(user)}
                  {displayName(user) !== user.email ? <span className="muted"> {user.email}</span> : null}
                </label>
              </li>
            ))}
          </ul>
        )
        : null}
    </fieldset>
  );
}

/**
 * The tags: the chosen ones, each with a Remove button; a list of the workspace's other tags to add
 * one; and a new tag made on the spot (POST /v1/tags; a name already taken picks that tag).
 */
export function TagsFieldset({ value, onChange }: { value: ProjectTag[]; onChange(tags: ProjectTag[]): void }) {
  const [generation, setGeneration] = useState(0);
  const tags = useLoaded<Tag[]>(projectsApi.tags, String(generation));
  const [extra, setExtra] = useState<Tag[]>([]);
  const [choice, setChoice] = useState('');
  const [newName, setNewName] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [creating, setCreating] = useState(false);
  const addRef = useRef<HTMLSelectElement>(null);
  const id = useId();
  const all = [...(tags.value ?? []), ...extra.filter((t) => !tags.value?.some((k) => k.id === t.id))];
  const chosen = new Set(value.map((t) => t.id));
  const others = all.filter((t) => !chosen.has(t.id));

  const choose = (tag: ProjectTag) => {
    if (!chosen.has(tag.id)) onChange([...value, { id: tag.id, name: tag.name, color: tag.color }]);
  };
  const remove = (tag: ProjectTag) => {
    onChange(value.filter((t) => t.id !== tag.id));
    // The button is gone: focus goes to the list of tags to add, next to where it was.
    addRef.current?.focus();
  };
  async function create() {
    const name = newName.trim();
    setError(null);
    if (!name) {
      setError(new ApiProblem(400, 'tag_name_missing', 'Enter a name for the new tag.', ''));
      return;
    }
    const existing = all.find((t) => t.name.toLocaleLowerCase() === name.toLocaleLowerCase());
    if (existing) {
      choose(existing);
      setNewName('');
      return;
    }
    setCreating(true);
    try {
      const tag = await projectsApi.createTag(name);
      setExtra((e) => [...e, tag]);
      choose(tag);
      setNewName('');
    } catch (err) {
      // 409: someone has just made a tag of that name: load the tags again and pick it.
      if (err instanceof ApiProblem && err.code === 'tag_name_taken') setGeneration((g) => g + 1);
      setError(err);
    } finally {
      setCreating(false);
    }
  }
  const onNewKey = (e: KeyboardEvent<HTMLInputElement>) => {
    // Enter here makes the tag; it does not send the whole form.
    if (e.key === 'Enter') {
      e.preventDefault();
      void create();
    }
  };

  return (
    <fieldset className="choice-list">
      <legend>Tags (optional)</legend>
      {value.length > 0
        ? (
          <ul className="tag-chips" aria-label="Chosen tags">
            {value.map((tag) => (
              <li key={tag.id} className="tag-chip">
                <span className="tag-swatch" style={{ background: tag.color }} aria-hidden="true" />
                {tag.name}
                <button type="button" className="chip-remove" aria-label={`Remove tag ${tag.name}`} onClick={() => remove(tag)}>×</button>
              </li>
            ))}
          </ul>
        )
        : <p className="muted">No tags chosen.</p>}
      {tags.error ? <ErrorMessage error={tags.error} /> : null}
      <label htmlFor={`${id}-add`}>Add a tag</label>
      <div className="inline-row">
        <select id={`${id}-add`} ref={addRef} value={choice} onChange={(e) => setChoice(e.target.value)} disabled={!tags.value}>
          <option value="">{tags.value ? (others.length ? 'Choose a tag…' : 'No other tags') : 'Loading tags…'}</option>
          {others.map((tag) => <option key={tag.id} value={tag.id}>{tag.name}</option>)}
        </select>
        <button
          type="button" disabled={!choice}
          onClick={() => {
            const tag = all.find((t) => t.id === choice);
            if (tag) choose(tag);
            setChoice('');
          }}
        >Add tag</button>
      </div>
      <label htmlFor={`${id}-new`}>Or a new tag</label>
      <div className="inline-row">
        <input id={`${id}-new`} value={newName} maxLength={50} autoComplete="off" onChange={(e) => setNewName(e.target.value)} onKeyDown={onNewKey} />
        <button type="button" disabled={creating} onClick={() => void create()}>{creating ? 'Creating…' : 'Create tag'}</button>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
    </fieldset>
  );
}

const photoTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The cover: none, or one of the project's processed photos (the API accepts only those). */
export function CoverFieldset({ projectId, value, onChange }: { projectId: string; value: string | null; onChange(photoId: string | null): void }) {
  const photos = useLoaded(() => projectsApi.coverCandidates(projectId).then((page) => page.data), projectId);
  const id = useId();
  const option = (photoId: string | null, label: ReactNode) => (
    <li key={photoId ?? 'none'}>
      <input type="radio" name={`${id}-cover`} id={`${id}-${photoId ?? 'none'}`} checked={value === photoId} onChange={() => onChange(photoId)} />
      <label htmlFor={`${id}-${photoId ?? 'none'}`}>{label}</label>
    </li>
  );
  return (
    <fieldset className="choice-list">
      <legend>Cover photo</legend>
      {photos.error ? <ErrorMessage error={photos.error} /> : null}
      {!photos.value && !photos.error ? <p role="status">Loading photos…</p> : null}
      <ul className="cover-choices">
        {option(null, 'No cover photo')}
        {(photos.value ?? []).filter((p: Photo) => p.variants.thumbnail).map((photo: Photo) => option(photo.id, (
          <img
            src={photo.variants.thumbnail!} width="96" height="96" loading="lazy"
            alt={photo.caption ? `${photo.caption} (${photoTime.format(new Date(photo.captured_at))})` : `Photo taken ${photoTime.format(new Date(photo.captured_at))}`}
          />
        )))}
      </ul>
      {photos.value?.length === 0 ? <p className="muted">No processed photos yet: upload some to choose a cover.</p> : null}
    </fieldset>
  );
}
