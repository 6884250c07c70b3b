import os from 'node:os';
import PDFDocument from 'pdfkit';
import type { PhotoTimeSource, ReportOptions } from '../../db/schema.ts';
import type { ReportCommentRow, ReportHeader, ReportTaskRow } from './report-content.repository.ts';
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
  image: { key: string; width: number; height: number };
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
}

/** Gives the JPEG to print for a photo, at most `width` × `height` pixels. */
export type LoadImage = (photo: PrintPhoto, width: number, height: number) => Promise<Buffer>;

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
  drawCover(doc, input);
  await drawPhotos(doc, input, loadImage, waitForRoom);
  if (input.tasks) drawTasks(doc, input.tasks, input.timeZone);
  if (input.comments) drawComments(doc, input.comments, input.timeZone);
  return drawFooters(doc, input);
}

function drawCover(doc: PDFKit.PDFDocument, input: ReportDocumentInput): void {
  const { header, options, photos } = input;
  const zone = input.timeZone;
  doc.addPage();
  const width = doc.page.width - 2 * MARGIN;
  doc.y = 170;
  doc.font('Helvetica-Bold').fontSize(26).fillColor('black').text(printable(input.title), MARGIN, doc.y, { width });
  doc.moveDown(0.6);
  doc.font('Helvetica-Bold').fontSize(16).text(printable(header.projectName), { width });
  if (header.address) doc.font('Helvetica').fontSize(12).fillColor(GREY).text(printable(header.address), { width });
  doc.fillColor('black').moveDown(2);

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
  for (const [label, value] of facts) {
    const y = doc.y;
    doc.font('Helvetica-Bold').fontSize(11).text(label, MARGIN, y, { width: 110 });
    doc.font('Helvetica').text(printable(value), MARGIN + 120, y, { width: width - 120 });
    doc.moveDown(0.4);
  }
}

interface Slot {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The slots of one photo page, top-left first, below the day heading. */
function slotsOf(pageSize: ReportOptions['page_size'], layout: ReportOptions['layout']): Slot[] {
  const { cols, rows } = GRID[layout];
  const [pageWidth, pageHeight] = SIZES[pageSize];
  const top = MARGIN + 28;
  const w = (pageWidth - 2 * MARGIN - (cols - 1) * GAP) / cols;
  const h = (pageHeight - MARGIN - top - (rows - 1) * GAP) / rows;
  const slots: Slot[] = [];
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) slots.push({ x: MARGIN + c * (w + GAP), y: top + r * (h + GAP), w, h });
  return slots;
}

/** Pages of photos in capture order; a new day starts a new page under its own heading. */
async function drawPhotos(doc: PDFKit.PDFDocument, input: ReportDocumentInput, loadImage: LoadImage, waitForRoom: () => Promise<void>): Promise<void> {
  const { photos, options } = input;
  if (photos.length === 0) return;
  const font = GRID[options.layout].font;
  const lineHeight = font * 1.2;
  const textHeight = TEXT_LINES * lineHeight + 6;
  // Every photo page has the same slots: their size decides each photo's printed size up front.
  const slots = slotsOf(options.page_size, options.layout);
  const placed = photos.map((photo) => ({ photo, ...fit(photo.image, slots[0]!.w, slots[0]!.h - textHeight) }));

  const images = prefetch(placed, (p) => loadImage(p.photo, p.pixelWidth, p.pixelHeight));
  let slotIndex = slots.length;
  let currentDay = '';
  for (const [i, p] of placed.entries()) {
    const day = dayKey(p.photo.capturedAt, p.photo.timeZone);
    if (slotIndex >= slots.length || day !== currentDay) {
      if (i > 0) await waitForRoom();
      doc.addPage();
      const continued = day === currentDay;
      currentDay = day;
      slotIndex = 0;
      doc.font('Helvetica-Bold').fontSize(14).fillColor('black')
        .text(`${formatDay(p.photo.capturedAt, p.photo.timeZone)}${continued ? ' (continued)' : ''}`, MARGIN, MARGIN, { width: doc.page.width - 2 * MARGIN, lineBreak: false });
    }
    const slot = slots[slotIndex++]!;
    const jpeg = (await images.next()).value as Buffer;
    doc.image(jpeg, slot.x + (slot.w - p.width) / 2, slot.y, { width: p.width, height: p.height });
    drawPhotoText(doc, p.photo, { x: slot.x, y: slot.y + p.height + 6, w: slot.w, h: textHeight }, font);
  }
}

