import type { JobHelpers, TaskList } from 'graphile-worker';
import { enqueue } from '../../jobs/enqueue.ts';
import type { JobDeps } from '../../jobs/job-deps.ts';
import { isOutage } from '../../jobs/outages.ts';
import type { LostWork } from '../../jobs/requeue.ts';
import type { Executor } from '../../db/database.ts';
import type { DocumentTextStatus } from '../../db/schema.ts';
import {
  EXTRACTABLE_TYPES, PDF_MAX_BYTES, TEXT_MAX_BYTES, textOfPdf, textOfPlainFile, UnreadableDocumentError, type ExtractedText,
} from './document-text.extract.ts';
import { DocumentTextsRepository } from './document-texts.repository.ts';

export const EXTRACT_DOCUMENT_TEXT = 'extract_document_text';

/** Queues the text extraction of a PDF or text file (in the transaction that stores it); other types have none. */
export async function queueTextExtraction(db: Executor, doc: { id: string; content_type: string }): Promise<void> {
  if (!EXTRACTABLE_TYPES.has(doc.content_type)) return;
  await enqueue(db, EXTRACT_DOCUMENT_TEXT, { document_id: doc.id }, { jobKey: `document-text:${doc.id}`, jobKeyMode: 'preserve_run_at', maxAttempts: 5 });
}

export function documentTasks(deps: JobDeps): TaskList {
  const texts = new DocumentTextsRepository();
  return {
    [EXTRACT_DOCUMENT_TEXT]: async (payload, helpers) => extractDocumentText(String((payload as { document_id: string }).document_id), deps, texts, helpers),
  };
}

/**
 * PDFs and text files without text half an hour after upload lost their job — or were uploaded
 * before search existed (migration 021): src/jobs/requeue.ts queues them (500 per 10 minutes).
 */
export const lostDocumentTextJobs: LostWork = {
  name: 'document texts',
  staleAfterMs: 30 * 60_000,
  stale: (db, olderThan, limit) => new DocumentTextsRepository().staleUnextracted(db, olderThan, limit),
  queue: (db, id) => enqueue(db, EXTRACT_DOCUMENT_TEXT, { document_id: id }, { jobKey: `document-text:${id}`, jobKeyMode: 'preserve_run_at', maxAttempts: 5 }),
};

/**
 * Reads the document's text into document_texts, from where a trigger puts it in the search
 * index. A file that cannot be read is recorded `failed` with the reason; the document itself is
 * never touched. Outages are retried by the queue; safe to run twice.
 */
async function extractDocumentText(documentId: string, deps: JobDeps, texts: DocumentTextsRepository, helpers: Pick<JobHelpers, 'job' | 'logger'>): Promise<void> {
  const doc = await texts.getForTextJob(deps.db, documentId);
  if (!doc || !EXTRACTABLE_TYPES.has(doc.content_type)) return; // deleted meanwhile
  let status: DocumentTextStatus;
  let extracted: ExtractedText = { text: '', pageCount: null, truncated: false };
  let error: string | null = null;
  try {
    extracted = await read(deps, doc);
    status = extracted.text === '' ? 'empty' : 'extracted';
  } catch (err) {
    const lastAttempt = helpers.job.attempts >= helpers.job.max_attempts;
    if (isOutage(err) || (!(err instanceof UnreadableDocumentError) && !lastAttempt)) throw err;
    status = 'failed';
    error = err instanceof Error ? err.message : String(err);
    helpers.logger.warn(`document ${documentId}: no text extracted: ${error}`);
  }
  await texts.save(deps.db, {
    document_id: doc.id, status, text: extracted.text, page_count: extracted.pageCount, truncated: extracted.truncated, error, extracted_at: new Date(),
  });
}

async function read(deps: JobDeps, doc: { blob_key: string; content_type: string; byte_size: number | string }): Promise<ExtractedText> {
  const size = Number(doc.byte_size);
  if (doc.content_type === 'application/pdf') {
    if (size > PDF_MAX_BYTES) throw new UnreadableDocumentError(`the PDF is larger than ${PDF_MAX_BYTES / 1024 / 1024} MB; its text is not read`);
    const bytes = await deps.blobs.read(doc.blob_key);
    if (!bytes) throw new UnreadableDocumentError('the file is missing from storage');
    return textOfPdf(bytes);
  }
  if (size === 0) return { text: '', pageCount: null, truncated: false };
  const object = await deps.blobs.get(doc.blob_key, { range: { start: 0, end: Math.min(size, TEXT_MAX_BYTES) - 1 } });
  if (!object) throw new UnreadableDocumentError('the file is missing from storage');
  const chunks: Buffer[] = [];
  for await (const chunk of object.stream) chunks.push(chunk as Buffer);
  return textOfPlainFile(Buffer.concat(chunks), size <= TEXT_MAX_BYTES);
}
