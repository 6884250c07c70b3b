import type { Insertable } from 'kysely';
import type { Executor } from '../../db/database.ts';
import type { DocumentTextsTable } from '../../db/schema.ts';
import { EXTRACTABLE_TYPES } from './document-text.extract.ts';

/** The extracted text of documents (document_texts, migration 021); a trigger copies it into the search index. */
export class DocumentTextsRepository {
  getForTextJob(db: Executor, documentId: string) {
    return db.selectFrom('documents').select(['id', 'blob_key', 'content_type', 'byte_size']).where('id', '=', documentId).executeTakeFirst();
  }

  /** Records the outcome; nothing when the document was deleted meanwhile. Safe to run twice (the last run wins). */
  async save(db: Executor, row: Insertable<DocumentTextsTable>): Promise<void> {
    await db.insertInto('document_texts')
      .columns(['document_id', 'status', 'text', 'page_count', 'truncated', 'error', 'extracted_at'])
      .expression((eb) => eb.selectFrom('documents').where('id', '=', row.document_id).select([
        eb.val(row.document_id).as('document_id'), eb.val(row.status).as('status'), eb.val(row.text ?? '').as('text'),
        eb.val(row.page_count ?? null).as('page_count'), eb.val(row.truncated ?? false).as('truncated'),
        eb.val(row.error ?? null).as('error'), eb.val(row.extracted_at).as('extracted_at'),
      ]))
      .onConflict((oc) => oc.column('document_id').doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'), text: eb.ref('excluded.text'), page_count: eb.ref('excluded.page_count'),
        truncated: eb.ref('excluded.truncated'), error: eb.ref('excluded.error'), extracted_at: eb.ref('excluded.extracted_at'),
      })))
      .execute();
  }

  /** PDFs and text files made before `olderThan` whose text was never recorded (a lost job, or uploaded before migration 021). */
  async staleUnextracted(db: Executor, olderThan: Date, limit: number): Promise<string[]> {
    const rows = await db.selectFrom('documents as d').select('d.id')
      .where('d.content_type', 'in', [...EXTRACTABLE_TYPES]).where('d.created_at', '<', olderThan)
      .where((eb) => eb.not(eb.exists(eb.selectFrom('document_texts as t').select('t.document_id').whereRef('t.document_id', '=', 'd.id'))))
      .orderBy('d.created_at').limit(limit).execute();
    return rows.map((r) => r.id);
  }
}
