/**
 * The fonts a report prints with, all SIL OFL and embedded as subsets (only the glyphs used):
 * Noto Sans for Latin, Greek and Cyrillic, then Noto Sans Hans for Chinese and Japanese (kanji
 * and kana; it also has most traditional characters), then Noto Sans KR for Hangul — in regular
 * and bold. Each string is split into runs by the first font of that chain that has the
 * character. A font file is read once per process, when a string first needs it: a report in
 * Latin script never loads the CJK fonts (8 and 4.5 MB).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import * as fontkit from 'fontkit';

export type Weight = 'regular' | 'bold';

const require = createRequire(import.meta.url);
/** The fonts/ folder of a font package (the packages export only a metadata module, in dist/). */
const fontsOf = (pkg: string) => path.join(path.dirname(require.resolve(pkg)), '..', 'fonts');

interface Face {
  /** Also the name pdfkit caches the embedded font under in a document. */
  name: string;
  file: string;
}

const face = (pkg: string, file: string): Face => ({ name: file.replace(/\.[a-z]+$/, ''), file: path.join(fontsOf(pkg), file) });
const CHAINS: Record<Weight, Face[]> = {
  regular: [
    face('@embedpdf/fonts-latin', 'NotoSans-Regular.ttf'),
    face('@embedpdf/fonts-sc', 'NotoSansHans-Regular.otf'),
    face('@embedpdf/fonts-kr', 'NotoSansKR-Regular.otf'),
  ],
  bold: [
    face('@embedpdf/fonts-latin', 'NotoSans-Bold.ttf'),
    face('@embedpdf/fonts-sc', 'NotoSansHans-Bold.otf'),
    face('@embedpdf/fonts-kr', 'NotoSansKR-Bold.otf'),
  ],
};

const opened = new Map<string, fontkit.Font>();
/** The parsed font, shared by every document of the process (pdfkit subsets it per document). */
function fontOf(f: Face): fontkit.Font {
  let font = opened.get(f.name);
  if (!font) {
    const parsed = fontkit.openSync(f.file);
    if (!('hasGlyphForCodePoint' in parsed)) throw new Error(`${f.file} is a font collection, not a font`);
    font = parsed;
    opened.set(f.name, font);
  }
  return font;
}

/** Characters drawn with whatever font the text around them uses (spaces, line breaks, combining marks). */
const NEUTRAL = /^[\s\p{M}]$/u;
/** Invisible format characters (zero-width joiners, variation selectors): nothing to draw. */
const IGNORABLE = /^\p{Default_Ignorable_Code_Point}$/u;

export interface TextRun {
  face: Face;
  text: string;
}

/**
 * `text` split into runs by the first font of the weight's chain that has each character. A
 * character none of the fonts has (an emoji, a script the fonts lack) prints as `?`.
 */
export function runsOf(text: string, weight: Weight): TextRun[] {
  const chain = CHAINS[weight];
  const runs: TextRun[] = [];
  let current: TextRun | undefined;
  // A line break opens the next run rather than end this one: pdfkit drops a break that ends a `continued` fragment.
  let pending = '';
  for (let ch of text) {
    if (IGNORABLE.test(ch)) continue;
    if (ch === '\n') current = undefined;
    if (NEUTRAL.test(ch)) {
      if (current) current.text += ch;
      else pending += ch;
      continue;
    }
    const found = chain.find((f) => fontOf(f).hasGlyphForCodePoint(ch.codePointAt(0)!));
    if (!found) ch = '?';
    const chosen = found ?? chain[0]!;
    if (current?.face !== chosen) runs.push(current = { face: chosen, text: '' });
    current.text += pending + ch;
    pending = '';
  }
  if (pending) {
    if (runs.length > 0) runs[runs.length - 1]!.text += pending;
    else runs.push({ face: chain[0]!, text: pending });
  }
  return runs;
}

/** Selects a face in `doc` (embedded on first use, under its own name). */
function useFace(doc: PDFKit.PDFDocument, f: Face): void {
  // pdfkit accepts a parsed fontkit font as well as a file (its typings list only the latter).
  doc.font(fontOf(f) as unknown as Buffer, f.name);
}

/** A face's line height and ascent per point of font size. */
function metricsOf(f: Face): { line: number; ascent: number } {
  const font = fontOf(f);
  return { line: (font.ascent - font.descent + font.lineGap) / font.unitsPerEm, ascent: font.ascent / font.unitsPerEm };
}

/** The height of a line of text (Noto Sans sets lines looser than Helvetica). */
export function lineHeightOf(size: number): number {
  return metricsOf(CHAINS.regular[0]!).line * size;
}

/**
 * `doc.text` for any script: a run per font, chained with `continued` so they wrap as one
 * paragraph; `x`/`y` undefined continue where the text is (as in pdfkit). Every run sits on the
 * main font's baseline and advances lines by its line height, whatever its own metrics (the
 * CJK fonts' ascent and line height differ). A `height` box gets half a line to spare, so a
 * taller CJK line still fits in it.
 */
export function writeText(
  doc: PDFKit.PDFDocument, text: string, weight: Weight, size: number,
  x: number | undefined, y: number | undefined, options: PDFKit.Mixins.TextOptions = {},
): PDFKit.PDFDocument {
  const runs = runsOf(text, weight);
  if (runs.length === 0) runs.push({ face: CHAINS[weight][0]!, text: '' });
  const main = metricsOf(CHAINS[weight][0]!);
  const height = options.height === undefined ? {} : { height: options.height + (main.line * size) / 2 };
  doc.fontSize(size);
  runs.forEach((run, i) => {
    useFace(doc, run.face);
    const own = metricsOf(run.face);
    const last = i === runs.length - 1;
    const opts: PDFKit.Mixins.TextOptions = {
      ...options, ...height,
      baseline: -main.ascent * size,
      lineGap: (options.lineGap ?? 0) + (main.line - own.line) * size,
      continued: last ? (options.continued ?? false) : true,
    };
    if (i === 0 && x !== undefined) doc.text(run.text, x, y, opts);
    else doc.text(run.text, opts);
  });
  return doc;
}
