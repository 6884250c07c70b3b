import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { commentHref, videoHref } from './searchApi.ts';

/**
 * `/comments/{id}`: a comment is shown on the page of what it is on (a photo, a task, a project);
 * this address finds that page and goes there, so a search hit or a shared link to a comment works.
 */
export function CommentRedirect({ id }: { id: string }) {
  const [, navigate] = useLocation();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    commentHref(id).then((href) => navigate(href, { replace: true }), setError);
  }, [id, navigate]);
  return error ? <Failed error={error} /> : <p role="status">Opening the comment…</p>;
}

/** `/videos/{id}`: a video opens its file (the browser plays it), as from the timeline. */
export function VideoRedirect({ id }: { id: string }) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    videoHref(id).then((href) => window.location.replace(href), setError);
  }, [id]);
  return error ? <Failed error={error} /> : <p role="status">Opening the video…</p>;
}

function Failed({ error }: { error: unknown }) {
  return (
    <>
      <ErrorMessage error={error} />
      <p><Link href="/projects">Go to the projects</Link></p>
    </>
  );
}
