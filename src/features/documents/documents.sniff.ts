import { sniffImageType } from '../photos/photos.sniff.ts';

/**
 * What a document is, from its first bytes (and, only to tell apart kinds of plain text, its
 * name): an allow-list of office, drawing and image formats. Everything else — executables,
 * archives, legacy binary Office files, scripts — is refused by returning null.
 */
export type DocumentType =
  | 'application/pdf'
  | 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'image/gif' | 'image/tiff'
  | 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  | 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'
  | 'application/vnd.openxmlformats-officedocument.presentationml.presentation'
  | 'text/csv' | 'text/plain'
  | 'image/vnd.dwg' | 'image/vnd.dxf';

export const ACCEPTED_DOCUMENTS = 'a PDF, an image (JPEG, PNG, WebP, HEIC, GIF, TIFF), a Word, Excel or PowerPoint file (.docx, .xlsx, .pptx), CSV, plain text, or a DWG/DXF drawing';

const OOXML = {
  'word/': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'xl/': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'ppt/': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
} as const;

const ZIP_LOCAL = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

/** The names of the ZIP entries whose local headers lie in `head`. */
function zipEntryNames(head: Buffer): string[] {
  const names: string[] = [];
  for (let at = head.indexOf(ZIP_LOCAL); at !== -1 && at + 30 <= head.length; at = head.indexOf(ZIP_LOCAL, at + 4)) {
    const nameLength = head.readUInt16LE(at + 26);
    if (at + 30 + nameLength > head.length) break;
    names.push(head.toString('utf8', at + 30, at + 30 + nameLength));
  }
  return names;
}

/** UTF-8 text (BOM allowed), no NUL or other binary control bytes; a character cut at the head's end is fine. */
function isText(head: Buffer): boolean {
  const sample = head.subarray(0, Math.min(head.length, 64 * 1024));
  for (const byte of sample) {
    if (byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d && byte !== 0x0c) return false;
  }
  for (let cut = 0; cut <= 3; cut++) {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(sample.subarray(0, sample.length - cut));
      return true;
    } catch {
      // maybe a multi-byte character cut at the end: try without its first bytes
    }
  }
  return false;
}

const extension = (name: string) => /\.([a-z0-9]{1,8})$/i.exec(name)?.[1]?.toLowerCase() ?? '';

export function sniffDocumentType(head: Buffer, filename: string): DocumentType | null {
  if (head.length >= 5 && head.toString('latin1', 0, 5) === '%PDF-') return 'application/pdf';
  const image = sniffImageType(head);
  if (image) return image;
  const start = head.toString('latin1', 0, 6);
  if (start === 'GIF87a' || start === 'GIF89a') return 'image/gif';
  if (head.length >= 4 && (head.subarray(0, 4).equals(Buffer.from('II*\0', 'latin1')) || head.subarray(0, 4).equals(Buffer.from('MM\0*', 'latin1')))) return 'image/tiff';
  if (/^AC10[0-3]\d$/.test(start)) return 'image/vnd.dwg';
  if (head.length >= 4 && head.subarray(0, 4).equals(ZIP_LOCAL)) {
    const names = zipEntryNames(head);
    if (!names.includes('[Content_Types].xml')) return null; // a plain archive, not an Office file
    for (const [prefix, type] of Object.entries(OOXML)) {
      if (names.some((n) => n.startsWith(prefix))) return type;
    }
    return null;
  }
  if (isText(head)) {
    const text = head.toString('utf8', 0, Math.min(head.length, 4096)).replace(/^\uFEFF/, '');
    if (text.startsWith('#!')) return null; // a script
    const ext = extension(filename);
    if (ext === 'dxf' || /^\s*0\s*\r?\n\s*SECTION\s*\r?\n/.test(text)) return 'image/vnd.dxf';
    if (ext === 'csv') return 'text/csv';
    return 'text/plain';
  }
  return null;
}

/** A stored name: the last path segment, without control characters, trimmed, at most 255 characters. */
export function cleanDocumentName(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const base = raw.split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const name = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return name === '' || name === '.' || name === '..' ? null : name;
}
