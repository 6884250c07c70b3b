import { useCallback, useEffect, useId, useMemo, useRef, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { CommentItem } from './CommentItem.tsx';
import { COMMENT_MAX_LENGTH, commentsApi, me as fetchMe, workspacePeople, type Comment, type CommentTarget, type Person } from './commentsApi.ts';
import { MentionTextarea } from './MentionTextarea.tsx';
import './comments.css';

interface Listing {
  items: Comment[];
  cursor: string | null;
  hasMore: boolean;
  loading: boolean;
  error: unknown;
}

const EMPTY: Listing = { items: [], cursor: null, hasMore: false, loading: true, error: null };

/** The comment id in the address (`#comment-cmt_…`, where a notification links), if any. */
const linkedCommentId = () => /^#comment-(cmt_[A-Za-z0-9_-]+)$/.exec(window.location.hash)?.[1] ?? null;

/** New ones and pages loaded later may repeat what is shown: each comment once, in the API's order (by id). */
function merged(items: Comment[], more: Comment[]): Comment[] {
  const byId = new Map(items.map((c) => [c.id, c]));
  for (const c of more) byId.set(c.id, c);
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The words for a refused comment: the API's field messages, said of "Comment". */
function problems(error: unknown): string[] {
  if (!(error instanceof ApiProblem)) return [];
  return error.errors.map((e) => (/(^|[./])body$/.test(e.path) ? `Comment ${e.message}.` : `${e.path} ${e.message}.`));
}

/**
 * The conversation on a project or a photo: oldest first (as the API lists them; 50 at a time with
 * "Show more comments"), who wrote each and when, mentions highlighted; a box to add one with
 * @mention suggestions; Edit for your own, Delete for your own (admins and managers: any).
 * Self-contained: it asks the API who is signed in and who is in the workspace.
 */
export function Comments({ target }: { target: CommentTarget }) {
  const targetKey = `${target.type}:${target.id}`;
  const [listing, setListing] = useState<Listing>(EMPTY);
  const [me, setMe] = useState<Person | null>(null);
  const [people, setPeople] = useState<Person[]>([]);
  const [peopleError, setPeopleError] = useState<unknown>(null);
  const [draft, setDraft] = useState('');
  const [draftProblem, setDraftProblem] = useState<string | null>(null);
  const [postError, setPostError] = useState<unknown>(null);
  const [posting, setPosting] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [linked, setLinked] = useState<string | null>(linkedCommentId);
  const generation = useRef(0);
  const targetRef = useRef(target);
  targetRef.current = target;
  const headingRef = useRef<HTMLHeadingElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();

  useEffect(() => {
    let live = true;
    fetchMe().then((user) => {
      if (!live) return;
      setMe(user);
      return workspacePeople(user.id).then((list) => live && setPeople(list));
    }).catch((err) => live && setPeopleError(err));
    return () => {
      live = false;
    };
  }, []);

  const load = useCallback((cursor: string | null) => {
    const mine = ++generation.current;
    setListing((l) => ({ ...l, loading: true, error: null }));
    commentsApi.list(targetRef.current, cursor).then(
      (page) => mine === generation.current && setListing((l) => ({
        items: cursor === null ? page.data : merged(l.items, page.data),
        cursor: page.next_cursor, hasMore: page.has_more && page.next_cursor !== null, loading: false, error: null,
      })),
      (error) => mine === generation.current && setListing((l) => ({ ...l, loading: false, error })),
    );
    // A new `load` for each conversation (type and id; a new object with the same ones is the same): the effect below starts it.
  }, [targetKey]);

  useEffect(() => {
    setListing(EMPTY);
    setDraft('');
    setNotice(null);
    setPostError(null);
    setLinked(linkedCommentId());
    load(null);
  }, [load]);

  useEffect(() => {
    const follow = () => setLinked(linkedCommentId());
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);

  // A linked comment not among those shown yet: read on until it is, or the conversation ends.
  useEffect(() => {
    if (linked && !listing.loading && !listing.error && listing.hasMore && !listing.items.some((c) => c.id === linked)) load(listing.cursor);
  }, [linked, listing, load]);

  const byId = useMemo(() => new Map(people.map((p) => [p.id, p])), [people]);

  async function post(e?: FormEvent) {
    e?.preventDefault();
    setNotice(null);
    setPostError(null);
    if (draft.trim() === '') {
      setDraftProblem('Write something first: a comment cannot be empty.');
      formRef.current?.querySelector('textarea')?.focus();
      return;
    }
    setPosting(true);
    try {
      const comment = await commentsApi.create(target, draft);
      setListing((l) => ({ ...l, items: merged(l.items, [comment]) }));
      setDraft('');
      setNotice(comment.mentions.length > 0
        ? `Your comment is posted; ${comment.mentions.map((m) => `@${m.handle}`).join(', ')} ${comment.mentions.length === 1 ? 'is' : 'are'} notified.`
        : 'Your comment is posted.');
    } catch (err) {
      setPostError(err);
    } finally {
      setPosting(false);
    }
  }

  const headingId = `${id}-heading`;
  const hintId = `${id}-hint`;
  const problemId = `${id}-problem`;
  const countId = `${id}-count`;
  const textareaId = `${id}-new`;
  const tooLong = draft.length > COMMENT_MAX_LENGTH;
  const describedBy = [hintId, draftProblem ? problemId : '', draft.length > COMMENT_MAX_LENGTH * 0.9 ? countId : ''].filter(Boolean).join(' ');
  const { items } = listing;

  return (
    <section className="comments" aria-labelledby={headingId}>
      <h2 id={headingId} ref={headingRef} tabIndex={-1}>Comments</h2>
      {listing.error ? <ErrorMessage error={listing.error} /> : null}
      {!listing.loading && !listing.error && items.length === 0 ? <p>No comments yet.</p> : null}
      {items.length > 0
        ? (
          <ol className="comment-list">
            {items.map((c) => (
              <CommentItem
                key={c.id} comment={c} author={byId.get(c.author_id)} people={people} me={me} linked={c.id === linked}
                onChanged={(changed) => setListing((l) => ({ ...l, items: l.items.map((x) => (x.id === changed.id ? changed : x)) }))}
                onDeleted={(gone) => {
                  setListing((l) => ({ ...l, items: l.items.filter((x) => x.id !== gone.id) }));
                  setNotice('The comment is deleted.');
                  headingRef.current?.focus();
                }}
              />
            ))}
          </ol>
        )
        : null}
      {listing.loading ? <p role="status">Loading comments…</p> : null}
      {listing.hasMore && !listing.loading
        ? <p><button type="button" className="secondary" onClick={() => load(listing.cursor)}>Show more comments</button></p>
        : null}
      {listing.error && !listing.loading
        ? <p><button type="button" className="secondary" onClick={() => load(items.length > 0 ? listing.cursor : null)}>Try again</button></p>
        : null}
      <div role="status">{notice}</div>
      <form ref={formRef} className="comment-form" aria-label="Add a comment" onSubmit={post} noValidate>
        <label htmlFor={textareaId}>Add a comment</label>
        <p className="hint muted" id={hintId}>Type @ and a name to mention someone: they are notified. Ctrl+Enter (⌘+Enter) posts.</p>
        <MentionTextarea
          id={textareaId} value={draft} people={people} meId={me?.id ?? null} describedBy={describedBy}
          invalid={draftProblem !== null || tooLong}
          onChange={(value) => {
            setDraft(value);
            if (draftProblem) setDraftProblem(null);
          }}
          onSubmitShortcut={() => void post()}
        />
        {draftProblem ? <p className="field-error" id={problemId}>{draftProblem}</p> : null}
        {draft.length > COMMENT_MAX_LENGTH * 0.9
          ? <p className={tooLong ? 'field-error' : 'hint muted'} id={countId}>{draft.length.toLocaleString()} of {COMMENT_MAX_LENGTH.toLocaleString()} characters</p>
          : null}
        {postError
          ? (
            <>
              <ErrorMessage error={postError} />
              {problems(postError).length > 0 ? <ul className="error" aria-label="What to change">{problems(postError).map((m) => <li key={m}>{m}</li>)}</ul> : null}
            </>
          )
          : null}
        {peopleError ? <p className="hint muted">Suggestions for @mentions are not available: {peopleError instanceof ApiProblem ? peopleError.title : 'the people could not be loaded'}.</p> : null}
        <div className="form-actions">
          <button type="submit" disabled={posting}>{posting ? 'Posting…' : 'Post comment'}</button>
        </div>
      </form>
    </section>
  );
}
