
/** The types whose text is extracted for search. */
export const EXTRACTABLE_TYPES: ReadonlySet<string> = new Set(['application/pdf', 'text/plain', 'text/csv']);
/** Text kept per document: enough for ~60 dense pages; what lies past it is not searchable. */
export const TEXT_MAX_CHARS = 200_000;
/** Pages of a PDF read at most. */
export const PDF_MAX_PAGES = 100;
/** A PDF is read whole into memory (pdf.js needs random access): larger ones are not read. */
export const PDF_MAX_BYTES = 64 * 1024 * 1024;
/** Bytes of a text file read at most (its first TEXT_MAX_CHARS characters fit, in any UTF-8). */
export const TEXT_MAX_BYTES = TEXT_MAX_CHARS * 4;
/** A PDF that takes longer than this to read is given up (a hostile or pathological file). */
const PDF_TIME_LIMIT_MS = 60_000;

export interface ExtractedText {
  text: string;
  pageCount: number | null;
  truncated: boolean;
}

/** A file whose text cannot be read, for a reason another try would not change. */
export class UnreadableDocumentError extends Error {}

// Control characters other than tab and line breaks (NUL cannot be stored at all) become spaces.
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

export function cleanText(raw: string): string {
  return raw.replace(CONTROL, ' ').replace(/[ \t]+/g, ' ').replace(/\n{3,}/g, '\n\n').trim();
}

function capped(text: string, truncated: boolean, pageCount: number | null): ExtractedText {
  const clean = cleanText(text);
  if (clean.length <= TEXT_MAX_CHARS) return { text: clean, pageCount, truncated };
  // Never cut a surrogate pair in two.
  const end = /[\uD800-\uDBFF]/.test(clean[TEXT_MAX_CHARS - 1]!) ? TEXT_MAX_CHARS - 1 : TEXT_MAX_CHARS;
  return { text: clean.slice(0, end), pageCount, truncated: true };
}

/** The first bytes of a text file, as UTF-8 (bytes that are not become U+FFFD, then dropped). */
export function textOfPlainFile(head: Buffer, wholeFile: boolean): ExtractedText {
  const decoded = new TextDecoder('utf-8', { fatal: false }).decode(head, { stream: !wholeFile }).replace(/\uFFFD/g, ' ');
  return capped(decoded, !wholeFile, null);
}

const WORKER: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfJs: Promise<PdfJs> | undefined;

/**
 * pdf.js, loaded when the first PDF is read. Its legacy build (the one that runs on Node 20) installs
 * core-js polyfills that replace Array.prototype.push and JSON.parse for the whole process with
 * slower JavaScript; pg parses every array and json column of every row with them (~8 % of the API
 * process's CPU on GET /v1/projects, when loaded at start). The natives are put back once it has
 * loaded: pdf.js needs neither replacement (they only add spec corner cases: push on an array whose
 * length is read-only, JSON.parse's source text for revivers). Its worker (run in this thread, found
 * at globalThis.pdfjsWorker, which it sets) carries the same polyfills, so it is loaded here too.
 */
function loadPdfJs(): Promise<PdfJs> {
  pdfJs ??= (async () => {
    const { push } = Array.prototype;
    const { parse } = JSON;
    try {
      const pdf = await import('pdfjs-dist/legacy/build/pdf.mjs');
      await import(WORKER);
      return pdf;
    } finally {
      Array.prototype.push = push;
      JSON.parse = parse;
    }
  })();
  return pdfJs;
}

/** The text of a PDF's first PDF_MAX_PAGES pages, as pdf.js (Mozilla's PDF engine) reads it. */
export async function textOfPdf(bytes: Buffer): Promise<ExtractedText> {
  const { getDocument } = await loadPdfJs();
  const task = getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new UnreadableDocumentError(`reading the PDF took longer than ${PDF_TIME_LIMIT_MS / 1000} s`)), PDF_TIME_LIMIT_MS);
  });
  try {
    return await Promise.race([read(), timeout]);
  } catch (err) {
    if (err instanceof UnreadableDocumentError) throw err;
    throw new UnreadableDocumentError(`not a readable PDF: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    clearTimeout(timer);
    await task.destroy().catch(() => undefined);
  }

  async function read(): Promise<ExtractedText> {
    const doc = await task.promise;
    const pages: string[] = [];
    let length = 0;
    for (let n = 1; n <= Math.min(doc.numPages, PDF_MAX_PAGES) && length <= TEXT_MAX_CHARS; n++) {
      const content = await (await doc.getPage(n)).getTextContent();
      const text = content.items.map((i) => ('str' in i ? i.str + (i.hasEOL ? '\n' : ' ') : '')).join('');
      pages.push(text);
      length += text.length;
    }
    return capped(pages.join('\n\n'), doc.numPages > PDF_MAX_PAGES, doc.numPages);
  }
}
