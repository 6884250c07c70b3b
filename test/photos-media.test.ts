import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import Ajv from 'ajv';
import sharp from 'sharp';
import { AnnotationShapes, annotationsSvg, MAX_PATH_POINTS, MAX_SHAPES } from '../src/features/photos/photos.annotations.ts';
import {
  configureHeicDecoder, type DecodedHeic, decodeHeic, HeicDecodeError, heicDecoderStats, stopHeicDecoder,
} from '../src/features/photos/photos.heic.ts';
import {
  HEADER_PREFIX_BYTES, MediaError, makeVariants, readExif, readImageHeader, renderAnnotated, sniffImageType,
} from '../src/features/photos/photos.media.ts';
import { heicGrid } from './fixtures/heic-grid.ts';
import * as img from './fixtures/images.ts';

let dir: string;
before(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-media-'));
});
after(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function writeTmp(name: string, data: Buffer): Promise<string> {
  const p = path.join(dir, name);
  await fs.writeFile(p, data);
  return p;
}

async function rejectsWith(p: Promise<unknown>, reason: string): Promise<MediaError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof MediaError, `expected a MediaError, got ${String(err)}`);
    assert.equal(err.reason, reason, err.message);
    assert.ok(err.message.length > 10);
    return err;
  }
  assert.fail(`expected a MediaError(${reason})`);
}

describe('sniffImageType', () => {
  it('recognises JPEG, PNG, WebP and HEIC from their first bytes', async () => {
    assert.equal(sniffImageType(await img.smallJpeg()), 'image/jpeg');
    assert.equal(sniffImageType(await img.png()), 'image/png');
    assert.equal(sniffImageType(await img.webp()), 'image/webp');
    assert.equal(sniffImageType(img.pngBomb(1000).subarray(0, 16)), 'image/png');
    for (const brand of ['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1']) {
      const b = Buffer.alloc(24);
      b.writeUInt32BE(24, 0);
      b.write('ftyp', 4, 'latin1');
      b.write(brand, 8, 'latin1');
      assert.equal(sniffImageType(b), 'image/heic', brand);
    }
    // A generic major brand with a HEIF compatible brand.
    const b = Buffer.alloc(28);
    b.writeUInt32BE(28, 0);
    b.write('ftypxxxx\0\0\0\0isommif1heic', 4, 'latin1');
    assert.equal(sniffImageType(b), 'image/heic');
  });

  it('refuses everything else', async () => {
    assert.equal(sniffImageType(img.textFile()), null);
    assert.equal(sniffImageType(Buffer.alloc(0)), null);
    assert.equal(sniffImageType(Buffer.from([0xff, 0xd8])), null);
    assert.equal(sniffImageType(Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')), null);
    assert.equal(sniffImageType(Buffer.from('%PDF-1.7\n', 'latin1')), null);
    // An MP4 (ftyp isom/mp42) is not a photo.
    const mp4 = Buffer.alloc(24);
    mp4.writeUInt32BE(24, 0);
    mp4.write('ftypisom\0\0\x02\0isommp42', 4, 'latin1');
    assert.equal(sniffImageType(mp4), null);
    const riffWave = Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1');
    assert.equal(sniffImageType(riffWave), null);
    assert.equal(sniffImageType(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).gif().toBuffer()), null);
  });
});

describe('readImageHeader', () => {
  it('reads sizes of each format from a path or a buffer', async () => {
    const jpeg = await img.jpegWithExif({}, 640, 480);
    assert.deepEqual(await readImageHeader(jpeg), { width: 640, height: 480, pixels: 307_200, format: 'jpeg', bytesRead: jpeg.length });
    const p = await writeTmp('h.png', await img.png(300, 200));
    const h = await readImageHeader(p);
    assert.equal(h.width, 300);
    assert.equal(h.height, 200);
    assert.equal(h.format, 'png');
    assert.equal((await readImageHeader(await img.webp(30, 20))).pixels, 600);
  });

  it('reports the pixels of a decompression bomb without decoding it', async () => {
    const bomb = img.pngBomb(20_000);
    assert.ok(bomb.length < 200_000, `bomb is ${bomb.length} bytes`);
    const p = await writeTmp('bomb.png', bomb);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const h = await readImageHeader(p);
    const rssGrowth = process.memoryUsage().rss - rssBefore;
    assert.equal(h.width, 20_000);
    assert.equal(h.height, 20_000);
    assert.equal(h.pixels, 400_000_000);
    assert.ok(h.pixels > 100_000_000);
    assert.ok(h.bytesRead <= bomb.length);
    // Decoding would need 400 MB (1 byte per grey pixel) at the very least.
    assert.ok(rssGrowth < 64 * 1024 * 1024, `RSS grew ${rssGrowth} bytes`);
    // And a pipeline on it refuses before decoding.
    await rejectsWith(makeVariants(p, { large: 2048 }), 'too_many_pixels');
  });

  it('reads only a prefix of a large file', async () => {
    const big = await img.noisyJpeg(2000, 1500);
    assert.ok(big.length > HEADER_PREFIX_BYTES);
    const p = await writeTmp('big.jpg', big);
    const h = await readImageHeader(p);
    assert.equal(h.pixels, 3_000_000);
    assert.equal(h.bytesRead, HEADER_PREFIX_BYTES);
  });

  it('refuses a text file and a non-photo format with a typed error', async () => {
    await rejectsWith(readImageHeader(await writeTmp('t.jpg', img.textFile())), 'unsupported_format');
    await rejectsWith(readImageHeader(img.textFile()), 'unsupported_format');
    const gif = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } }).gif().toBuffer();
    await rejectsWith(readImageHeader(gif), 'unsupported_format');
  });
});

