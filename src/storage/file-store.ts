import crypto from 'node:crypto';
import type { Stats } from 'node:fs';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobObject, BlobStore, ByteRange, PutOptions, PutResult, SignedUrlOptions } from './blob-store.ts';
import { assertBlobKey, newBlobKey } from './keys.ts';
import { checkPutOptions, metered, type Tally } from './metered.ts';
import type { UrlSigner } from './url-signer.ts';

/** The sidecar `<object>.meta.json` written next to every object. */
interface StoredMeta {
  content_type: string;
  byte_size: number;
  sha256: string;
  created_at: string;
}

const META_SUFFIX = '.meta.json';
const TEMP_PREFIX = '.tmp-';

const isMissing = (err: unknown) => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

/**
 * Objects as files under one directory (`<data dir>/blobs`): the key is the relative path, and a
 * sidecar `<name>.meta.json` holds the content type, size and SHA-256 (so the store needs no
 * database, and the worker and every API process on the machine see the same objects).
 *
 * A put streams into a temporary file in the object's own directory, fsyncs it, writes the
 * sidecar the same way, and renames both into place, object last: the rename is the commit, so a
 * reader sees the whole object or none, and a failed put removes its temporary files. Temporary
 * names start with `.tmp-` and can never be keys.
 */
export class FileBlobStore implements BlobStore {
  readonly driver = 'file' as const;

  constructor(
    readonly directory: string,
    readonly urlSigner: UrlSigner,
    private readonly now: () => number = Date.now,
  ) {}

  newKey(kind: string): string {
    return newBlobKey(kind, new Date(this.now()));
  }

  async put(key: string, body: Readable | AsyncIterable<Uint8Array>, options: PutOptions): Promise<PutResult> {
    const file = this.pathOf(key);
    checkPutOptions(options);
    const dir = path.dirname(file);
    await fs.mkdir(dir, { recursive: true });
    const temp = path.join(dir, `${TEMP_PREFIX}${path.basename(file)}-${crypto.randomBytes(6).toString('hex')}`);
    const tempMeta = `${temp}${META_SUFFIX}`;
    const tally: Tally = { bytes: 0, sha256: null };
    let metaPlaced = false;
    try {
      const handle = await fs.open(temp, 'wx', 0o644);
      try {
        for await (const chunk of metered(body, tally, options)) await writeAll(handle, chunk);
        await handle.sync();
      } finally {
        await handle.close();
      }
      const meta: StoredMeta = {
        content_type: options.contentType,
        byte_size: tally.bytes,
        sha256: tally.sha256!,
        created_at: new Date(this.now()).toISOString(),
      };
      await writeFileDurably(tempMeta, JSON.stringify(meta));
      await fs.rename(tempMeta, `${file}${META_SUFFIX}`);
      metaPlaced = true;
      await fs.rename(temp, file);
    } catch (err) {
      await fs.rm(temp, { force: true });
      await fs.rm(tempMeta, { force: true });
      if (metaPlaced && !(await exists(file))) await fs.rm(`${file}${META_SUFFIX}`, { force: true });
      throw err;
    }
    await syncDirectory(dir);
    return { byteSize: tally.bytes, sha256: tally.sha256! };
  }

