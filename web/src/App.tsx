import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { Route, Switch, useLocation, useRoute } from 'wouter';
import { api, ApiProblem, setCsrfToken, type Session } from './api.ts';
import { ErrorMessage } from './ErrorMessage.tsx';
import { InvitePage } from './InvitePage.tsx';
import { ForgotPasswordPage, ResetPasswordPage } from './PasswordResetPages.tsx';
import { ProjectsPage } from './ProjectsPage.tsx';
import { Shell } from './Shell.tsx';
import { SettingsPage } from './settings/SettingsPage.tsx';
import { SignIn } from './SignIn.tsx';

// Not on the first screen: loaded when /tasks is opened.
// Pages past the first screen (the projects list) load when first opened.
const MyTasks = lazy(() => import('./tasks/MyTasks.tsx').then((m) => ({ default: m.MyTasks })));
const ProjectPage = lazy(() => import('./ProjectPage.tsx').then((m) => ({ default: m.ProjectPage })));
const UnfiledPhotos = lazy(() => import('./photos/UnfiledPhotos.tsx').then((m) => ({ default: m.UnfiledPhotos })));
const PhotoPage = lazy(() => import('./photos/PhotoPage.tsx').then((m) => ({ default: m.PhotoPage })));
const SearchPage = lazy(() => import('./search/SearchPage.tsx').then((m) => ({ default: m.SearchPage })));
const CommentRedirect = lazy(() => import('./search/SearchRedirects.tsx').then((m) => ({ default: m.CommentRedirect })));
const VideoRedirect = lazy(() => import('./search/SearchRedirects.tsx').then((m) => ({ default: m.VideoRedirect })));
const NotificationsPage = lazy(() => import('./notifications/NotificationsPage.tsx').then((m) => ({ default: m.NotificationsPage })));

type State =
  | { kind: 'loading' }
  | { kind: 'signed-out' }
  | { kind: 'signed-in'; session: Session }
  | { kind: 'error'; error: unknown };

/**
 * Asks the API who is signed in (the cookie decides), then shows the sign-in screen or the app.
 * The pages reached from an e-mail's link (/invite/…, /reset/…) and /forgot-password show either way.
 */
export function App() {
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [notice, setNotice] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const [inviting, invite] = useRoute<{ token: string }>('/invite/:token');
  const [resetting, reset] = useRoute<{ token: string }>('/reset/:token');
  const [forgetting] = useRoute('/forgot-password');

  const load = useCallback(() => {
    setState({ kind: 'loading' });
    api.currentSession().then(
      (session) => {
        setCsrfToken(session.csrf_token);
        setState({ kind: 'signed-in', session });
      },
      // 401: no session. 404: a server without the sign-in API yet: show the sign-in screen all the same.
      (error) => setState(error instanceof ApiProblem && (error.status === 401 || error.status === 404) ? { kind: 'signed-out' } : { kind: 'error', error }),
    );
  }, []);
  useEffect(load, [load]);

  const signedIn = useCallback((session: Session) => {
    setCsrfToken(session.csrf_token);
    setNotice(null);
    setState({ kind: 'signed-in', session });
  }, []);
  // To the start: whoever signs in next does not land on the previous person's page.
  const signedOut = useCallback(() => {
    setCsrfToken(null);
    setState({ kind: 'signed-out' });
    navigate('/', { replace: true });
  }, [navigate]);

  if (inviting) {
    return <InvitePage token={invite.token} onSignedIn={(session) => { signedIn(session); navigate('/projects', { replace: true }); }} />;
  }
  if (resetting) {
    // A reset ends every session of the user, so whoever was signed in here is signed out too.
    return <ResetPasswordPage token={reset.token} onDone={() => { signedOut(); setNotice('Your new password is set. Sign in with it.'); }} />;
  }
  if (forgetting) return <ForgotPasswordPage />;

  switch (state.kind) {
    case 'loading':
      return <p className="centered" role="status">Loading…</p>;
    case 'error':
      return (
        <main className="centered">
          <h1>Jobsite</h1>
          <ErrorMessage error={state.error} />
          <button type="button" onClick={load}>Try again</button>
        </main>
      );
    case 'signed-out':
      return <SignIn onSignedIn={signedIn} notice={notice} />;
    case 'signed-in':
      return (
        <Shell session={state.session} onSignedOut={signedOut}>
          <Suspense fallback={<p role="status">Loading…</p>}>
            <Switch>
              <Route path="/projects/:id/*?">{(params) => <ProjectPage id={params.id} path={params['*'] ?? ''} session={state.session} />}</Route>
              <Route path="/photos/unfiled"><UnfiledPhotos /></Route>
              <Route path="/photos/:id">{(params) => <PhotoPage id={params.id} />}</Route>
              <Route path="/settings/*?">{(params) => <SettingsPage session={state.session} path={params['*'] ?? ''} />}</Route>
              <Route path="/projects"><ProjectsPage /></Route>
              <Route path="/notifications"><NotificationsPage /></Route>
              <Route path="/tasks"><MyTasks session={state.session} /></Route>
              <Route path="/search"><SearchPage /></Route>
              <Route path="/comments/:id">{(params) => <CommentRedirect id={params.id} />}</Route>
              <Route path="/videos/:id">{(params) => <VideoRedirect id={params.id} />}</Route>
              <Route path="/"><ProjectsPage /></Route>
              <Route>
                <h1>Page not found</h1>
                <p>There is nothing at this address. <a href="/">Go to the projects</a>.</p>
              </Route>
            </Switch>
          </Suspense>
        </Shell>
      );
  }
}
