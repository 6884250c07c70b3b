import type { FastifyRequest } from 'fastify';
import { sql, type Selectable, type SqlBool } from 'kysely';
import type { Config } from '../../config.ts';
import type { Db, Executor } from '../../db/database.ts';
import type { DocumentsTable } from '../../db/schema.ts';
import type { Actor } from '../../http/actor.ts';
import { notFound, validationFailed } from '../../http/errors.ts';
import { checkIfMatch, type IfMatch } from '../../http/etag.ts';
import { decodeCursor, toPage, type PageOf } from '../../http/pagination.ts';
import { isId, newId } from '../../ids.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { FileRequest, FileResponse, FilesService } from '../../storage/files.service.ts';
import { BlobGarbage } from '../../storage/garbage.ts';
import { intake } from '../../storage/intake.ts';
import { FormFields, readMultipartUpload } from '../../storage/multipart-upload.ts';
import { assertMay } from '../access/permissions.ts';
import type { EventLog } from '../events/events.log.ts';
import { ProjectAccess } from '../projects/projects.access.ts';
import type { DocumentListFilters, DocumentPatchInput, DocumentView } from './documents.schemas.ts';
import { queueTextExtraction } from './documents.jobs.ts';
import { ACCEPTED_DOCUMENTS, cleanDocumentName, sniffDocumentType, type DocumentType } from './documents.sniff.ts';

type DocumentRow = Selectable<DocumentsTable>;
const EVENT_URL_TTL_SECONDS = 24 * 3600;
const FORM_FIELDS: ReadonlySet<string> = new Set(['name']);

/**
 * Documents: streamed uploads sniffed against an allow-list, renames, deletion with the file,
 * and downloads of the exact bytes. Anyone who can see the project may upload and download;
 * restricted users rename and delete only their own (src/features/access/permissions.ts).
 */
export class DocumentsService {
  private readonly access = new ProjectAccess();
  private readonly garbage: BlobGarbage;

  constructor(
    private readonly db: Db,
    private readonly events: EventLog,
    private readonly blobs: BlobStore,
    private readonly files: FilesService,
    private readonly config: Config,
  ) {
    this.garbage = new BlobGarbage(blobs);
  }

  private async view(d: DocumentRow, ttl = this.config.media.urlTtlSeconds): Promise<DocumentView> {
    return {
      id: d.id,
      project_id: d.project_id,
      name: d.name,
      content_type: d.content_type,
      byte_size: d.byte_size,
      sha256: d.sha256,
      url: await this.blobs.signedUrl(d.blob_key, { expiresInSeconds: ttl, disposition: 'attachment', filename: d.name }),
      uploaded_by: d.uploaded_by,
      created_at: d.created_at.toISOString(),
      updated_at: d.updated_at.toISOString(),
    };
  }

  /** A multipart upload: `file` plus an optional `name`, in any order; 404/403 before a byte is read. */
  async upload(actor: Actor, projectId: string, req: FastifyRequest): Promise<DocumentView> {
    await this.access.requireProject(this.db, actor, projectId, 'contribute');
    const maxBytes = this.config.media.documentMaxBytes;
    const { stored, fields } = await readMultipartUpload(req, this.blobs, {
      what: 'document', maxBytes, fieldNames: FORM_FIELDS,
      // The name only tells kinds of text apart (CSV, DXF); a `name` sent before the file counts.
      receive: (file, filename, before) => intake<DocumentType>(this.blobs, file, {
        kind: 'documents', maxBytes, headBytes: 64 * 1024, accepted: ACCEPTED_DOCUMENTS,
        sniff: (head) => sniffDocumentType(head, before.get('name')?.[0] ?? filename ?? ''),
      }),
      parse: (values, errors, filename) => {
        const given = new FormFields(values, errors).single('name');
        const name = given === undefined ? cleanDocumentName(filename) ?? 'document' : cleanDocumentName(given);
        if (name === null) errors.push({ path: 'body.name', message: 'must have at least one visible character' });
        return { name: name ?? '' };
      },
    });
    try {
      const now = new Date();
      const row: DocumentRow = {
        id: newId('document'), workspace_id: actor.workspaceId, project_id: projectId, name: fields.name,
        content_type: stored.contentType, byte_size: stored.byteSize, sha256: stored.sha256, blob_key: stored.key,
        uploaded_by: actor.userId, created_at: now, updated_at: now,
      };
      await this.db.transaction().execute(async (tx) => {
        await this.access.requireProject(tx, actor, projectId, 'contribute', 'share');
        await this.events.emit(tx, {
          workspaceId: row.workspace_id, event: 'document.uploaded', projectId: row.project_id,
          data: await this.view(row, Math.max(this.config.media.urlTtlSeconds, EVENT_URL_TTL_SECONDS)),
          alongWith: tx.insertInto('documents').values(row),
        });
        await queueTextExtraction(tx, row);
      });
      return await this.view(row);
    } catch (err) {
      await this.blobs.delete(stored.key).catch(() => undefined);
      throw err;
    }
  }

