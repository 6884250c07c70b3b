/**
 * The HEIC decoder thread, started by photos.heic.ts. Plain JavaScript on purpose: it needs only
 * libheif-js, so it runs the same under `tsx`, `node --import tsx --test` and plain node, with no
 * TypeScript loader in the thread (it is started with an empty execArgv).
 *
 * One message in: `{ file: Uint8Array }` (a copy the thread owns). One message out per message in:
 *   { ok: true, data: ArrayBuffer, width, height }   upright 8-bit RGBA, the buffer transferred
 *   { ok: false, corrupt: true, message }            libheif refused the file (HeicDecodeError)
 *   { ok: false, corrupt: false, message }           anything else: the thread is not reused
 *
 * The shapes of libheif-js used here are described in libheif-js.d.ts.
 */
import { createRequire } from 'node:module';
import { parentPort } from 'node:worker_threads';

if (!parentPort) throw new Error('photos.heic.worker.mjs runs as a worker thread only');
const port = parentPort;
const require = createRequire(import.meta.url);

/** @type {any} libheif compiled to WebAssembly, loaded on the first message. */
let h;

class Corrupt extends Error {}

function isHeifError(v) {
  return typeof v === 'object' && v !== null && 'code' in v && 'message' in v;
}

/** @param {Uint8Array} file */
async function decode(file) {
  // The CommonJS entry (the WASM is inlined): `require` resolves the extensionless subpath.
  h ??= require('libheif-js/wasm-bundle');
  const ctx = h.heif_context_alloc();
  if (!ctx) throw new Error('libheif: cannot allocate a decoding context');
  let handle;
  let decoded;
  try {
    const read = h.heif_context_read_from_memory(ctx, file);
    if (read.code !== h.heif_error_code.heif_error_Ok) throw new Corrupt(read.message);
    handle = h.heif_js_context_get_primary_image_handle(ctx);
    if (isHeifError(handle)) throw new Corrupt(handle.message);
    decoded = await h.heif_js_decode_image2(handle, h.heif_colorspace.heif_colorspace_RGB, h.heif_chroma.heif_chroma_interleaved_RGBA);
    if (!decoded) throw new Corrupt('the image could not be decoded');
    if (isHeifError(decoded)) throw new Corrupt(decoded.message);
    const ch = decoded.channels.find((c) => c.id === h.heif_channel.heif_channel_interleaved);
    if (!ch || ch.bits_per_pixel !== 8 || ch.width < 1 || ch.height < 1 || ch.stride < ch.width * 4) {
      throw new Corrupt('the decoded image has no 8-bit RGBA plane');
    }
    // The plane is a view of WASM memory, reused once the image is released: copy it into a
    // buffer of its own (transferred to the main thread, not copied again), row by row when rows
    // are padded.
    const row = ch.width * 4;
    const data = new Uint8Array(row * ch.height);
    if (ch.stride === row) data.set(ch.data.subarray(0, row * ch.height));
    else for (let y = 0; y < ch.height; y++) data.set(ch.data.subarray(y * ch.stride, y * ch.stride + row), y * row);
    return { data, width: ch.width, height: ch.height };
  } finally {
    if (decoded && !isHeifError(decoded)) h.heif_image_release(decoded.image);
    if (handle && !isHeifError(handle)) h.heif_image_handle_release(handle);
    h.heif_context_free(ctx);
  }
}

port.on('message', async (/** @type {{ file: Uint8Array }} */ msg) => {
  try {
    const { data, width, height } = await decode(msg.file);
    port.postMessage({ ok: true, data: data.buffer, width, height }, [data.buffer]);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    port.postMessage({ ok: false, corrupt: err instanceof Corrupt, message });
  }
});
