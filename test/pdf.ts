/**
 * Reads a PDF the way a viewer does (pdfjs-dist, Mozilla's PDF engine, no native code): its
 * pages, the text on each, and how many images each page paints.
 */
import { getDocument, OPS } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface ParsedPdf {
  pageCount: number;
  /** Each page's text, items joined by spaces. */
  pages: string[];
  /** Images painted on each page. */
  imagesPerPage: number[];
  /** The pixel size of each image painted on each page. */
  imageSizes: { width: number; height: number }[][];
  title: string | null;
}

export async function parsePdf(bytes: Buffer): Promise<ParsedPdf> {
  const doc = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    const imagesPerPage: number[] = [];
    const imageSizes: { width: number; height: number }[][] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((i) => ('str' in i ? i.str : '')).join(' ').replace(/\s+/g, ' '));
      const ops = await page.getOperatorList();
      const painted = ops.fnArray.flatMap((f, i) => (f === OPS.paintImageXObject ? [ops.argsArray[i] as [string, number, number]] : []));
      imagesPerPage.push(painted.length);
      imageSizes.push(painted.map(([, width, height]) => ({ width, height })));
    }
    const meta = await doc.getMetadata();
    const title = (meta.info as { Title?: string }).Title ?? null;
    return { pageCount: doc.numPages, pages, imagesPerPage, imageSizes, title };
  } finally {
    await doc.destroy();
  }
}
