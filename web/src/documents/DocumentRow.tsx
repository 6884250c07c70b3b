import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { Link } from 'wouter';
import { ApiProblem } from '../api.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import { formatSize } from '../uploads/postFile.ts';
import { useAction } from '../useAction.ts';
import { documentsApi, downloadHref, isPdf, typeWords, type ProjectDocument } from './documentsApi.ts';

const whenFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** "PDF · 12 KB · uploaded by Rosa Crew on Nov 25, 2026, 4:40 PM" */
export function DocumentFacts({ doc, uploader }: { doc: ProjectDocument; uploader: string }) {
  return (
    <p className="document-facts">
      {typeWords(doc.content_type)} · {formatSize(doc.byte_size)} · uploaded by {uploader} on{' '}
      <time dateTime={doc.created_at}>{whenFormat.format(new Date(doc.created_at))}</time>
    </p>
  );
}

/** A 412's words: the rename was not saved because someone changed the document first. */
function renameProblem(error: unknown, current: string): unknown {
  if (error instanceof ApiProblem && error.status === 412) {
    return new ApiProblem(412, error.code, 'Someone else changed this document meanwhile.', `It is now called “${current}”. Your name was not saved: save again to rename it anyway.`);
  }
  return error;
}

interface RowProps {
  doc: ProjectDocument;
  projectId: string;
  uploader: string;
  mayChange: boolean;
  /** The document as the API has it now (read for a rename). */
  onChanged(doc: ProjectDocument): void;
  onRenamed(before: string, after: ProjectDocument): void;
  onDelete(opener: HTMLButtonElement): void;
}

/**
 * One document: its name (a PDF's leads to its preview, any other's downloads it), its facts,
 * Download, and Rename (in place) and Delete when the role may.
 */
export function DocumentRow({ doc, projectId, uploader, mayChange, onChanged, onRenamed, onDelete }: RowProps) {
  const [renaming, setRenaming] = useState<{ etag: string | null } | null>(null);
  const opening = useAction();
  const renameButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);

  // The form starts from the document as it is now, and its ETag: a rename made meanwhile is a 412, not overwritten.
  const startRename = () => opening.run(async () => {
    const { body, etag } = await documentsApi.getWithEtag(doc.id);
    onChanged(body);
    setRenaming({ etag });
  });
  // Focus goes back to Rename once the form has gone and the button is back.
  const refocus = useRef(false);
  const stopRenaming = () => {
    refocus.current = true;
    setRenaming(null);
  };
  useEffect(() => {
    if (renaming || !refocus.current) return;
    refocus.current = false;
    renameButton.current?.focus();
  }, [renaming]);

  return (
    <li className="document-row">
      <div className="document-main">
        {renaming
          ? (
            <RenameForm
              doc={doc} etag={renaming.etag} onCancel={stopRenaming}
              onSaved={(after) => {
                onRenamed(doc.name, after);
                stopRenaming();
              }}
              onStale={(current, etag) => {
                onChanged(current);
                setRenaming({ etag });
              }}
            />
          )
          : (
            <p className="document-name">
              {isPdf(doc)
                ? <Link href={`/projects/${projectId}/documents/${doc.id}`}>{doc.name}</Link>
                : <a href={downloadHref(doc.id)} download={doc.name}>{doc.name}</a>}
            </p>
          )}
        <DocumentFacts doc={doc} uploader={uploader} />
        {opening.error ? <ErrorMessage error={opening.error} /> : null}
      </div>
      {renaming
        ? null
        : (
          <div className="document-actions">
            {isPdf(doc) ? <Link className="button-link secondary" href={`/projects/${projectId}/documents/${doc.id}`}>Preview<span className="visually-hidden"> {doc.name}</span></Link> : null}
            <a className="button-link secondary" href={downloadHref(doc.id)} download={doc.name}>Download<span className="visually-hidden"> {doc.name}</span></a>
            {mayChange
              ? (
                <>
                  <button type="button" className="secondary" ref={renameButton} disabled={opening.busy} onClick={startRename}>
                    Rename<span className="visually-hidden"> {doc.name}</span>
                  </button>
                  <button type="button" className="secondary danger-text" ref={deleteButton} onClick={() => deleteButton.current && onDelete(deleteButton.current)}>
                    Delete<span className="visually-hidden"> {doc.name}</span>
                  </button>
                </>
              )
              : null}
          </div>
        )}
    </li>
  );
}

interface RenameFormProps {
  doc: ProjectDocument;
  etag: string | null;
  onSaved(doc: ProjectDocument): void;
  onCancel(): void;
  /** A 412: the document as it is now and its ETag, for a second Save. */
  onStale(current: ProjectDocument, etag: string | null): void;
}

/** The name in a text field: Save (PATCH with If-Match), Cancel or Escape; the API's refusal in words. */
function RenameForm({ doc, etag, onSaved, onCancel, onStale }: RenameFormProps) {
  const [name, setName] = useState(doc.name);
  const action = useAction();
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  useEffect(() => {
    // The name without its extension is selected, ready to type over.
    const el = input.current;
    if (!el) return;
    el.focus();
    const dot = el.value.lastIndexOf('.');
    el.setSelectionRange(0, dot > 0 ? dot : el.value.length);
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    await action.run(async () => onSaved(await documentsApi.rename(doc.id, name, etag)), async (err) => {
      if (err instanceof ApiProblem && err.status === 412) {
        const now = await documentsApi.getWithEtag(doc.id).catch(() => null);
        if (now) onStale(now.body, now.etag);
        action.setError(renameProblem(err, now?.body.name ?? doc.name));
      } else {
        action.setError(err);
      }
    });
  }
  const escape = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel();
    }
  };

  return (
    <form className="rename-form" aria-label={`Rename ${doc.name}`} onSubmit={submit} onKeyDown={escape}>
      <label htmlFor={`${id}-name`}>New name</label>
      <input id={`${id}-name`} ref={input} value={name} maxLength={255} required onChange={(e) => setName(e.target.value)} />
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <div className="form-actions">
        <button type="submit" disabled={action.busy}>{action.busy ? 'Saving…' : 'Save name'}</button>
        <button type="button" className="secondary" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  );
}
