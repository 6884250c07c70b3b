import crypto from 'node:crypto';

export interface FilePart {
  name?: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** A multipart/form-data body, built by hand so tests control every byte (field order, odd parts). */
export function multipart(fields: Record<string, string | string[]>, file?: FilePart | FilePart[], options: { fileFirst?: boolean } = {}): { payload: Buffer; headers: Record<string, string> } {
  const boundary = `----jobsite${crypto.randomBytes(8).toString('hex')}`;
  const parts: Buffer[] = [];
  const fieldParts = () => {
    for (const [name, value] of Object.entries(fields)) {
      for (const v of [value].flat()) {
        parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${v}\r\n`));
      }
    }
  };
  const fileParts = () => {
    for (const f of [file ?? []].flat()) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.name ?? 'file'}"; filename="${f.filename ?? 'photo.jpg'}"\r\n` +
        `Content-Type: ${f.contentType ?? 'application/octet-stream'}\r\n\r\n`));
      parts.push(f.data, Buffer.from('\r\n'));
    }
  };
  if (options.fileFirst) { fileParts(); fieldParts(); } else { fieldParts(); fileParts(); }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
