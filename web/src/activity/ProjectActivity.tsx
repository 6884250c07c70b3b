import { useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'wouter';
import { ApiProblem } from '../api.ts';
import { personName } from '../comments/commentsApi.ts';
import { usePeople } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { usePages } from '../usePages.ts';
import { activityApi } from './activityApi.ts';
import { itemsOfLine, linesOf, phraseOfLine, timeAgo, type ActivityEvent, type NameOf } from './phrases.ts';
import './activity.css';

const exactTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'short' });

/** The time now, moved on every minute so "5 minutes ago" stays true while the page is open. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}


/**
 * `/projects/{id}/activity`: what happened in the project (GET /v1/events), newest first, in
 * words, each line linking to what it is about, with when it happened; alike events by one
 * person close in time make one line with the photos' thumbnails. "Show older" reads the next page.
 */
export default function ProjectActivity({ project, session }: ProjectSectionProps) {
  const [generation, setGeneration] = useState(0);
  const pages = usePages<ActivityEvent>(`${project.id}:${generation}`, (cursor) => activityApi.projectEvents(project.id, cursor));
  const people = usePeople(session.user.id);
  const now = useNow();
  const lines = useMemo(() => linesOf(pages.items), [pages.items]);
  const nameOf: NameOf = (id) => {
    const person = people.get(id);
    return person ? personName(person) : undefined;
  };

  useEffect(() => {
    document.title = `Activity · ${project.name} · Jobsite`;
  }, [project.name]);

  // After "Show older", focus goes to the first older line (the button may be gone: there was nothing older).
  const list = useRef<HTMLOListElement>(null);
  const focusFrom = useRef<number | null>(null);
  useEffect(() => {
    const from = focusFrom.current;
    if (from === null || pages.loading) return;
    focusFrom.current = null;
    list.current?.querySelectorAll<HTMLAnchorElement>(':scope > li > a')[from]?.focus();
  }, [lines, pages.loading]);
  const showOlder = () => {
    if (pages.loading) return;
    focusFrom.current = lines.length;
    pages.loadMore();
  };

  return (
    <section aria-labelledby="activity-heading" className="activity">
      <h2 id="activity-heading">Activity</h2>
      <p className="muted">What happened in this project, newest first. Events are kept for 30 days.</p>
      {pages.error
        ? (
          <>
            <ErrorMessage error={pages.error} />
            {pages.error instanceof ApiProblem && pages.error.status === 403
              ? <p>Your role cannot read this project’s activity. Ask an admin if you need it.</p>
              : null}
            {!pages.loading ? <button type="button" onClick={() => setGeneration((g) => g + 1)}>Try again</button> : null}
          </>
        )
        : null}
      {!pages.loading && !pages.error && lines.length === 0 ? <p>Nothing has happened in this project in the last 30 days.</p> : null}
      {lines.length > 0
        ? (
          <ol className="activity-list" aria-label="Activity" ref={list}>
            {lines.map((line) => {
              const newest = line.events[0]!;
              const phrase = phraseOfLine(line, nameOf);
              const items = itemsOfLine(line, now);
              return (
                <li key={newest.id} className="activity-line">
                  <Link href={phrase.href}>{phrase.text}</Link>
                  {' '}
                  <time dateTime={newest.created_at} title={exactTime.format(new Date(newest.created_at))} className="muted">
                    {timeAgo(newest.created_at, now)}
                  </time>
                  {items.length > 0
                    ? (
                      <ul className="activity-items">
                        {items.map((item, i) => (
                          <li key={line.events[i]!.id}>
                            <Link href={item.href}>
                              {item.thumbnail ? <img src={item.thumbnail} alt={item.label} width={56} height={56} loading="lazy" /> : item.label}
                            </Link>
                          </li>
                        ))}
                      </ul>
                    )
                    : null}
                </li>
              );
            })}
          </ol>
        )
        : null}
      <div className="list-end">
        {pages.loading ? <p role="status">Loading the activity…</p> : null}
        {pages.hasMore && !pages.error ? <button type="button" aria-disabled={pages.loading} onClick={showOlder}>Show older</button> : null}
      </div>
    </section>
  );
}
