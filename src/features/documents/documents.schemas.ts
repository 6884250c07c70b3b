import { Type, type Static } from '@sinclair/typebox';
import { PageQuery } from '../../http/pagination.ts';
import { NonBlankString, StringEnum } from '../../http/schema-types.ts';

export const Document = Type.Object({
  id: Type.String({ description: 'doc_…' }),
  project_id: Type.String(),
  name: Type.String({ description: 'The file name shown and used for downloads (1..255 characters).' }),
  content_type: Type.String({ description: 'Sniffed from the bytes at upload.' }),
  byte_size: Type.Integer(),
  sha256: Type.String({ description: 'Lowercase hex SHA-256 of the bytes.' }),
  url: Type.String({ description: 'Signed, expiring URL that downloads the file (as an attachment, with its name) without the API key.' }),
  uploaded_by: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
}, { title: 'Document' });
export type DocumentView = Static<typeof Document>;

export const DocumentUploadForm = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'PDF, image, .docx/.xlsx/.pptx, CSV, plain text, DWG or DXF (sniffed from the bytes). Up to JOBSITE_DOCUMENT_MAX_BYTES (default 100 MB).' },
    name: { type: 'string', maxLength: 255, description: 'Defaults to the uploaded file name.' },
  },
} as const;

export const DocumentPatch = Type.Object({
  name: Type.Optional(NonBlankString({ maxLength: 255 })),
}, { additionalProperties: false, title: 'DocumentPatch' });
export type DocumentPatchInput = Static<typeof DocumentPatch>;

export const DocumentListQuery = Type.Object({
  limit: Type.Optional(PageQuery.limit),
  cursor: Type.Optional(PageQuery.cursor),
}, { additionalProperties: false });
export type DocumentListFilters = Static<typeof DocumentListQuery>;

export const DocumentIdParams = Type.Object({ id: Type.String({ maxLength: 100, description: 'doc_…' }) });

export const DocumentDownloadQuery = Type.Object({
  disposition: Type.Optional(StringEnum(['attachment', 'inline'] as const, {
    description: '`inline` shows a PDF in the browser (the web app\'s preview), framed by pages of this origin only; ' +
      'other types are always sent as attachments. Default `attachment`.',
  })),
}, { additionalProperties: false });
