/**
 * Content sniffing for photo uploads: the type comes from the first bytes, never from the file
 * name or the client's Content-Type. A dozen lines of magic-byte checks for exactly the four
 * formats we accept, rather than the `file-type` package: it recognises ~150 formats we would
 * then have to filter, and pulls in several dependencies for what is a fixed, tiny table here.
 */
export type ImageMime = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic';

/** Bytes a caller should hand to sniffImageType (more are ignored). */
export const SNIFF_BYTES = 64;

// ISO-BMFF major/compatible brands of HEIC/HEIF still images (and image sequences).
const HEIF_BRANDS = new Set(['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1']);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function sniffImageType(firstBytes: Buffer | Uint8Array): ImageMime | null {
  const b = Buffer.isBuffer(firstBytes) ? firstBytes : Buffer.from(firstBytes.buffer, firstBytes.byteOffset, firstBytes.byteLength);
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 8 && b.subarray(0, 8).equals(PNG_SIGNATURE)) return 'image/png';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  if (b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp') {
    const boxSize = b.readUInt32BE(0);
    if (HEIF_BRANDS.has(b.toString('latin1', 8, 12))) return 'image/heic';
    // Major brand unknown (e.g. a generic one): look through the compatible brands we have.
    const end = Math.min(b.length, boxSize >= 16 ? boxSize : 0);
    for (let i = 16; i + 4 <= end; i += 4) {
      if (HEIF_BRANDS.has(b.toString('latin1', i, i + 4))) return 'image/heic';
    }
  }
  return null;
}