describe('readExif', () => {
  it('round-trips capture time with offset, GPS, altitude and orientation', async () => {
    const jpeg = await img.jpegWithExif({
      dateTimeOriginal: '2024:05:06 07:08:09', offsetTimeOriginal: '+02:00',
      lat: 48.8566, lon: -2.3522, altitude: 35.5, orientation: 6,
    });
    const e = await readExif(jpeg);
    assert.deepEqual(e.captureTime, {
      wallClock: { year: 2024, month: 5, day: 6, hour: 7, minute: 8, second: 9, millisecond: 0 }, offsetMinutes: 120,
    });
    assert.ok(e.coordinates);
    assert.ok(Math.abs(e.coordinates.lat - 48.8566) < 1e-5, String(e.coordinates.lat));
    assert.ok(Math.abs(e.coordinates.lon - -2.3522) < 1e-5, String(e.coordinates.lon));
    assert.equal(e.altitude, 35.5);
    assert.equal(e.orientation, 6);
    // From a path too.
    assert.deepEqual(await readExif(await writeTmp('exif.jpg', jpeg)), e);
  });

  it('keeps a time without an offset as a bare wall clock; southern/western hemispheres and below sea level', async () => {
    const e = await readExif(await img.jpegWithExif({ dateTimeOriginal: '2023:12:31 23:59:58', lat: -33.8688, lon: 151.2093, altitude: -12 }));
    assert.deepEqual(e.captureTime, {
      wallClock: { year: 2023, month: 12, day: 31, hour: 23, minute: 59, second: 58, millisecond: 0 }, offsetMinutes: null,
    });
    assert.ok(Math.abs(e.coordinates!.lat - -33.8688) < 1e-5);
    assert.ok(Math.abs(e.coordinates!.lon - 151.2093) < 1e-5);
    assert.equal(e.altitude, -12);
    assert.equal(e.orientation, 1); // libvips writes Orientation 1 whenever it writes EXIF
  });

  it('gives nulls for images without EXIF, garbage and corrupt EXIF blocks, never throws', async () => {
    const none = { captureTime: null, coordinates: null, altitude: null, orientation: null };
    assert.deepEqual(await readExif(await img.png()), none);
    assert.deepEqual(await readExif(await img.smallJpeg()), none);
    assert.deepEqual(await readExif(img.textFile()), none);
    assert.deepEqual(await readExif(Buffer.alloc(0)), none);
    // A JPEG whose APP1 Exif block is garbage after its header.
    const good = await img.jpegWithExif({ dateTimeOriginal: '2024:05:06 07:08:09', lat: 1, lon: 2 });
    const app1 = good.indexOf(Buffer.from('Exif\0\0', 'latin1'));
    assert.ok(app1 > 0);
    const corrupt = Buffer.from(good);
    for (let i = app1 + 6; i < app1 + 200 && i < corrupt.length; i++) corrupt[i] = (i * 37) & 0xff;
    const e = await readExif(corrupt);
    assert.equal(typeof e, 'object');
    // A bad date string gives a null date.
    const badDate = await readExif(await img.jpegWithExif({ dateTimeOriginal: '0000:00:00 00:00:00' }));
    assert.equal(badDate.captureTime, null);
  });
});

