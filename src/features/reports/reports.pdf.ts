import os from 'node:os';
import PDFDocument from 'pdfkit';
import type { PhotoTimeSource, ReportOptions } from '../../db/schema.ts';
import type { ReportCommentRow, ReportHeader, ReportTaskRow } from './report-content.repository.ts';
import { lineHeightOf, writeText, type Weight } from './report-fonts.ts';
import { dayKey, formatCoordinates, formatDay, formatTime, printable } from './reports.format.ts';

/** One photo as the report prints it; the image itself is loaded when its page is drawn. */
export interface PrintPhoto {
  id: string;
  capturedAt: Date;
  /** `upload`: no capture time is known, and the photo prints "Uploaded" instead of "Taken". */
  capturedAtSource: PhotoTimeSource;
  /** The zone its time and day print in: the report's, else the photo's own, else the project's. */
  timeZone: string;
  caption: string | null;
  lat: number | null;
  lon: number | null;
  altitude: number | null;
  creatorName: string;
  tags: string[];
  /** The blob to print (the `large` or `annotated` variant) and its size in pixels. */
  image: PrintImage;
}

export interface PrintImage {
  key: string;
  width: number;
  height: number;
}

export interface ReportDocumentInput {
  title: string;
  header: ReportHeader;
  requestedBy: string;
  options: ReportOptions;
  /** The zone of every other time (cover, tasks, comments): the report's, else the project's. */
  timeZone: string;
  generatedAt: Date;
  photos: PrintPhoto[];
  tasks: ReportTaskRow[] | null;
  comments: ReportCommentRow[] | null;
  /** The project's cover photo; without one the cover shows the report's first photo. */
  coverPhoto: { id: string; image: PrintImage } | null;
}

/** Gives the JPEG to print for a photo, at most `width` × `height` pixels. */
export type LoadImage = (photo: { id: string; image: PrintImage }, width: number, height: number) => Promise<Buffer>;

/** Images are printed at this resolution: sharp for paper, small for e-mail. */
export const PRINT_DPI = 150;
/** How many photos' images are prepared at once (ahead of the one being drawn): enough to keep the cores busy, no more. */
const LOOKAHEAD = Math.min(4, Math.max(2, os.availableParallelism()));

const MARGIN = 50;
const GAP = 14;
const GREY = '#555555';
/** Page sizes in points (pdfkit's LETTER and A4). */
const SIZES = { letter: [612, 792], a4: [595.28, 841.89] } as const;
const GRID = { 1: { cols: 1, rows: 1, font: 10 }, 2: { cols: 1, rows: 2, font: 9 }, 4: { cols: 2, rows: 2, font: 8 } } as const;
/** Lines under a photo: caption (two), time, coordinates, tags, author. */
const TEXT_LINES = 6;
const DAY_FONT = 14;
/** The band a day heading takes above a row of photos. */
const DAY_BAND = Math.ceil(lineHeightOf(DAY_FONT)) + 6;

export function newReportDocument(title: string, pageSize: ReportOptions['page_size']): PDFKit.PDFDocument {
  return new PDFDocument({
    size: [...SIZES[pageSize]],
    margin: MARGIN,
    // Pages stay open until the end so the footer can say "Page n of N"; images are written as they come.
    bufferPages: true,
    autoFirstPage: false,
    info: { Title: printable(title), Creator: 'Jobsite', Producer: 'Jobsite (pdfkit)' },
  });
}

/**
 * Draws the whole report into `doc` (cover, photos by day, tasks, comments, footers) and returns
 * the page count; the caller ends the document. `waitForRoom` is awaited after each page of
 * photos, so a slow store holds the renderer back instead of the PDF piling up in memory.
 */
export async function drawReport(doc: PDFKit.PDFDocument, input: ReportDocumentInput, loadImage: LoadImage, waitForRoom: () => Promise<void>): Promise<number> {
  await drawCover(doc, input, loadImage);
  await drawPhotos(doc, input, loadImage, waitForRoom);
  if (input.tasks) drawTasks(doc, input.tasks, input.timeZone);
  if (input.comments) drawComments(doc, input.comments, input.timeZone);
  return drawFooters(doc, input);
}

