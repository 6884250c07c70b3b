import { useId, useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';

/**
 * A search box that opens `/search?q=…` (and `&project_id=…` when given one): the header's, on
 * every page but the search page (which has its own box), and a project's, over its sections.
 */
export function SearchBox({ landmark, label, placeholder, projectId, className }: { landmark: string; label: string; placeholder: string; projectId?: string; className: string }) {
  const [, navigate] = useLocation();
  const [q, setQ] = useState('');
  const id = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    const words = q.trim();
    if (!words) return;
    setQ('');
    navigate(`/search?${new URLSearchParams(projectId ? { q: words, project_id: projectId } : { q: words })}`);
  }

  return (
    <form role="search" aria-label={landmark} className={className} onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">{label}</label>
      <input id={id} type="search" name="q" value={q} maxLength={200} placeholder={placeholder} onChange={(e) => setQ(e.target.value)} />
      <button type="submit">Search</button>
    </form>
  );
}

/** The header's box: any page → `/search?q=…`; it steps aside on the search page. */
export function HeaderSearch() {
  const [location] = useLocation();
  if (location === '/search') return null;
  return <SearchBox landmark="Search" label="Search everything" placeholder="Search everything" className="header-search" />;
}
