import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { personName } from '../comments/commentsApi.ts';
import { usePeople } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { FileUploader, type FileUploaderWords } from '../uploads/FileUploader.tsx';
import { useUploads } from '../uploads/useUploads.ts';
import { DeleteDocumentDialog } from './DeleteDocumentDialog.tsx';
import { DocumentPreview } from './DocumentPreview.tsx';
import { DocumentRow } from './DocumentRow.tsx';
import { ACCEPT, documentsApi, mayChange, uploadDocument, type ProjectDocument } from './documentsApi.ts';
import './documents.css';

const UPLOADER_WORDS: FileUploaderWords = {
  zone: 'Upload documents',
  hint: 'Drop documents here (PDF, Word, Excel, PowerPoint, CSV, text, images, DWG/DXF), or',
  choose: 'Choose documents',
  accept: ACCEPT,
  unnamed: () => 'Document',
};

/** /projects/{id}/documents: the list; /projects/{id}/documents/{documentId}: one document's preview. */
export default function ProjectDocuments({ project, session, rest }: ProjectSectionProps) {
  const [documentId] = rest.split('/').filter(Boolean);
  if (documentId) return <DocumentPreview key={documentId} documentId={documentId} project={project} session={session} />;
  return <DocumentList project={project} session={session} />;
}

interface Listing {
  items: ProjectDocument[];
  cursor: string | null;
  loading: boolean;
  error: unknown;
}

/**
 * A project's documents, newest first, 50 a page: uploads (several at once, each with its
 * progress), and per document its type, size, who uploaded it and when, Download, Preview for
 * PDFs, and Rename and Delete where the role may (restricted users: their own only).
 */
function DocumentList({ project, session }: Omit<ProjectSectionProps, 'rest'>) {
  const [listing, setListing] = useState<Listing>({ items: [], cursor: null, loading: true, error: null });
  const [notice, setNotice] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<{ doc: ProjectDocument; opener: HTMLButtonElement } | null>(null);
  const people = usePeople(session.user.id);
  const generation = useRef(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const id = useId();

  const load = useCallback((cursor: string | null) => {
    const mine = ++generation.current;
    setListing((l) => ({ ...l, items: cursor ? l.items : [], loading: true, error: null }));
    documentsApi.list(project.id, cursor).then(
      (page) => mine === generation.current && setListing((l) => ({
        items: cursor ? [...l.items, ...page.data.filter((d) => !l.items.some((i) => i.id === d.id))] : page.data,
        cursor: page.has_more ? page.next_cursor : null, loading: false, error: null,
      })),
      (error) => mine === generation.current && setListing((l) => ({ ...l, loading: false, error })),
    );
  }, [project.id]);
  useEffect(() => load(null), [load]);

  const replace = useCallback((doc: ProjectDocument) => {
    setListing((l) => ({ ...l, items: l.items.map((d) => (d.id === doc.id ? doc : d)) }));
  }, []);
  const uploads = useUploads(
    (file, options) => uploadDocument(project.id, file, options),
    (doc) => setListing((l) => ({ ...l, items: [doc, ...l.items.filter((d) => d.id !== doc.id)] })),
  );

  return (
    <section aria-labelledby={`${id}-heading`} className="documents">
      <h2 id={`${id}-heading`} ref={heading} tabIndex={-1}>Documents</h2>
      <FileUploader uploads={uploads} words={UPLOADER_WORDS} />
      <div role="status">{notice}</div>
      {listing.error ? <ErrorMessage error={listing.error} /> : null}
      {!listing.loading && !listing.error && listing.items.length === 0 ? <p>No documents yet.</p> : null}
      {listing.items.length > 0
        ? (
          <ul className="document-list" aria-label="Documents">
            {listing.items.map((doc) => {
              const uploader = people.get(doc.uploaded_by);
              return (
                <DocumentRow
                  key={doc.id} doc={doc} projectId={project.id} mayChange={mayChange(session.user, doc)}
                  uploader={doc.uploaded_by === session.user.id ? 'you' : uploader ? personName(uploader) : 'someone'}
                  onChanged={replace}
                  onRenamed={(before, after) => {
                    replace(after);
                    setNotice(`“${before}” is renamed to “${after.name}”.`);
                  }}
                  onDelete={(opener) => {
                    setNotice(null);
                    setDeleting({ doc, opener });
                  }}
                />
              );
            })}
          </ul>
        )
        : null}
      {listing.loading ? <p role="status">Loading documents…</p> : null}
      {listing.cursor && !listing.loading
        ? <p><button type="button" className="secondary" onClick={() => load(listing.cursor)}>Load more documents</button></p>
        : null}
      <DeleteDocumentDialog
        target={deleting}
        onClosed={(deleted) => {
          const target = deleting;
          setDeleting(null);
          if (!target) return;
          if (!deleted) {
            target.opener.focus();
            return;
          }
          setListing((l) => ({ ...l, items: l.items.filter((d) => d.id !== target.doc.id) }));
          setNotice(`“${target.doc.name}” is deleted.`);
          heading.current?.focus();
        }}
      />
    </section>
  );
}