/** `doc.text` in the report's fonts (any script), black unless told. */
function write(doc: PDFKit.PDFDocument, text: string, weight: Weight, size: number, x: number | undefined, y: number | undefined, options: PDFKit.Mixins.TextOptions = {}): void {
  writeText(doc, printable(text), weight, size, x, y, options);
}

/** Title, project and address; the cover photo (the project's, else the first one printed); the facts. */
async function drawCover(doc: PDFKit.PDFDocument, input: ReportDocumentInput, loadImage: LoadImage): Promise<void> {
  const { header, options, photos } = input;
  const zone = input.timeZone;
  doc.addPage();
  const width = doc.page.width - 2 * MARGIN;
  doc.fillColor('black');
  write(doc, input.title, 'bold', 26, MARGIN, MARGIN + 20, { width });
  doc.moveDown(0.2);
  write(doc, header.projectName, 'bold', 16, MARGIN, doc.y, { width });
  if (header.address) {
    doc.fillColor(GREY);
    write(doc, header.address, 'regular', 12, MARGIN, doc.y, { width });
  }
  doc.fillColor('black');

  const first = photos[0];
  const last = photos[photos.length - 1];
  const range = !first || !last ? 'none'
    : dayKey(first.capturedAt, first.timeZone) === dayKey(last.capturedAt, last.timeZone) ? formatDay(first.capturedAt, first.timeZone)
    : `${formatDay(first.capturedAt, first.timeZone)} to ${formatDay(last.capturedAt, last.timeZone)}`;
  const facts: [string, string][] = [
    ['Workspace', header.workspaceName],
    ['Photos', String(photos.length)],
    ['Dates', range],
    ['Time zone', options.time_zone ?? `Each photo in the zone where it was taken; other times in ${zone}`],
    ['Requested by', input.requestedBy],
    ['Generated', formatTime(input.generatedAt, zone)],
  ];
  const factLine = lineHeightOf(11) + 4;
  // The facts sit at the foot of the page; the picture takes the room between them and the title.
  const factsTop = doc.page.height - MARGIN - facts.length * factLine - 10;
  const picture = input.coverPhoto ?? first;
  const top = doc.y + GAP;
  if (picture && factsTop - GAP - top >= 80) {
    const f = fit(picture.image, width, factsTop - GAP - top);
    const jpeg = await loadImage(picture, f.pixelWidth, f.pixelHeight);
    doc.image(jpeg, MARGIN + (width - f.width) / 2, top, { width: f.width, height: f.height });
  }
  let y = Math.max(factsTop, top);
  for (const [label, value] of facts) {
    write(doc, label, 'bold', 11, MARGIN, y, { width: 110, lineBreak: false });
    write(doc, value, 'regular', 11, MARGIN + 120, y, { width: width - 120, height: factLine, ellipsis: true });
    y += factLine;
  }
}

/**
 * Photos in capture order, flowing from page to page: rows of the layout's columns, at most
 * the layout's count on a page. A new day starts a new row under its date heading, on the same
 * page when the row still fits; a day going on over a page is headed `(continued)`.
 */
