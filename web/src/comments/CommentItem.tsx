import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { commentsApi, personName, type Comment, type Person } from './commentsApi.ts';
import { bodySegments } from './mentions.ts';
import { MentionTextarea } from './MentionTextarea.tsx';

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A comment: who, when, the body with its mentions highlighted; Edit (the author) and Delete (the author, admins and managers). */
export function CommentItem({ comment, author, people, me, linked, onChanged, onDeleted }: {
  comment: Comment;
  author: Person | undefined;
  people: Person[];
  me: Person | null;
  /** The comment the address points at (#comment-…): marked, and focused once shown. */
  linked: boolean;
  onChanged(comment: Comment): void;
  onDeleted(comment: Comment): void;
}) {
  const [editing, setEditing] = useState<{ body: string; etag: string | null } | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const itemRef = useRef<HTMLLIElement>(null);
  const editButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const keepButton = useRef<HTMLButtonElement>(null);
  const editRef = useRef<HTMLTextAreaElement>(null);
  const focusNext = useRef<'edit' | 'delete' | 'keep' | 'textarea' | null>(null);
  const id = useId();

  const mine = me !== null && me.id === comment.author_id;
  const mayDelete = mine || me?.role === 'admin' || me?.role === 'manager';
  const who = author ? personName(author) : 'Someone';
  const when = timeFormat.format(new Date(comment.created_at));
  // A new comment has updated_at = created_at; every edit moves updated_at on.
  const edited = comment.updated_at !== comment.created_at;

  useEffect(() => {
    const target = { edit: editButton, delete: deleteButton, keep: keepButton, textarea: editRef }[focusNext.current ?? 'edit'];
    if (focusNext.current) target.current?.focus();
    focusNext.current = null;
  });

  useEffect(() => {
    if (linked) {
      itemRef.current?.scrollIntoView({ block: 'center' });
      itemRef.current?.focus({ preventScroll: true });
    }
  }, [linked]);

  async function startEditing() {
    setError(null);
    setBusy(true);
    try {
      // The comment as it is now, and its ETag: a save over a change made elsewhere is refused (412).
      const { body, etag } = await commentsApi.getWithEtag(comment.id);
      onChanged(body);
      setEditing({ body: body.body, etag });
      focusNext.current = 'textarea';
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function save(e?: FormEvent) {
    e?.preventDefault();
    if (!editing) return;
    if (editing.body.trim() === '') {
      setError(new ApiProblem(400, 'empty', 'Write something first.', 'A comment cannot be empty; delete it instead.'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      onChanged(await commentsApi.update(comment.id, editing.body, editing.etag));
      setEditing(null);
      focusNext.current = 'edit';
    } catch (err) {
      if (err instanceof ApiProblem && err.status === 412) {
        const { body, etag } = await commentsApi.getWithEtag(comment.id).catch(() => ({ body: null, etag: null }));
        setError(new ApiProblem(412, err.code, 'This comment was changed elsewhere.', 'Its latest text is in the box now; make your change again.'));
        if (body) {
          onChanged(body);
          setEditing({ body: body.body, etag });
        }
      } else setError(err);
    } finally {
      setBusy(false);
    }
  }

  async function remove() {
    setBusy(true);
    setError(null);
    try {
      await commentsApi.remove(comment.id);
      onDeleted(comment);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  }

  return (
    <li id={`comment-${comment.id}`} ref={itemRef} tabIndex={-1} className={linked ? 'comment comment-linked' : 'comment'}>
      <p className="comment-meta">
        <strong>{who}</strong>{' '}
        <time dateTime={comment.created_at} className="muted">{when}</time>
        {edited ? <span className="muted"> · edited</span> : null}
      </p>
      {editing
        ? (
          <form className="comment-form" onSubmit={save} aria-label="Edit your comment">
            <label htmlFor={`${id}-edit`}>Edit your comment</label>
            <MentionTextarea
              id={`${id}-edit`} textareaRef={editRef} value={editing.body} people={people} meId={me?.id ?? null}
              onChange={(body) => setEditing({ ...editing, body })} onSubmitShortcut={() => void save()}
            />
            {error ? <ErrorMessage error={error} /> : null}
            <div className="form-actions">
              <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save comment'}</button>
              <button type="button" className="secondary" disabled={busy} onClick={() => { setEditing(null); setError(null); focusNext.current = 'edit'; }}>Cancel</button>
            </div>
          </form>
        )
        : (
          <p className="comment-body">
            {bodySegments(comment.body, comment.mentions).map((s, i) => s.mention
              ? <strong key={i} className="mention">{s.text}</strong>
              : <span key={i}>{s.text}</span>)}
          </p>
        )}
      {!editing && error ? <ErrorMessage error={error} /> : null}
      {!editing && confirming
        ? (
          <div className="comment-confirm" role="group" aria-label="Delete this comment?">
            <p>Delete this comment? It cannot be brought back.</p>
            <button type="button" className="danger" disabled={busy} onClick={remove}>Delete comment</button>
            <button type="button" className="secondary" ref={keepButton} disabled={busy} onClick={() => { setConfirming(false); focusNext.current = 'delete'; }}>Keep it</button>
          </div>
        )
        : null}
      {!editing && !confirming && (mine || mayDelete)
        ? (
          <div className="comment-actions">
            {mine
              ? <button type="button" className="link-button" ref={editButton} disabled={busy} onClick={startEditing}>Edit<span className="visually-hidden"> comment by {who}, {when}</span></button>
              : null}
            {mayDelete
              ? <button type="button" className="link-button" ref={deleteButton} disabled={busy} onClick={() => { setConfirming(true); focusNext.current = 'keep'; }}>Delete<span className="visually-hidden"> comment by {who}, {when}</span></button>
              : null}
          </div>
        )
        : null}
    </li>
  );
}