describe('makeVariants', () => {
  it('makes JPEG variants no larger than asked and reports the original size', async () => {
    const p = await writeTmp('v.jpg', await img.noisyJpeg(3000, 2000));
    const r = await makeVariants(p, { large: 2048, thumbnail: 320 });
    assert.equal(r.width, 3000);
    assert.equal(r.height, 2000);
    assert.deepEqual([r.variants.large.width, r.variants.large.height], [2048, 1365]);
    assert.deepEqual([r.variants.thumbnail.width, r.variants.thumbnail.height], [320, 213]);
    for (const v of Object.values(r.variants)) {
      assert.equal(v.contentType, 'image/jpeg');
      assert.equal(sniffImageType(v.data), 'image/jpeg');
      const m = await sharp(v.data).metadata();
      assert.equal(m.width, v.width);
      assert.equal(m.height, v.height);
      assert.equal(m.isProgressive, false); // baseline: decodes about twice as fast (the PDF reports decode every large variant)
      assert.equal(m.exif, undefined, 'metadata stripped');
    }
  });

  it('auto-rotates by EXIF orientation: orientation 6 comes out portrait, red on top', async () => {
    const r = await makeVariants(await img.rotatedJpeg(800, 400), { large: 2048, thumbnail: 320 });
    assert.equal(r.width, 400);
    assert.equal(r.height, 800);
    assert.deepEqual([r.variants.large.width, r.variants.large.height], [400, 800]);
    assert.deepEqual([r.variants.thumbnail.width, r.variants.thumbnail.height], [160, 320]);
    const { data, info } = await sharp(r.variants.large.data).raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    const top = px(200, 100), bottom = px(200, 700);
    assert.ok(top[0]! > 200 && top[2]! < 60, `top ${top}`);
    assert.ok(bottom[2]! > 200 && bottom[0]! < 60, `bottom ${bottom}`);
    const m = await sharp(r.variants.large.data).metadata();
    assert.ok(m.orientation === undefined || m.orientation === 1);
  });

  it('never upscales a small image; accepts a stream, a PNG and a WebP', async () => {
    const r = await makeVariants(Readable.from([await img.smallJpeg(100, 60)]), { large: 2048, thumbnail: 320 });
    assert.deepEqual([r.width, r.height], [100, 60]);
    assert.deepEqual([r.variants.large.width, r.variants.large.height], [100, 60]);
    assert.deepEqual([r.variants.thumbnail.width, r.variants.thumbnail.height], [100, 60]);
    const p = await makeVariants(await img.png(1000, 500), { thumbnail: 320 });
    assert.deepEqual([p.variants.thumbnail.width, p.variants.thumbnail.height], [320, 160]);
    const clear = await makeVariants(await img.png(50, 50, '#ff000000'), { thumbnail: 320 });
    const { data } = await sharp(clear.variants.thumbnail.data).raw().toBuffer({ resolveWithObject: true });
    assert.ok(data[0]! > 240 && data[1]! > 240 && data[2]! > 240, `transparent became ${[...data.subarray(0, 3)]}, not white`);
    const w = await makeVariants(await img.webp(500, 1000), { thumbnail: 320 });
    assert.deepEqual([w.variants.thumbnail.width, w.variants.thumbnail.height], [160, 320]);
  });

  it('fails with typed errors for a truncated JPEG, a text file, too many pixels and a broken stream', async () => {
    await rejectsWith(makeVariants(await img.truncatedJpeg(), { large: 2048, thumbnail: 320 }), 'corrupt_image');
    await rejectsWith(makeVariants(await writeTmp('cut.jpg', await img.truncatedJpeg()), { large: 2048 }), 'corrupt_image');
    await rejectsWith(makeVariants(await writeTmp('text.jpg', img.textFile()), { large: 2048 }), 'unsupported_format');
    await rejectsWith(makeVariants(Readable.from([img.textFile()]), { large: 2048 }), 'unsupported_format');
    await rejectsWith(makeVariants(await img.png(1000, 1000), { large: 2048 }, { maxPixels: 500_000 }), 'too_many_pixels');
    const broken = new Readable({ read() { this.destroy(new Error('connection reset')); } });
    await assert.rejects(makeVariants(broken, { large: 2048 }), MediaError);
  });
});