async function drawPhotos(doc: PDFKit.PDFDocument, input: ReportDocumentInput, loadImage: LoadImage, waitForRoom: () => Promise<void>): Promise<void> {
  const { photos, options } = input;
  if (photos.length === 0) return;
  const { cols, rows, font }: { cols: number; rows: number; font: number } = GRID[options.layout];
  const [pageWidth, pageHeight] = SIZES[options.page_size];
  const bottom = pageHeight - MARGIN;
  // Every row may have a day heading above it, so a page of full rows always fits.
  const cell = {
    w: (pageWidth - 2 * MARGIN - (cols - 1) * GAP) / cols,
    h: (pageHeight - 2 * MARGIN - rows * DAY_BAND - (rows - 1) * GAP) / rows,
  };
  const textHeight = TEXT_LINES * lineHeightOf(font) + 6;
  // Every cell has the same size: it decides each photo's printed size up front.
  const placed = photos.map((photo) => ({ photo, ...fit(photo.image, cell.w, cell.h - textHeight) }));

  const images = prefetch(placed, (p) => loadImage(p.photo, p.pixelWidth, p.pixelHeight));
  const heading = (date: Date, zone: string, y: number, continued: boolean) => {
    doc.fillColor('black');
    write(doc, `${formatDay(date, zone)}${continued ? ' (continued)' : ''}`, 'bold', DAY_FONT, MARGIN, y, { width: pageWidth - 2 * MARGIN, lineBreak: false });
  };
  let y = Infinity;
  let rowY = 0;
  let col = cols;
  let currentDay = '';
  for (const [i, p] of placed.entries()) {
    const day = dayKey(p.photo.capturedAt, p.photo.timeZone);
    const newDay = day !== currentDay;
    if (newDay || col >= cols) {
      if (y + (newDay ? DAY_BAND : 0) + cell.h > bottom + 0.5) {
        if (i > 0) await waitForRoom();
        doc.addPage();
        heading(p.photo.capturedAt, p.photo.timeZone, MARGIN, !newDay);
        y = MARGIN + DAY_BAND;
      } else if (newDay) {
        heading(p.photo.capturedAt, p.photo.timeZone, y, false);
        y += DAY_BAND;
      }
      rowY = y;
      y += cell.h + GAP;
      col = 0;
      currentDay = day;
    }
    const x = MARGIN + col++ * (cell.w + GAP);
    const jpeg = (await images.next()).value as Buffer;
    doc.image(jpeg, x + (cell.w - p.width) / 2, rowY, { width: p.width, height: p.height });
    drawPhotoText(doc, p.photo, { x, y: rowY + p.height + 6, w: cell.w }, font);
  }
}

