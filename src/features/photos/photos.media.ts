/**
 * The photo media adapter: everything that touches image bytes (sniffing, header-only pixel
 * checks, EXIF, variants, annotated renders) behind a few functions, so routes and jobs deal in
 * paths, streams and plain values. sharp (libvips) does the image work; exifr reads EXIF.
 * HEVC-coded HEIC, which sharp's prebuilt libvips cannot decode, goes through libheif's
 * WebAssembly build (photos.heic.ts) and continues through sharp as raw pixels.
 *
 * Every sharp pipeline is built by `open()`, which sets `limitInputPixels` (a decompression bomb
 * is refused by libvips before it allocates the image) and `failOn: 'truncated'` (a cut-off
 * upload fails instead of being silently padded with grey). Errors leave as MediaError with a
 * stable `reason` and a human message for `processing_status: failed`.
 */
import fs from 'node:fs/promises';
import type { Readable } from 'node:stream';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { annotationsSvg, type AnnotationShape } from './photos.annotations.ts';
import { decodeHeic, HeicDecodeError } from './photos.heic.ts';

export { sniffImageType, SNIFF_BYTES, type ImageMime } from './photos.sniff.ts';
export { readExif, type ExifCaptureTime, type PhotoExif } from './photos.exif.ts';

export const DEFAULT_MAX_PIXELS = 100_000_000;
/** A file path, the whole file in memory, or a stream of it (consumed once). */
export type MediaInput = string | Buffer | Readable;

export type MediaErrorReason =
  | 'unsupported_format' // not an image sharp can read (text file, unknown container)
  | 'corrupt_image' // looks like an image but its data is damaged or cut off
  | 'too_many_pixels' // declares more pixels than the limit
  | 'processing_failed'; // anything else from the image library