describe('renderAnnotated', () => {
  it('renders shapes over the rotated, shrunk photo as a JPEG: a red rectangle is red where drawn', async () => {
    const white = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: '#ffffff' } }).jpeg().toBuffer();
    const out = await renderAnnotated(white, [
      { type: 'rectangle', x: 0.25, y: 0.25, w: 0.5, h: 0.5, color: '#ff0000', width: 0.01 },
      { type: 'arrow', x1: 0.1, y1: 0.9, x2: 0.2, y2: 0.8, color: '#0000ff', width: 0.005 },
      { type: 'line', x1: 0, y1: 0, x2: 0.1, y2: 0.1, color: '#00ff00', width: 0.005 },
      { type: 'ellipse', x: 0.8, y: 0.8, w: 0.1, h: 0.1, color: '#123456', width: 0.003 },
      { type: 'path', points: [[0.9, 0.1], [0.95, 0.15], [0.9, 0.2]], color: '#654321', width: 0.004 },
      { type: 'text', x: 0.3, y: 0.1, text: '<script>&"\'</script> Crack here', color: '#000000', size: 0.03 },
    ], { maxSide: 2048 });
    assert.equal(out.contentType, 'image/jpeg');
    assert.deepEqual([out.width, out.height], [2048, 1536]);
    const m = await sharp(out.data).metadata();
    assert.equal(m.format, 'jpeg');
    assert.deepEqual([m.width, m.height], [2048, 1536]);
    const { data, info } = await sharp(out.data).raw().toBuffer({ resolveWithObject: true });
    const px = (x: number, y: number) => [...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3)];
    // Left edge of the rectangle at x = 512, halfway down; its stroke is ~20 px wide.
    const edge = px(512, 768);
    assert.ok(edge[0]! > 200 && edge[1]! < 60 && edge[2]! < 60, `edge ${edge}`);
    const topEdge = px(1024, 384);
    assert.ok(topEdge[0]! > 200 && topEdge[1]! < 60 && topEdge[2]! < 60, `top edge ${topEdge}`);
    const inside = px(1024, 768);
    assert.ok(inside.every((c) => c > 230), `inside ${inside}`);
  });

  it('follows the EXIF orientation and refuses a broken input with a typed error', async () => {
    const out = await renderAnnotated(await img.rotatedJpeg(800, 400), [], { maxSide: 2048 });
    assert.deepEqual([out.width, out.height], [400, 800]);
    await rejectsWith(renderAnnotated(img.textFile(), []), 'unsupported_format');
  });

  it('escapes text for SVG', () => {
    const svg = annotationsSvg([{ type: 'text', x: 0, y: 0.5, text: '</text><image href="file:///etc/passwd"/>&', color: '#ffffff', size: 0.1 }], 100, 100);
    assert.ok(!svg.includes('<image'));
    assert.ok(svg.includes('&lt;/text&gt;&lt;image href=&quot;file:///etc/passwd&quot;/&gt;&amp;'));
  });
});

