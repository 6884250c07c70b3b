import { useEffect, useState } from 'react';
import { Link } from 'wouter';
import { personName } from '../comments/commentsApi.ts';
import { usePeople } from '../comments/usePeople.ts';
import { ErrorMessage } from '../ErrorMessage.tsx';
import type { ProjectSectionProps } from '../projects/sectionProps.ts';
import { DocumentFacts } from './DocumentRow.tsx';
import { documentsApi, downloadHref, isPdf, previewHref, type ProjectDocument } from './documentsApi.ts';

/**
 * One document: its facts, Download, and for a PDF the browser's own viewer in a frame (the API
 * sends it `inline` for this origin's pages only). Other types only download.
 */
export function DocumentPreview({ documentId, project, session }: Omit<ProjectSectionProps, 'rest'> & { documentId: string }) {
  const [doc, setDoc] = useState<ProjectDocument | null>(null);
  const [error, setError] = useState<unknown>(null);
  const people = usePeople(session.user.id);
  useEffect(() => {
    let live = true;
    documentsApi.get(documentId).then((d) => live && setDoc(d), (err) => live && setError(err));
    return () => {
      live = false;
    };
  }, [documentId]);

  const back = <p><Link href={`/projects/${project.id}/documents`}>← Documents</Link></p>;
  if (error) return <>{back}<ErrorMessage error={error} /></>;
  if (!doc) return <>{back}<p role="status">Loading the document…</p></>;
  const uploader = people.get(doc.uploaded_by);
  return (
    <section aria-labelledby="document-heading" className="document-preview">
      {back}
      <h2 id="document-heading">{doc.name}</h2>
      <DocumentFacts doc={doc} uploader={doc.uploaded_by === session.user.id ? 'you' : uploader ? personName(uploader) : 'someone'} />
      <p><a className="button-link" href={downloadHref(doc.id)} download={doc.name}>Download<span className="visually-hidden"> {doc.name}</span></a></p>
      {isPdf(doc)
        ? (
          <>
            <p className="muted">If the preview stays empty (many phones cannot show a PDF inside a page), download it.</p>
            <iframe className="pdf-frame" src={previewHref(doc.id)} title={`Preview of ${doc.name}`} />
          </>
        )
        : <p>Only PDFs can be previewed here: download it to open it.</p>}
    </section>
  );
}
