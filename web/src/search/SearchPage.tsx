import { useEffect, useId, useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { search, SEARCH_LIMIT, SEARCH_TYPES, snippetParts, type SearchResult, type SearchType } from './searchApi.ts';
import './search.css';

const TYPE_WORDS: Record<SearchType, { one: string; many: string }> = {
  project: { one: 'Project', many: 'Projects' },
  photo: { one: 'Photo', many: 'Photo captions' },
  video: { one: 'Video', many: 'Videos' },
  task: { one: 'Task', many: 'Tasks' },
  comment: { one: 'Comment', many: 'Comments' },
  document: { one: 'Document', many: 'Documents' },
};

/** `/search?q=…&type=…&project_id=…`: the address holds the search, so back and a shared link find it again. */
export function searchAddress(q: string, type: SearchType | null, projectId: string | null): string {
  const params = new URLSearchParams({ q });
  if (type) params.set('type', type);
  if (projectId) params.set('project_id', projectId);
  return `/search?${params}`;
}

/** Where a hit opens. Comments and videos go through /comments/{id} and /videos/{id} (SearchRedirects). */
function hrefOf(hit: SearchResult): string {
  switch (hit.type) {
    case 'project': return `/projects/${hit.id}`;
    case 'photo': return `/photos/${hit.id}`;
    case 'task': return `/projects/${hit.project_id}/tasks/${hit.id}`;
    case 'document': return `/projects/${hit.project_id}/documents/${hit.id}`;
    case 'comment': return `/comments/${hit.id}`;
    case 'video': return `/videos/${hit.id}`;
  }
}

type State = { kind: 'idle' } | { kind: 'loading' } | { kind: 'done'; hits: SearchResult[] } | { kind: 'error'; error: unknown };

/**
 * One box for everything the caller can see: projects, photo captions, videos, tasks, comments and
 * documents (with the text of PDFs), best first, each with its snippet, the matched words marked.
 * Narrowed to one kind, or to one project (reached from a project's page).
 */
export function SearchPage() {
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const q = params.get('q') ?? '';
  const type = (SEARCH_TYPES as readonly string[]).includes(params.get('type') ?? '') ? params.get('type') as SearchType : null;
  const projectId = params.get('project_id');
  const [draft, setDraft] = useState(q);
  const [state, setState] = useState<State>({ kind: 'idle' });
  const [projectNames, setProjectNames] = useState<Record<string, string>>({});
  const boxId = useId();
  const typeId = useId();

  useEffect(() => setDraft(q), [q]);
  useEffect(() => {
    document.title = q ? `${q} · Search · Jobsite` : 'Search · Jobsite';
    return () => {
      document.title = 'Jobsite';
    };
  }, [q]);
  useEffect(() => {
    if (!q.trim()) {
      setState({ kind: 'idle' });
      return;
    }
    let live = true;
    setState({ kind: 'loading' });
    search({ q, type, projectId }).then((hits) => live && setState({ kind: 'done', hits }), (error) => live && setState({ kind: 'error', error }));
    return () => {
      live = false;
    };
  }, [q, type, projectId]);

  // The projects the hits are in, by name (each asked once; one the caller cannot open stays unnamed).
  useEffect(() => {
    const wanted = new Set<string>();
    if (state.kind === 'done') for (const hit of state.hits) if (hit.project_id && hit.type !== 'project' && !(hit.project_id in projectNames)) wanted.add(hit.project_id);
    if (projectId && !(projectId in projectNames)) wanted.add(projectId);
    if (wanted.size === 0) return;
    let live = true;
    Promise.all([...wanted].map((id) => api.project(id).then((p) => [id, p.name] as const, () => [id, ''] as const)))
      .then((named) => live && setProjectNames((known) => ({ ...known, ...Object.fromEntries(named) })));
    return () => {
      live = false;
    };
  }, [state, projectId, projectNames]);

  function submit(event: FormEvent) {
    event.preventDefault();
    navigate(searchAddress(draft.trim(), type, projectId));
  }

  const scope = projectId ? projectNames[projectId] || 'this project' : null;
  return (
    <>
      <h1>Search{scope ? ` in ${scope}` : ''}</h1>
      <form role="search" aria-label="Search everything" className="search-form" onSubmit={submit}>
        <div>
          <label htmlFor={boxId}>Words</label>
          <input id={boxId} type="search" name="q" value={draft} maxLength={200} onChange={(e) => setDraft(e.target.value)} aria-describedby={`${boxId}-hint`} />
        </div>
        <div>
          <label htmlFor={typeId}>Look in</label>
          <select id={typeId} value={type ?? ''} onChange={(e) => navigate(searchAddress(draft.trim(), (e.target.value || null) as SearchType | null, projectId), { replace: true })}>
            <option value="">Everything</option>
            {SEARCH_TYPES.map((t) => <option key={t} value={t}>{TYPE_WORDS[t].many}</option>)}
          </select>
        </div>
        <button type="submit">Search</button>
        <p id={`${boxId}-hint`} className="hint">
          Every word must match, in any case and with or without accents. “Quotes” find a phrase; -word leaves a word out; “or” between words finds either.
        </p>
      </form>
      {projectId ? <p><Link href={searchAddress(q, type, null)}>Search all projects instead</Link></p> : null}
      <SearchResults state={state} q={q} projectNames={projectNames} />
    </>
  );
}

function SearchResults({ state, q, projectNames }: { state: State; q: string; projectNames: Record<string, string> }) {
  switch (state.kind) {
    case 'idle':
      return <p>Search the projects, photo captions, videos, tasks, comments and documents (with the text of PDFs) you can see.</p>;
    case 'loading':
      return <p role="status">Searching…</p>;
    case 'error':
      return <ErrorMessage error={state.error} />;
    case 'done':
      if (state.hits.length === 0) return <p role="status">Nothing matches “{q}”.</p>;
      return (
        <>
          <p role="status">
            {state.hits.length === SEARCH_LIMIT ? `The best ${SEARCH_LIMIT} results: add words to narrow them.` : `${state.hits.length} ${state.hits.length === 1 ? 'result' : 'results'}.`}
          </p>
          <ol className="search-results" aria-label="Results">
            {state.hits.map((hit) => (
              <li key={`${hit.type}:${hit.id}`}>
                <span className="search-type">{TYPE_WORDS[hit.type].one}</span>
                <Link href={hrefOf(hit)} className="search-title">{hit.title || `Untitled ${TYPE_WORDS[hit.type].one.toLowerCase()}`}</Link>
                {hit.type !== 'project' ? <span className="search-where">{hit.project_id ? projectNames[hit.project_id] ? `in ${projectNames[hit.project_id]}` : '' : 'not filed under a project'}</span> : null}
                <p className="search-snippet">
                  {snippetParts(hit.snippet).map((part, i) => part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>)}
                </p>
              </li>
            ))}
          </ol>
        </>
      );
  }
}
