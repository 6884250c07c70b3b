/**
 * Content sniffing for video uploads: the type comes from the first bytes, never from the file
 * name or the client's Content-Type. MP4 and QuickTime are ISO base media files whose `ftyp`
 * box names brands; the same container also carries HEIF/AVIF still images (and audio-only
 * M4A), so a brand table decides, not the box alone. WebM is an EBML document whose DocType is
 * `webm`; other Matroska files (`matroska`) are refused: browsers do not play them.
 */
export type VideoMime = 'video/mp4' | 'video/quicktime' | 'video/webm';

/** Bytes a caller should hand to sniffVideoType (more are ignored). */
export const VIDEO_SNIFF_BYTES = 4096;

// Brands of MP4 video (ISO/IEC 14496-12/14/15, Apple M4V, DASH, Sony XAVC, Adobe F4V).
const MP4_BRANDS = new Set([
  'isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'iso7', 'iso8', 'iso9', 'mp41', 'mp42', 'avc1', 'hvc1', 'dash',
  'M4V ', 'M4VH', 'M4VP', 'mmp4', 'XAVC', 'MSNV', 'f4v ', 'NDAS', 'cmfc', 'av01',
]);
// Still images and image sequences (HEIF, HEIC, AVIF, MIAF), and audio-only files: never a video.
const NOT_VIDEO_BRANDS = new Set([
  'heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'mif2', 'msf1', 'miaf', 'avif', 'avis', 'avio',
  'jpeg', 'jpgs', 'M4A ', 'M4B ', 'M4P ', 'crx ',
]);
// Top-level atoms an old QuickTime file (before `ftyp` existed) may start with.
const BARE_QUICKTIME_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

const EBML_MAGIC = Buffer.from([0x1a, 0x45, 0xdf, 0xa3]);

export function sniffVideoType(firstBytes: Buffer): VideoMime | null {
  const b = firstBytes;
  if (b.length >= 12 && b.toString('latin1', 4, 8) === 'ftyp') return fromFtyp(b);
  if (b.length >= 8 && BARE_QUICKTIME_ATOMS.has(b.toString('latin1', 4, 8)) && b.readUInt32BE(0) >= 8) return 'video/quicktime';
  if (b.length >= 4 && b.subarray(0, 4).equals(EBML_MAGIC)) return ebmlDocType(b) === 'webm' ? 'video/webm' : null;
  return null;
}

function fromFtyp(b: Buffer): VideoMime | null {
  const major = b.toString('latin1', 8, 12);
  if (major === 'qt  ') return 'video/quicktime';
  if (NOT_VIDEO_BRANDS.has(major)) return null;
  if (MP4_BRANDS.has(major)) return 'video/mp4';
  // An unknown major brand: the compatible brands decide, and any image brand among them wins.
  const boxSize = b.readUInt32BE(0);
  const end = Math.min(b.length, boxSize >= 16 ? boxSize : 0);
  const compatible: string[] = [];
  for (let i = 16; i + 4 <= end; i += 4) compatible.push(b.toString('latin1', i, i + 4));
  if (compatible.some((brand) => NOT_VIDEO_BRANDS.has(brand))) return null;
  if (compatible.includes('qt  ')) return 'video/quicktime';
  if (compatible.some((brand) => MP4_BRANDS.has(brand))) return 'video/mp4';
  return null;
}

/**
 * The DocType (element 0x4282) of the EBML header that starts the file, or null. The header is
 * a handful of small elements, so it lies well within the bytes sniffed.
 */
function ebmlDocType(b: Buffer): string | null {
  let pos = 4;
  const header = readVint(b, pos);
  if (!header) return null;
  pos += header.length;
  const end = Math.min(b.length, pos + header.value);
  while (pos < end) {
    const id = readId(b, pos);
    if (!id) return null;
    pos += id.length;
    const size = readVint(b, pos);
    if (!size) return null;
    pos += size.length;
    if (id.value === 0x4282) return pos + size.value <= b.length ? b.toString('latin1', pos, pos + size.value).replace(/\0+$/, '') : null;
    pos += size.value;
  }
  return null;
}

/** An EBML element id: its length marker bits are kept, as ids are written. */
function readId(b: Buffer, pos: number): { value: number; length: number } | null {
  if (pos >= b.length) return null;
  const length = Math.clz32(b[pos]!) - 23;
  if (length < 1 || length > 4 || pos + length > b.length) return null;
  return { value: b.readUIntBE(pos, length), length };
}

/** An EBML variable-length size, without its marker bit. */
function readVint(b: Buffer, pos: number): { value: number; length: number } | null {
  if (pos >= b.length) return null;
  const length = Math.clz32(b[pos]!) - 23;
  if (length < 1 || length > 8 || pos + length > b.length) return null;
  let value = b[pos]! & (0xff >> length);
  for (let i = 1; i < length; i++) value = value * 256 + b[pos + i]!;
  return { value, length };
}