/** The printed size (points) of an image fitted into a box, and the pixels to print it with. */
function fit(image: PrintImage, boxWidth: number, boxHeight: number) {
  const scale = Math.min(boxWidth / image.width, boxHeight / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  const toPixels = (points: number, max: number) => Math.max(1, Math.min(max, Math.round((points / 72) * PRINT_DPI)));
  return { width, height, pixelWidth: toPixels(width, image.width), pixelHeight: toPixels(height, image.height) };
}

function drawPhotoText(doc: PDFKit.PDFDocument, photo: PrintPhoto, box: { x: number; y: number; w: number }, font: number): void {
  const lineHeight = lineHeightOf(font);
  const line = (text: string, bold = false, lines = 1) => {
    write(doc, text, bold ? 'bold' : 'regular', font, box.x, doc.y, { width: box.w, height: lines * lineHeight, ellipsis: true });
  };
  doc.fillColor('black');
  doc.y = box.y;
  if (photo.caption) line(photo.caption, true, 2);
  doc.fillColor(GREY);
  line(`${photo.capturedAtSource === 'upload' ? 'Uploaded' : 'Taken'} ${formatTime(photo.capturedAt, photo.timeZone)}`);
  line(photo.lat === null || photo.lon === null ? 'GPS: not recorded' : `GPS ${formatCoordinates(photo.lat, photo.lon, photo.altitude)}`);
  if (photo.tags.length > 0) line(`Tags: ${photo.tags.join(', ')}`);
  line(`By ${photo.creatorName}`);
  doc.fillColor('black');
}

/**
 * Loads images in order, at most LOOKAHEAD ahead of the one being drawn: only a handful of
 * photos' bytes are in memory at any time, however long the report.
 */
async function* prefetch<T>(items: T[], load: (item: T) => Promise<Buffer>): AsyncGenerator<Buffer> {
  const pending: Promise<Buffer>[] = [];
  let next = 0;
  const fill = () => {
    while (pending.length < LOOKAHEAD && next < items.length) {
      const p = load(items[next++]!);
      p.catch(() => undefined); // awaited in turn below; not an unhandled rejection meanwhile
      pending.push(p);
    }
  };
  fill();
  while (pending.length > 0) {
    const image = await pending.shift()!;
    fill();
    yield image;
  }
}

function sectionHeading(doc: PDFKit.PDFDocument, title: string): number {
  doc.addPage();
  doc.fillColor('black');
  write(doc, title, 'bold', 18, MARGIN, MARGIN);
  doc.moveDown(0.5);
  return doc.page.width - 2 * MARGIN;
}

function none(doc: PDFKit.PDFDocument, width: number): void {
  doc.fillColor(GREY);
  write(doc, 'None.', 'regular', 10, MARGIN, doc.y, { width });
  doc.fillColor('black');
}

function drawTasks(doc: PDFKit.PDFDocument, tasks: ReportTaskRow[], zone: string): void {
  const width = sectionHeading(doc, 'Tasks');
  const open = tasks.filter((t) => t.status === 'open');
  const done = tasks.filter((t) => t.status === 'completed');
  for (const [label, list] of [[`Open (${open.length})`, open], [`Completed (${done.length})`, done]] as const) {
    write(doc, label, 'bold', 13, MARGIN, doc.y, { width });
    doc.moveDown(0.3);
    if (list.length === 0) none(doc, width);
    for (const task of list) {
      const details = task.status === 'open'
        ? [task.assigneeName ? `assigned to ${task.assigneeName}` : 'unassigned', task.dueAt ? `due ${formatTime(task.dueAt, zone)}` : null]
        : [task.completedAt ? `completed ${formatTime(task.completedAt, zone)}` : 'completed', task.completedByName ? `by ${task.completedByName}` : null];
      doc.fillColor('black');
      write(doc, `- ${task.title}`, 'bold', 10, MARGIN, doc.y, { width, continued: true });
      doc.fillColor(GREY);
      write(doc, `  ${details.filter(Boolean).join(', ')}`, 'regular', 10, undefined, undefined);
      doc.fillColor('black').moveDown(0.2);
    }
    doc.moveDown(0.8);
  }
}

function drawComments(doc: PDFKit.PDFDocument, comments: ReportCommentRow[], zone: string): void {
  const width = sectionHeading(doc, 'Comments');
  if (comments.length === 0) none(doc, width);
  for (const c of comments) {
    const on = c.subjectType === 'project' ? 'on the project'
      : `on ${c.subjectType}${c.subjectLabel ? ` "${c.subjectLabel}"` : ''}`;
    doc.fillColor('black');
    write(doc, c.authorName, 'bold', 10, MARGIN, doc.y, { width, continued: true });
    doc.fillColor(GREY);
    write(doc, `  ${formatTime(c.createdAt, zone)}, ${on}`, 'regular', 10, undefined, undefined);
    doc.fillColor('black');
    write(doc, c.body, 'regular', 10, MARGIN, doc.y, { width });
    doc.moveDown(0.7);
  }
}

/** "Title · day generated" and "Page n of N" at the foot of every page (the project is on the cover). */
function drawFooters(doc: PDFKit.PDFDocument, input: ReportDocumentInput): number {
  const { start, count } = doc.bufferedPageRange();
  const label = `${input.title} · ${formatDay(input.generatedAt, input.timeZone)}`;
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing inside the margin must not start a new page
    const y = doc.page.height - MARGIN + 20;
    const width = doc.page.width - 2 * MARGIN;
    doc.moveTo(MARGIN, y - 6).lineTo(MARGIN + width, y - 6).lineWidth(0.5).strokeColor('#bbbbbb').stroke();
    doc.fillColor(GREY);
    write(doc, label, 'regular', 8, MARGIN, y, { width: width - 90, height: lineHeightOf(8), ellipsis: true });
    write(doc, `Page ${i - start + 1} of ${count}`, 'regular', 8, MARGIN + width - 90, y, { width: 90, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor('black');
  return count;
}