  async list(actor: Actor, projectId: string, filters: DocumentListFilters & { limit: number }): Promise<PageOf<DocumentView>> {
    await this.access.requireProject(this.db, actor, projectId, 'view');
    const after = decodeCursor(filters.cursor, 'id', 1, ([id]) => typeof id === 'string');
    let q = this.db.selectFrom('documents').selectAll().where('workspace_id', '=', actor.workspaceId).where('project_id', '=', projectId);
    if (after) q = q.where('id', '<', after[0] as string);
    const page = toPage(await q.orderBy('id', 'desc').limit(filters.limit + 1).execute(), filters.limit, 'id', (d) => [d.id], (d) => d);
    return { ...page, data: await Promise.all(page.data.map((d) => this.view(d))) };
  }

  async get(actor: Actor, id: string): Promise<DocumentView> {
    return this.view(await this.document(this.db, actor, id, 'view'));
  }

  /**
   * The documents among `ids` that the caller may see, each as `get` returns it, in no particular
   * order (the others are left out): sync's read of a page, one statement instead of one `get` each.
   */
  async viewsOf(actor: Actor, ids: readonly string[]): Promise<DocumentView[]> {
    const valid = ids.filter((id) => isId('document', id));
    if (valid.length === 0) return [];
    let q = this.db.selectFrom('documents as d').selectAll('d').where('d.workspace_id', '=', actor.workspaceId).where(sql<SqlBool>`d.id = any(${valid}::text[])`);
    const visibleProjects = this.access.visibleProjectIds(this.db, actor);
    if (visibleProjects !== null) q = q.where('d.project_id', 'in', visibleProjects);
    return Promise.all((await q.execute()).map((d) => this.view(d)));
  }

  async rename(actor: Actor, id: string, patch: DocumentPatchInput, ifMatch: IfMatch): Promise<DocumentView> {
    return this.db.transaction().execute(async (tx) => {
      const doc = await this.document(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, { id: doc.id, updated_at: doc.updated_at.toISOString() });
      const name = patch.name === undefined ? doc.name : cleanDocumentName(patch.name);
      if (name === null) return validationFailed([{ path: 'body.name', message: 'must have at least one visible character' }]);
      if (name === doc.name) return this.view(doc);
      const row = await tx.updateTable('documents').set({ name, updated_at: new Date(Math.max(Date.now(), doc.updated_at.getTime() + 1)) })
        .where('id', '=', doc.id).returningAll().executeTakeFirstOrThrow();
      await this.events.emit(tx, { workspaceId: row.workspace_id, event: 'document.updated', projectId: row.project_id, data: await this.view(row, EVENT_URL_TTL_SECONDS) });
      return this.view(row);
    });
  }

  async remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    const doc = await this.db.transaction().execute(async (tx) => {
      const row = await this.document(tx, actor, id, 'change', true);
      checkIfMatch(ifMatch, { id: row.id, updated_at: row.updated_at.toISOString() });
      await this.events.emit(tx, { workspaceId: row.workspace_id, event: 'document.deleted', projectId: row.project_id, data: await this.view(row, EVENT_URL_TTL_SECONDS) });
      await tx.deleteFrom('documents').where('id', '=', row.id).execute(); // the trigger records the blob in blob_garbage
      await BlobGarbage.queueCollection(tx);
      return row;
    });
    await this.garbage.collect(this.db, [doc.blob_key]).catch(() => undefined);
  }

  /**
   * The exact bytes, with the document's name, its type, validators and ranges. `inline` is
   * honoured for PDFs only (the browser's viewer; any other type stays an attachment), and may be
   * framed by this origin's pages only (the web app's preview), never by another site's.
   */
  async download(actor: Actor, id: string, req: FileRequest, disposition: 'inline' | 'attachment' = 'attachment'): Promise<FileResponse> {
    const doc = await this.document(this.db, actor, id, 'view');
    const inline = disposition === 'inline' && doc.content_type === 'application/pdf';
    const served = await this.files.serveObject(doc.blob_key, {
      cacheControl: 'private, no-cache', disposition: inline ? 'inline' : 'attachment', filename: doc.name, contentType: doc.content_type,
    }, req);
    if (inline) Object.assign(served.headers, { 'content-security-policy': "frame-ancestors 'self'", 'x-frame-options': 'SAMEORIGIN' });
    return served;
  }

  private async document(db: Executor, actor: Actor, id: string, action: 'view' | 'change', lock = false): Promise<DocumentRow> {
    let q = db.selectFrom('documents').selectAll().where('workspace_id', '=', actor.workspaceId).where('id', '=', id);
    if (lock) q = q.forUpdate();
    const row = isId('document', id) ? await q.executeTakeFirst() : undefined;
    if (!row) return notFound('document', id);
    await this.access.requireProjectOf(db, actor, row.project_id, { kind: 'document', id });
    if (action === 'change') assertMay(actor, 'document.change', row.uploaded_by);
    return row;
  }
}