  async get(key: string, options: { range?: ByteRange } = {}): Promise<BlobObject | null> {
    const file = this.pathOf(key);
    let handle: FileHandle;
    try {
      handle = await fs.open(file, 'r');
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    try {
      const info = await this.infoOf(file, await handle.stat());
      const range = options.range ?? null;
      if (range) checkRange(range, info.byteSize);
      // The open handle keeps the bytes readable even if the object is deleted meanwhile.
      // Whole objects (jobs reading originals, downloads) in 1 MB reads: a 6 MB photo in 6 reads, not 100.
      const stream = handle.createReadStream({ start: range?.start ?? 0, end: range?.end, autoClose: true, highWaterMark: range ? 64 * 1024 : 1024 * 1024 });
      return { ...info, stream, range };
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async head(key: string): Promise<BlobInfo | null> {
    const file = this.pathOf(key);
    try {
      return await this.infoOf(file, await fs.stat(file));
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    // The object first: once it is gone the object is gone, whatever happens to its sidecar.
    await fs.rm(file, { force: true });
    await fs.rm(`${file}${META_SUFFIX}`, { force: true });
  }

  async deleteWithVariants(key: string): Promise<void> {
    const file = this.pathOf(key);
    if (key.includes('.')) throw new Error(`${key} is a variant; pass the original's key`);
    const dir = path.dirname(file);
    const base = path.basename(file);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
    const family = names.filter((n) => n === base || n.startsWith(`${base}.`));
    // Objects before sidecars, as in delete().
    family.sort((a, b) => Number(a.endsWith(META_SUFFIX)) - Number(b.endsWith(META_SUFFIX)));
    for (const name of family) await fs.rm(path.join(dir, name), { force: true });
  }

  async signedUrl(key: string, options: SignedUrlOptions): Promise<string> {
    return this.urlSigner.url(key, options);
  }

  async close(): Promise<void> {}

  /**
   * Removes temporary files older than `maxAgeMs` that a crashed process left behind (a failed put
   * removes its own). Puts write into the current month's directories, so this month's and last
   * month's are all that need a look; run it daily. Returns how many files it removed.
   */
  async removeStaleTemporaryFiles(maxAgeMs = 24 * 3600_000): Promise<number> {
    const now = new Date(this.now());
    const months = [now, new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))]
      .map((d) => path.join(String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0')));
    const kinds = await fs.readdir(this.directory).catch((err: unknown) => (isMissing(err) ? [] : Promise.reject(err)));
    let removed = 0;
    for (const dir of kinds.flatMap((kind) => months.map((month) => path.join(this.directory, kind, month)))) {
      const names = await fs.readdir(dir).catch((err: unknown) => (isMissing(err) ? [] : Promise.reject(err)));
      for (const name of names.filter((n) => n.startsWith(TEMP_PREFIX))) {
        const file = path.join(dir, name);
        const stat = await fs.stat(file).catch(() => null);
        if (stat && this.now() - stat.mtimeMs > maxAgeMs) {
          await fs.rm(file, { force: true });
          removed++;
        }
      }
    }
    return removed;
  }

  /** The only way from a key to a path: anything not shaped like a generated key is refused here. */
  private pathOf(key: string): string {
    assertBlobKey(key);
    return path.join(this.directory, ...key.split('/'));
  }

  private async infoOf(file: string, stat: Stats): Promise<BlobInfo> {
    let meta: StoredMeta | null = null;
    try {
      meta = JSON.parse(await fs.readFile(`${file}${META_SUFFIX}`, 'utf8')) as StoredMeta;
    } catch (err) {
      if (!isMissing(err) && !(err instanceof SyntaxError)) throw err;
    }
    if (meta && typeof meta.sha256 === 'string' && typeof meta.content_type === 'string' && meta.byte_size === stat.size) {
      return { byteSize: stat.size, contentType: meta.content_type, etag: `"${meta.sha256}"`, sha256: meta.sha256 };
    }
    // A sidecar lost or damaged by hand: still serve the bytes, as opaque ones.
    return {
      byteSize: stat.size,
      contentType: 'application/octet-stream',
      etag: `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
      sha256: null,
    };
  }
}

export function checkRange(range: ByteRange, size: number): void {
  if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.end) || range.start < 0 || range.end < range.start || range.end >= size) {
    throw new RangeError(`bytes ${range.start}-${range.end} are not within an object of ${size} bytes`);
  }
}

async function writeAll(handle: FileHandle, chunk: Buffer): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    offset += bytesWritten;
  }
}

async function writeFileDurably(file: string, text: string): Promise<void> {
  const handle = await fs.open(file, 'wx', 0o644);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes the renames themselves durable (where the platform can fsync a directory). */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Not supported here (e.g. Windows); the data itself was synced.
  } finally {
    await handle?.close();
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(() => true, () => false);
}
