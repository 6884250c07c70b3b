import { useEffect, useId, useState, type FormEvent } from 'react';
import { api, request, type Page, type Project } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import './unfiled.css';

/** Waits this long after the last keystroke before asking for projects by name. */
const FIND_DELAY_MS = 250;

/**
 * The active projects a photo may be moved to: the 100 most recently changed, or, once a few
 * letters are typed into the finder, those whose name or address holds them (`GET /v1/projects?q=`),
 * so that any project can be chosen, however many the workspace has.
 */
export function useProjectChoices(): { projects: Project[]; error: unknown; find: string; setFind(text: string): void; foundFor: string | null } {
  const [find, setFind] = useState('');
  const [projects, setProjects] = useState<Project[]>([]);
  // The words the projects were found for ('' for the most recent ones); null while none are loaded.
  const [foundFor, setFoundFor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // What is asked for: the words once two letters or more are typed, else '' (the most recent);
  // typing the first letter, or spaces, asks nothing new.
  const q = find.trim().length >= 2 ? find.trim() : '';
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      const query = q ? { q, limit: 100 } : { sort: 'updated_at', limit: 100 };
      request<Page<Project>>('GET', '/v1/projects', { query })
        .then((page) => {
          if (!live) return;
          setError(null);
          setProjects(page.data.filter((p) => p.status === 'active'));
          setFoundFor(q);
        }, (err) => live && setError(err));
    }, q ? FIND_DELAY_MS : 0);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [q]);
  return { projects, error, find, setFind, foundFor };
}

/** The box that narrows the projects to choose from, by name or address, and what it found. */
export function ProjectFinder({ choices }: { choices: ReturnType<typeof useProjectChoices> }) {
  const { find, setFind, foundFor, projects } = choices;
  const id = useId();
  const q = find.trim();
  const count = projects.length;
  const hint = q.length < 2
    ? 'The choices are the 100 most recently changed projects; type two letters or more to find any other.'
    : foundFor !== q ? 'Finding projects…'
    : `${count === 0 ? 'No' : count} active project${count === 1 ? ' matches' : 's match'} “${q}”.`;
  return (
    <div className="unfiled-find">
      <label htmlFor={id}>Find a project</label>
      <input id={id} type="search" value={find} onChange={(e) => setFind(e.target.value)} placeholder="Name or address" aria-describedby={`${id}-hint`} />
      <p id={`${id}-hint`} className="muted" aria-live="polite">{hint}</p>
    </div>
  );
}

/**
 * A labelled "Move to project" choice and its button: `PATCH /v1/photos/{id}` with `project_id`
 * (docs/photos.md, "Photos that file themselves"). A refusal shows under it.
 */
export function MoveToProject({ photoId, projects, onMoved }: { photoId: string; projects: Project[]; onMoved(project: Project): void }) {
  const [target, setTarget] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const id = useId();

  // A choice the finder has since taken off the list is no choice.
  const chosen = projects.some((p) => p.id === target) ? target : '';

  async function move(e: FormEvent) {
    e.preventDefault();
    const project = projects.find((p) => p.id === chosen);
    if (!project) return;
    setBusy(true);
    setError(null);
    try {
      await api.movePhoto(photoId, project.id);
      onMoved(project);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <>
      <form onSubmit={move} className="unfiled-move">
        <label htmlFor={`${id}-project`}>Move to project</label>
        <select id={`${id}-project`} value={chosen} onChange={(e) => setTarget(e.target.value)} disabled={busy}>
          <option value="">Choose a project…</option>
          {projects.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
        <button type="submit" disabled={busy || !chosen}>{busy ? 'Moving…' : 'Move'}</button>
      </form>
      {error ? <ErrorMessage error={error} /> : null}
    </>
  );
}