describe('AnnotationShapes schema', () => {
  const validate = new Ajv.default({ allErrors: true, strict: false }).compile(AnnotationShapes);
  const rect = { type: 'rectangle', x: 0.1, y: 0.1, w: 0.2, h: 0.2, color: '#ff0000', width: 0.01 };

  it('accepts every shape kind and an empty list', () => {
    assert.ok(validate({ shapes: [] }));
    assert.ok(validate({
      shapes: [
        rect,
        { type: 'ellipse', x: 0, y: 0, w: 1, h: 1, color: '#ABCDEF', width: 0.2 },
        { type: 'arrow', x1: 0, y1: 0, x2: 1, y2: 1, color: '#000000', width: 0.001 },
        { type: 'line', x1: 0, y1: 0, x2: 1, y2: 1, color: '#000000', width: 0.001 },
        { type: 'path', points: [[0, 0], [1, 1]], color: '#000000', width: 0.01 },
        { type: 'text', x: 0.5, y: 0.5, text: 'Crack — fix by Friday', color: '#ffffff', size: 0.05 },
      ],
    }), JSON.stringify(validate.errors));
  });

  it('refuses bad shapes', () => {
    const bad: unknown[] = [
      {},
      { shapes: [rect], extra: 1 },
      { shapes: [{ ...rect, extra: true }] },
      { shapes: [{ ...rect, type: 'star' }] },
      { shapes: [{ ...rect, x: 1.5 }] },
      { shapes: [{ ...rect, y: -0.1 }] },
      { shapes: [{ ...rect, color: 'red' }] },
      { shapes: [{ ...rect, color: '#ff000' }] },
      { shapes: [{ ...rect, width: 0 }] },
      { shapes: [{ ...rect, width: 5 }] },
      { shapes: [{ ...rect, x: '0.1' }] },
      { shapes: [{ type: 'path', points: [[0, 0]], color: '#000000', width: 0.01 }] },
      { shapes: [{ type: 'path', points: [[0, 0, 0], [1, 1]], color: '#000000', width: 0.01 }] },
      { shapes: [{ type: 'path', points: Array.from({ length: MAX_PATH_POINTS + 1 }, () => [0.5, 0.5]), color: '#000000', width: 0.01 }] },
      { shapes: [{ type: 'text', x: 0, y: 0, text: '', color: '#000000', size: 0.1 }] },
      { shapes: [{ type: 'text', x: 0, y: 0, text: 'x'.repeat(501), color: '#000000', size: 0.1 }] },
      { shapes: [{ type: 'text', x: 0, y: 0, text: 'bell\u0007', color: '#000000', size: 0.1 }] },
      { shapes: [{ type: 'text', x: 0, y: 0, text: 'no size', color: '#000000' }] },
      { shapes: Array.from({ length: MAX_SHAPES + 1 }, () => rect) },
    ];
    for (const b of bad) assert.equal(validate(b), false, JSON.stringify(b).slice(0, 200));
    assert.ok(validate({ shapes: Array.from({ length: MAX_SHAPES }, () => rect) }));
  });
});