/** The printed size (points) of an image fitted into a box, and the pixels to print it with. */
function fit(image: PrintPhoto['image'], boxWidth: number, boxHeight: number) {
  const scale = Math.min(boxWidth / image.width, boxHeight / image.height);
  const width = image.width * scale;
  const height = image.height * scale;
  const toPixels = (points: number, max: number) => Math.max(1, Math.min(max, Math.round((points / 72) * PRINT_DPI)));
  return { width, height, pixelWidth: toPixels(width, image.width), pixelHeight: toPixels(height, image.height) };
}

function drawPhotoText(doc: PDFKit.PDFDocument, photo: PrintPhoto, box: Slot, font: number): void {
  const lineHeight = font * 1.2;
  const line = (text: string, bold = false, lines = 1) => {
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(font)
      .text(printable(text), box.x, doc.y, { width: box.w, height: lines * lineHeight, ellipsis: true });
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
  doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(title, MARGIN, MARGIN);
  doc.moveDown(0.5);
  return doc.page.width - 2 * MARGIN;
}

function drawTasks(doc: PDFKit.PDFDocument, tasks: ReportTaskRow[], zone: string): void {
  const width = sectionHeading(doc, 'Tasks');
  const open = tasks.filter((t) => t.status === 'open');
  const done = tasks.filter((t) => t.status === 'completed');
  for (const [label, list] of [[`Open (${open.length})`, open], [`Completed (${done.length})`, done]] as const) {
    doc.font('Helvetica-Bold').fontSize(13).text(label, MARGIN, doc.y, { width });
    doc.moveDown(0.3);
    if (list.length === 0) doc.font('Helvetica-Oblique').fontSize(10).fillColor(GREY).text('None.', { width }).fillColor('black');
    for (const task of list) {
      const details = task.status === 'open'
        ? [task.assigneeName ? `assigned to ${task.assigneeName}` : 'unassigned', task.dueAt ? `due ${formatTime(task.dueAt, zone)}` : null]
        : [task.completedAt ? `completed ${formatTime(task.completedAt, zone)}` : 'completed', task.completedByName ? `by ${task.completedByName}` : null];
      doc.font('Helvetica-Bold').fontSize(10).fillColor('black').text(`- ${printable(task.title)}`, MARGIN, doc.y, { width, continued: true })
        .font('Helvetica').fillColor(GREY).text(`  ${printable(details.filter(Boolean).join(', '))}`).fillColor('black');
      doc.moveDown(0.2);
    }
    doc.moveDown(0.8);
  }
}

function drawComments(doc: PDFKit.PDFDocument, comments: ReportCommentRow[], zone: string): void {
  const width = sectionHeading(doc, 'Comments');
  if (comments.length === 0) doc.font('Helvetica-Oblique').fontSize(10).fillColor(GREY).text('None.', { width }).fillColor('black');
  for (const c of comments) {
    const on = c.subjectType === 'project' ? 'on the project'
      : `on ${c.subjectType}${c.subjectLabel ? ` "${c.subjectLabel}"` : ''}`;
    doc.font('Helvetica-Bold').fontSize(10).fillColor('black').text(printable(c.authorName), MARGIN, doc.y, { width, continued: true })
      .font('Helvetica').fillColor(GREY).text(printable(`  ${formatTime(c.createdAt, zone)}, ${on}`));
    doc.fillColor('black').font('Helvetica').fontSize(10).text(printable(c.body), { width });
    doc.moveDown(0.7);
  }
}

/** "Workspace · Project · Title" and "Page n of N" at the foot of every page. */
function drawFooters(doc: PDFKit.PDFDocument, input: ReportDocumentInput): number {
  const { start, count } = doc.bufferedPageRange();
  const label = printable(`${input.header.workspaceName} · ${input.header.projectName} · ${input.title}`);
  for (let i = start; i < start + count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing inside the margin must not start a new page
    const y = doc.page.height - MARGIN + 20;
    const width = doc.page.width - 2 * MARGIN;
    doc.moveTo(MARGIN, y - 6).lineTo(MARGIN + width, y - 6).lineWidth(0.5).strokeColor('#bbbbbb').stroke();
    doc.font('Helvetica').fontSize(8).fillColor(GREY);
    doc.text(label, MARGIN, y, { width: width - 90, height: 10, ellipsis: true });
    doc.text(`Page ${i - start + 1} of ${count}`, MARGIN + width - 90, y, { width: 90, align: 'right', lineBreak: false });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor('black');
  return count;
}
