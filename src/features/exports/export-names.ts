import { DateTime } from 'luxon';

/**
 * The names of the files in an export: `2026-03-02 0800 Deck poured, north side.jpg`, the capture
 * time on the wall clock where the photo was taken, then its caption. Names must unpack on
 * Windows, macOS and Linux alike, so what one of them refuses or mangles is replaced here, and
 * names that one of them would take for the same file (case, Unicode normal form) are told apart.
 */

/** The manifests' names: no photo may take them. */
export const MANIFEST_CSV = 'photos.csv';
export const MANIFEST_JSON = 'photos.json';

/** Longest caption part, in characters; the whole name also stays under MAX_NAME_BYTES. */
const MAX_CAPTION_CHARS = 120;
/** Most file systems allow 255 bytes (ext4) or 255 UTF-16 units (NTFS, APFS) per name: this fits both. */
const MAX_NAME_BYTES = 240;

const EXTENSIONS: Record<string, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp', 'image/heic': 'heic' };

export function extensionOf(contentType: string): string {
  return EXTENSIONS[contentType] ?? 'bin';
}

/**
 * Text made safe as (part of) a file name on every OS: NFC (what Windows and Linux expect; macOS
 * accepts it); control characters, line separators and bidirectional overrides (which can make
 * `x‮gpj.exe` read as `xexe.jpg`) become spaces; `< > : " / \ | ? *` (reserved on Windows, `/`
 * everywhere) become `_`; runs of white space become one space; no dot or space at either end.
 */
export function safeNamePart(text: string): string {
  return text.normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, ' ')
    .replace(/[<>:"/\\|?*]/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.]+|[\s.]+$/g, '');
}

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });

/** At most `chars` characters and `bytes` UTF-8 bytes, cut between graphemes (never inside an emoji or a surrogate pair). */
export function truncateText(text: string, chars: number, bytes: number): string {
  let out = '';
  let count = 0;
  let size = 0;
  for (const { segment } of segmenter.segment(text)) {
    const length = Buffer.byteLength(segment);
    if (count + 1 > chars || size + length > bytes) break;
    out += segment;
    count++;
    size += length;
  }
  return out;
}

/** `2026-03-02 0800`: the capture time on the wall clock of `zone`. */
export function localStamp(capturedAt: Date, zone: string): string {
  return DateTime.fromJSDate(capturedAt, { zone }).toFormat('yyyy-MM-dd HHmm');
}

/** The name a photo would get, before duplicates are told apart. */
export function photoEntryName(photo: { capturedAt: Date; caption: string | null; contentType: string }, zone: string): { base: string; extension: string } {
  const stamp = localStamp(photo.capturedAt, zone);
  const room = MAX_NAME_BYTES - Buffer.byteLength(stamp) - 16; // the space, a " (99999)" and the extension
  const caption = photo.caption ? safeNamePart(truncateText(safeNamePart(photo.caption), MAX_CAPTION_CHARS, room)) : '';
  return { base: caption ? `${stamp} ${caption}` : stamp, extension: extensionOf(photo.contentType) };
}

/**
 * Hands out names once each: a second `2026-03-02 0800.jpg` becomes `2026-03-02 0800 (2).jpg`.
 * Names are compared as case-insensitive file systems (Windows, macOS) do, so `Roof.jpg` and
 * `ROOF.jpg` do not overwrite each other when unpacked there.
 */
export class EntryNames {
  private readonly taken = new Set<string>([MANIFEST_CSV, MANIFEST_JSON].map(foldName));

  claim(base: string, extension: string): string {
    for (let n = 1; ; n++) {
      const name = n === 1 ? `${base}.${extension}` : `${base} (${n}).${extension}`;
      const key = foldName(name);
      if (!this.taken.has(key)) {
        this.taken.add(key);
        return name;
      }
    }
  }
}

const foldName = (name: string) => name.normalize('NFC').toLowerCase();

/** What the ZIP downloads as: `Tower A photos 2026-11-25.zip`. */
export function exportFileName(projectName: string, requestedAt: Date): string {
  const project = truncateText(safeNamePart(projectName), 150, 180) || 'Project';
  return `${safeNamePart(project)} photos ${requestedAt.toISOString().slice(0, 10)}.zip`;
}