describe('HEIC (HEVC-coded HEIF)', () => {
  // A real HEVC bitstream (libheif + kvazaar) in an iPhone-like container: stored 640 × 480,
  // an irot box turning it 90° clockwise, and an Exif item whose Orientation (6) says the same —
  // see test/fixtures/README.md. Stored quadrants: red, green / blue, white.
  const fixture = path.join(import.meta.dirname, 'fixtures', 'hevc-rotated-exif.heic');
  const heic = () => fs.readFile(fixture);
  type Rgb = [number, number, number];
  async function pixels(jpeg: Buffer) {
    const { data, info } = await sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
    return (fx: number, fy: number): Rgb => {
      const i = (Math.floor(fy * info.height) * info.width + Math.floor(fx * info.width)) * info.channels;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    };
  }
  const near = (got: Rgb, want: Rgb, what: string) =>
    assert.ok(got.every((c, i) => Math.abs(c - want[i]!) < 40), `${what}: got ${got}, want about ${want}`);
  /** Rotated once, 90° clockwise: blue, red / white, green. Twice would be white, blue / green, red. */
  async function assertUprightOnce(jpeg: Buffer) {
    const px = await pixels(jpeg);
    near(px(0.25, 0.25), [40, 40, 230], 'top left');
    near(px(0.75, 0.25), [230, 40, 40], 'top right');
    near(px(0.25, 0.75), [245, 245, 245], 'bottom left');
    near(px(0.75, 0.75), [40, 210, 40], 'bottom right');
  }
  /** The fixture with its ispe (stored size) rewritten: a header declaring far more pixels than its data. */
  async function withDeclaredSize(width: number, height: number): Promise<Buffer> {
    const b = Buffer.from(await heic());
    const at = b.indexOf(Buffer.from('ispe', 'latin1'));
    assert.ok(at > 0 && b.indexOf(Buffer.from('ispe', 'latin1'), at + 1) < 0, 'one ispe box');
    b.writeUInt32BE(width, at + 8);
    b.writeUInt32BE(height, at + 12);
    return b;
  }

  it('is what sharp cannot decode by itself: a HEIF container with HEVC compression', async () => {
    const m = await sharp(await heic()).metadata();
    assert.equal(m.format, 'heif');
    assert.equal(m.compression, 'hevc');
    await assert.rejects(sharp(await heic()).raw().toBuffer());
  });

  it('is sniffed as image/heic and its header read without decoding', async () => {
    const b = await heic();
    assert.equal(sniffImageType(b.subarray(0, 64)), 'image/heic');
    for (const input of [fixture, b]) {
      const h = await readImageHeader(input);
      assert.deepEqual([h.format, h.width, h.height, h.pixels], ['heif', 480, 640, 480 * 640]);
    }
  });

  it('makes large and thumbnail JPEGs, upright, rotated once (irot) not twice (irot + EXIF)', async () => {
    const r = await makeVariants(fixture, { large: 2048, thumbnail: 320 });
    assert.deepEqual([r.width, r.height], [480, 640]);
    assert.deepEqual([r.variants.large.width, r.variants.large.height], [480, 640]);
    assert.deepEqual([r.variants.thumbnail.width, r.variants.thumbnail.height], [240, 320]);
    for (const v of Object.values(r.variants)) {
      assert.equal(v.contentType, 'image/jpeg');
      assert.equal(sniffImageType(v.data), 'image/jpeg');
      const m = await sharp(v.data).metadata();
      assert.deepEqual([m.format, m.width, m.height], ['jpeg', v.width, v.height]);
      assert.ok(m.orientation === undefined || m.orientation === 1);
      assert.equal(m.exif, undefined, 'metadata stripped');
      await assertUprightOnce(v.data);
    }
    // From a buffer and from a stream too.
    const fromStream = await makeVariants(Readable.from([await heic()]), { thumbnail: 100 });
    assert.deepEqual([fromStream.variants.thumbnail.width, fromStream.variants.thumbnail.height], [75, 100]);
    await assertUprightOnce(fromStream.variants.thumbnail.data);
  });

  it('renders annotations over it, upright', async () => {
    const out = await renderAnnotated(await heic(), [
      { type: 'rectangle', x: 0.4, y: 0.4, w: 0.2, h: 0.2, color: '#000000', width: 0.02 },
    ], { maxSide: 2048 });
    assert.deepEqual([out.width, out.height], [480, 640]);
    await assertUprightOnce(out.data);
    const px = await pixels(out.data);
    near(px(0.4, 0.5), [0, 0, 0], 'rectangle stroke');
    const small = await renderAnnotated(fixture, [], { maxSide: 320 });
    assert.deepEqual([small.width, small.height], [240, 320]);
  });

  it('reads its EXIF: capture time with offset, GPS position, altitude, orientation', async () => {
    for (const input of [fixture, await heic()]) {
      const exif = await readExif(input);
      const w = exif.captureTime!.wallClock;
      assert.equal(Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - exif.captureTime!.offsetMinutes! * 60_000, Date.parse('2024-05-17T12:32:10.000Z'));
      assert.deepEqual(exif.coordinates, { lat: 48.8584, lon: 2.2945 });
      assert.equal(exif.altitude, 35.5);
      assert.equal(exif.orientation, 6);
    }
  });

  it('refuses more pixels than allowed from the header, before decoding', async () => {
    await rejectsWith(makeVariants(fixture, { large: 2048 }, { maxPixels: 480 * 640 - 1 }), 'too_many_pixels');
    await rejectsWith(renderAnnotated(fixture, [], { maxPixels: 100_000 }), 'too_many_pixels');
    // A header declaring 50 000 × 40 000 over 3 KB of data: decoding it would fail (corrupt_image)
    // or allocate 8 GB; the check on the header refuses it first.
    const bomb = await withDeclaredSize(50_000, 40_000);
    const h = await readImageHeader(bomb);
    assert.equal(h.pixels, 2_000_000_000);
    await rejectsWith(makeVariants(bomb, { large: 2048 }), 'too_many_pixels');
    await rejectsWith(renderAnnotated(bomb, []), 'too_many_pixels');
  });

  it('fails with corrupt_image when the file is cut short, the HEVC data damaged or not what the header says', async () => {
    const b = await heic();
    const cut = b.subarray(0, b.length - 900);
    await rejectsWith(makeVariants(cut, { large: 2048 }), 'corrupt_image');
    await rejectsWith(renderAnnotated(await writeTmp('cut.heic', cut), []), 'corrupt_image');
    // The container whole, the start of the coded image zeroed: libheif's decoder refuses it.
    const damaged = Buffer.from(b);
    const mdat = damaged.indexOf(Buffer.from('mdat', 'latin1')) + 4;
    damaged.fill(0, mdat, mdat + 200);
    assert.equal((await sharp(damaged).metadata()).compression, 'hevc');
    const err = await rejectsWith(makeVariants(damaged, { large: 2048 }), 'corrupt_image');
    assert.match(err.message, /HEIC/);
    await rejectsWith(renderAnnotated(damaged, []), 'corrupt_image');
    // Declared 64 × 64 but coded 640 × 480: within the pixel limit, and libheif refuses the mismatch.
    await rejectsWith(makeVariants(await withDeclaredSize(64, 64), { large: 2048 }), 'corrupt_image');
  });

  it('decodes in a worker thread started on first use, never on the main thread, and lets the process exit', () => {
    // No explicit stop: an idle decoder thread (and its 30 s idle timer) must not keep a CLI alive.
    const code = `
      const { createRequire } = await import('node:module');
      const require = createRequire(process.cwd() + '/');
      const loaded = () => Object.keys(require.cache).some((k) => k.includes('libheif'));
      const media = await import('./src/features/photos/photos.media.ts');
      const heic = await import('./src/features/photos/photos.heic.ts');
      const before = heic.heicDecoderStats().started;
      const r = await media.makeVariants(${JSON.stringify(fixture)}, { t: 32 });
      console.log(JSON.stringify({ before, after: heic.heicDecoderStats().started, size: [r.width, r.height], libheifOnMainThread: loaded() }));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
      cwd: path.join(import.meta.dirname, '..'), encoding: 'utf8', timeout: 20_000,
    });
    assert.equal(r.signal, null, 'the process exited by itself');
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').pop()!), { before: 0, after: 1, size: [480, 640], libheifOnMainThread: false });
  });

  it('decodes an 11 MP HEIC while the event loop keeps running', async () => {
    const big = await heicGrid(6, 6); // 3840 × 2880, 36 HEVC tiles
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    let px;
    try {
      px = await decodeHeic(big);
    } finally {
      clearInterval(timer);
    }
    // On the main thread the decode (about a second) would run in one turn of the event loop and
    // the timer would not fire at all during it.
    assert.ok(ticks >= 5, `the timer fired ${ticks} times during the decode`);
    assert.deepEqual([px.width, px.height, px.channels, px.data.length], [3840, 2880, 4, 3840 * 2880 * 4]);
    const at = (x: number, y: number): number[] => [...px.data.subarray((y * px.width + x) * 4, (y * px.width + x) * 4 + 4)];
    // Each 640 × 480 tile: red, green / blue, white; opaque.
    near(at(100, 100).slice(0, 3) as Rgb, [230, 40, 40], 'first tile, top left');
    near(at(640 + 100, 480 + 400).slice(0, 3) as Rgb, [40, 40, 230], 'tile (1,1), bottom left');
    near(at(3839, 2879).slice(0, 3) as Rgb, [245, 245, 245], 'last tile, bottom right');
    assert.equal(at(3839, 2879)[3], 255);
    const r = await makeVariants(big, { large: 2048, thumbnail: 320 });
    assert.deepEqual([r.width, r.height, r.variants.large.width, r.variants.large.height], [3840, 2880, 2048, 1536]);
  });

  it('decodes concurrently on a small pool; one damaged file fails alone', async () => {
    const b = await heic();
    const damaged = Buffer.from(b);
    const mdat = damaged.indexOf(Buffer.from('mdat', 'latin1')) + 4;
    damaged.fill(0, mdat, mdat + 200);
    const decodes = [b, b, damaged, b, b, b].map((f) => decodeHeic(f).then((px): DecodedHeic | Error => px, (err: unknown) => err as Error));
    const s = heicDecoderStats();
    const pool = Math.min(2, os.availableParallelism());
    assert.deepEqual([s.busy, s.queued], [pool, 6 - pool], 'at most two decoding at once, the rest waiting');
    const results = await Promise.all(decodes);
    results.forEach((r, i) => {
      if (i === 2) {
        assert.ok(r instanceof HeicDecodeError, String(r));
      } else {
        assert.ok(!(r instanceof Error), String(r));
        assert.deepEqual([r.width, r.height, r.data.length], [480, 640, 480 * 640 * 4]);
        assert.deepEqual(r.data, (results[0] as DecodedHeic).data, `decode ${i} gives the same pixels`);
      }
    });
    const after = heicDecoderStats();
    assert.ok(after.threads <= pool && after.busy === 0 && after.queued === 0, JSON.stringify(after));
    // Through the media layer too, all at once.
    const variants = await Promise.all([1, 2, 3, 4].map(() => makeVariants(fixture, { thumbnail: 320 })));
    for (const v of variants) await assertUprightOnce(v.variants.thumbnail.data);
  });

  it('ends an idle decoder thread and starts a new one for the next HEIC', async () => {
    configureHeicDecoder({ idleMs: 20 });
    try {
      await decodeHeic(await heic());
      assert.ok(heicDecoderStats().threads >= 1);
      while (heicDecoderStats().threads > 0) await new Promise((r) => setTimeout(r, 10));
      const started = heicDecoderStats().started;
      const r = await makeVariants(fixture, { thumbnail: 320 });
      await assertUprightOnce(r.variants.thumbnail.data);
      assert.equal(heicDecoderStats().started, started + 1, 'a new thread');
    } finally {
      configureHeicDecoder({ idleMs: 30_000 });
    }
  });

  it('fails only the decode whose thread stops, and the next HEIC gets a new thread', async () => {
    const big = await heicGrid(6, 6);
    const running = makeVariants(big, { large: 2048 });
    while (heicDecoderStats().busy === 0) await new Promise((r) => setTimeout(r, 5));
    const started = heicDecoderStats().started;
    const failed = rejectsWith(running, 'processing_failed');
    await stopHeicDecoder();
    const err = await failed;
    assert.match(err.message, /HEIC/);
    assert.deepEqual(heicDecoderStats(), { threads: 0, busy: 0, queued: 0, started });
    const r = await makeVariants(fixture, { thumbnail: 320 });
    await assertUprightOnce(r.variants.thumbnail.data);
    assert.equal(heicDecoderStats().started, started + 1);
  });
});
