import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { api, ApiProblem, displayName, type Session } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { NotificationsLink } from './notifications/NotificationsLink.tsx';
import { HeaderSearch } from './search/HeaderSearch.tsx';
import { canSeeSettings } from './settings/SettingsPage.tsx';

/** The signed-in frame: a skip link, the header (who, sign out), the navigation and the page. */
export function Shell({ session, onSignedOut, children }: { session: Session; onSignedOut(): void; children: ReactNode }) {
  const [error, setError] = useState<unknown>(null);
  const [location] = useLocation();
  const inProjects = location === '/' || location.startsWith('/projects');

  async function signOut() {
    setError(null);
    try {
      await api.signOut();
      onSignedOut();
    } catch (err) {
      // 401: the session had already ended (signed out elsewhere, password reset): signed out all the same.
      if (err instanceof ApiProblem && err.status === 401) onSignedOut();
      else setError(err);
    }
  }

  return (
    <>
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="app-header">
        <Link href="/" className="brand">Jobsite</Link>
        <nav aria-label="Main">
          <ul>
            <li><Link href="/projects" aria-current={inProjects ? 'page' : undefined}>Projects</Link></li>
            <li><Link href="/tasks" aria-current={location === '/tasks' ? 'page' : undefined}>My tasks</Link></li>
            <li><Link href="/photos/unfiled" aria-current={location === '/photos/unfiled' ? 'page' : undefined}>Unfiled photos</Link></li>
            <li><NotificationsLink current={location === '/notifications'} /></li>
            {canSeeSettings(session.user.role)
              ? <li><Link href="/settings" aria-current={location.startsWith('/settings') ? 'page' : undefined}>Settings</Link></li>
              : null}
          </ul>
        </nav>
        <HeaderSearch />
        <div className="who">
          <span>{displayName(session.user)}</span>
          <button type="button" onClick={signOut}>Sign out</button>
        </div>
      </header>
      {error ? <ErrorMessage error={error} /> : null}
      <main id="main" tabIndex={-1}>{children}</main>
    </>
  );
}