export class MediaError extends Error {
  override readonly name = 'MediaError';
  constructor(readonly reason: MediaErrorReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

function toMediaError(err: unknown, what: string): MediaError {
  if (err instanceof MediaError) return err;
  const msg = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(msg)) return new MediaError('too_many_pixels', `${what}: the image has more pixels than allowed`, { cause: err });
  // A HEIF cut short: libvips reads the header, libheif finds the item data past the end of the file.
  if (/corrupt header[\s\S]*(outside of file bounds|end of file)/i.test(msg)) {
    return new MediaError('corrupt_image', `${what}: the image data is damaged or incomplete (the file is cut short)`, { cause: err });
  }
  if (/unsupported image format|bad seek|input buffer contains unsupported|input file contains unsupported|not a known file format/i.test(msg)) {
    return new MediaError('unsupported_format', `${what}: not a supported image (JPEG, PNG, WebP, HEIC)`, { cause: err });
  }
  if (/premature end|truncat|corrupt|invalid|unexpected end|bad|error|damaged|crc|missing/i.test(msg)) {
    return new MediaError('corrupt_image', `${what}: the image data is damaged or incomplete (${firstLine(msg)})`, { cause: err });
  }
  return new MediaError('processing_failed', `${what}: ${firstLine(msg)}`, { cause: err });
}

function firstLine(s: string): string {
  return s.split('\n')[0]!.slice(0, 200);
}

function open(input: string | Buffer, maxPixels: number): Sharp {
  return sharp(input, { limitInputPixels: maxPixels, failOn: 'truncated', sequentialRead: true });
}

/**
 * A stream is gathered into one buffer before sharp sees it: sharp would buffer it anyway (most
 * decoders need random access), and this way a failing source stream becomes a rejected promise
 * rather than an 'error' event on a sharp instance.
 */
async function settle(input: MediaInput): Promise<string | Buffer> {
  if (typeof input === 'string' || Buffer.isBuffer(input)) return input;
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of input) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  } catch (err) {
    throw new MediaError('processing_failed', `reading the image: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  return Buffer.concat(chunks);
}

const PHOTO_FORMATS = ['jpeg', 'png', 'webp', 'heif'];

/**
 * The photo as a sharp pipeline that yields upright pixels, and its size as displayed.
 *
 * The header is read first: an unsupported format or more pixels than `maxPixels` is refused
 * before anything is decoded. JPEG, PNG, WebP and AVIF are decoded by libvips, rotated by their
 * EXIF orientation. HEVC-coded HEIF is decoded by libheif (photos.heic.ts), which applies the
 * HEIF transformations (irot/imir) itself; libvips already leaves the EXIF orientation of a HEIF
 * out of its metadata, and the raw pixels carry none, so nothing is rotated twice.
 */
async function openUpright(input: MediaInput, maxPixels: number, what: string): Promise<{ img: Sharp; width: number; height: number }> {
  const src = await settle(input);
  const meta = await open(src, maxPixels).metadata();
  if (!meta.width || !meta.height || !PHOTO_FORMATS.includes(meta.format ?? '')) {
    throw new MediaError('unsupported_format', `${what}: ${meta.format ?? 'unknown'} is not a supported photo format`);
  }
  if (meta.width * meta.height > maxPixels) {
    throw new MediaError('too_many_pixels', `${what}: ${meta.width} × ${meta.height} is more than ${maxPixels} pixels`);
  }
  if (meta.format === 'heif' && meta.compression === 'hevc') {
    let px;
    try {
      px = await decodeHeic(typeof src === 'string' ? await fs.readFile(src) : src);
    } catch (err) {
      if (err instanceof HeicDecodeError) {
        throw new MediaError('corrupt_image', `${what}: the HEIC image data is damaged or incomplete (${firstLine(err.message)})`, { cause: err });
      }
      throw new MediaError('processing_failed', `${what}: decoding the HEIC image: ${err instanceof Error ? firstLine(err.message) : String(err)}`, { cause: err });
    }
    if (px.width * px.height > maxPixels) {
      throw new MediaError('too_many_pixels', `${what}: ${px.width} × ${px.height} is more than ${maxPixels} pixels`);
    }
    const img = sharp(px.data, { raw: { width: px.width, height: px.height, channels: px.channels }, limitInputPixels: maxPixels });
    return { img, width: px.width, height: px.height };
  }
  const swap = (meta.orientation ?? 1) >= 5;
  return { img: open(src, maxPixels).rotate(), width: swap ? meta.height : meta.width, height: swap ? meta.width : meta.height };
}

// ---------------------------------------------------------------------------------------------
// Header: size without decoding

export interface ImageHeader {
  width: number;
  height: number;
  pixels: number;
  /** sharp's name of the container: jpeg, png, webp, heif. */
  format: string;
  /** How many bytes of the file were read to answer (the whole buffer when given one). */
  bytesRead: number;
}

/** How much of a file readImageHeader reads first; headers sit well inside it except in odd files. */
export const HEADER_PREFIX_BYTES = 256 * 1024;

/**
 * Width and height from the image's header alone: no pixel is decoded, so a caller can refuse
 * a decompression bomb (422) before anything allocates it. With a path, only the first 256 KB
 * are read, unless the header lies further in (e.g. a HEIF whose `meta` box follows `mdat`),
 * in which case libvips seeks through the file itself — still without decoding.
 * The dimensions are the stored ones (before EXIF orientation); the pixel count is the same.
 */
export async function readImageHeader(input: string | Buffer): Promise<ImageHeader> {
  let buf: Buffer;
  let whole: boolean;
  if (typeof input === 'string') {
    const fh = await fs.open(input, 'r');
    try {
      const prefix = Buffer.alloc(HEADER_PREFIX_BYTES);
      const { bytesRead } = await fh.read(prefix, 0, HEADER_PREFIX_BYTES, 0);
      buf = prefix.subarray(0, bytesRead);
      whole = bytesRead < HEADER_PREFIX_BYTES;
    } finally {
      await fh.close();
    }
  } else {
    buf = input;
    whole = true;
  }
  const meta = async (src: string | Buffer) => {
    // limitInputPixels: false — metadata() never decodes, and we want the real declared size.
    const m = await sharp(src, { limitInputPixels: false }).metadata();
    if (!m.width || !m.height || !m.format) throw new MediaError('unsupported_format', 'no image dimensions in the header');
    return m;
  };
  let m: Metadata;
  let bytesRead = buf.length;
  try {
    m = await meta(buf);
  } catch (err) {
    if (whole || typeof input !== 'string') throw toMediaError(err, 'reading the image header');
    try {
      m = await meta(input);
      bytesRead = (await fs.stat(input)).size; // an upper bound: libvips may have seeked
    } catch (err2) {
      throw toMediaError(err2, 'reading the image header');
    }
  }
  if (!PHOTO_FORMATS.includes(m.format!)) {
    throw new MediaError('unsupported_format', `reading the image header: ${m.format} is not a supported photo format`);
  }
  return { width: m.width!, height: m.height!, pixels: m.width! * m.height!, format: m.format!, bytesRead };
}

// ---------------------------------------------------------------------------------------------
// Variants

export interface VariantSizes {
  /** Longest side of each variant, e.g. { large: 2048, thumbnail: 320 }. */
  [name: string]: number;
}

export interface Variant {
  /** JPEG bytes. */
  data: Buffer;
  width: number;
  height: number;
  contentType: 'image/jpeg';
}

export interface VariantsResult<K extends string> {
  /** The original's size as displayed, after EXIF orientation. */
  width: number;
  height: number;
  variants: Record<K, Variant>;
}

export interface MediaOptions {
  /** Refuse images with more pixels than this (default 100 MP). */
  maxPixels?: number;
  /** JPEG quality of the outputs (default 82). */
  quality?: number;
}

const JPEG_OUT = (quality: number) => ({ quality, progressive: false, mozjpeg: false, chromaSubsampling: '4:2:0' });

/**
 * Auto-rotated JPEG variants, longest side at most each given size (never upscaled), metadata
 * stripped (the pixels are already rotated; colour is converted to sRGB by sharp).
 *
 * The input is decoded ONCE (HEVC HEIC by libheif, the rest by libvips): one pipeline decodes, rotates and shrinks to the largest variant
 * as raw pixels; every variant is then encoded from those pixels (smaller ones are resized from
 * them, which is cheap). Thumbnails made from the 2048 px pixels look the same as ones made from
 * the original.
 */
export async function makeVariants<K extends string>(
  input: MediaInput,
  sizes: Record<K, number>,
  options: MediaOptions = {},
): Promise<VariantsResult<K>> {
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  const quality = options.quality ?? 82;
  const entries = Object.entries(sizes) as [K, number][];
  if (!entries.length) throw new TypeError('makeVariants: no sizes');
  for (const [, size] of entries) {
    if (!Number.isInteger(size) || size < 1) throw new TypeError(`makeVariants: bad size ${size}`);
  }
  const biggest = Math.max(...entries.map(([, s]) => s));
  try {
    const { img, width, height } = await openUpright(input, maxPixels, 'making variants');
    const { data: raw, info } = await img
      .resize({ width: biggest, height: biggest, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' }) // transparent PNG/WebP areas become white, not black
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const rawOptions = { raw: { width: info.width, height: info.height, channels: info.channels } };
    const out = {} as Record<K, Variant>;
    await Promise.all(entries.map(async ([name, size]) => {
      let p = sharp(raw, rawOptions);
      if (size < Math.max(info.width, info.height)) p = p.resize({ width: size, height: size, fit: 'inside', withoutEnlargement: true });
      const { data, info: vi } = await p.jpeg(JPEG_OUT(quality)).toBuffer({ resolveWithObject: true });
      out[name] = { data, width: vi.width, height: vi.height, contentType: 'image/jpeg' };
    }));
    return { width, height, variants: out };
  } catch (err) {
    throw toMediaError(err, 'making variants');
  }
}

// ---------------------------------------------------------------------------------------------
// Annotated render

/**
 * The photo, auto-rotated and shrunk to `maxSide` (never upscaled), with the shapes drawn over
 * it (an SVG overlay composited by sharp), as JPEG.
 */
export async function renderAnnotated(
  input: MediaInput,
  shapes: readonly AnnotationShape[],
  options: MediaOptions & { maxSide?: number } = {},
): Promise<Variant> {
  const maxSide = options.maxSide ?? 2048;
  const maxPixels = options.maxPixels ?? DEFAULT_MAX_PIXELS;
  try {
    const { img } = await openUpright(input, maxPixels, 'rendering annotations');
    const { data: raw, info } = await img
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .flatten({ background: '#ffffff' }) // transparent PNG/WebP areas become white, not black
      .toColourspace('srgb')
      .raw()
      .toBuffer({ resolveWithObject: true });
    const svg = Buffer.from(annotationsSvg(shapes, info.width, info.height));
    const { data, info: oi } = await sharp(raw, { raw: { width: info.width, height: info.height, channels: info.channels } })
      .composite([{ input: svg, top: 0, left: 0 }])
      .jpeg(JPEG_OUT(options.quality ?? 82))
      .toBuffer({ resolveWithObject: true });
    return { data, width: oi.width, height: oi.height, contentType: 'image/jpeg' };
  } catch (err) {
    throw toMediaError(err, 'rendering annotations');
  }
}
