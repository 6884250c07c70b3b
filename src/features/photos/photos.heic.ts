/**
 * The HEIC fallback decoder. sharp's prebuilt libvips reads the HEIF container (size, EXIF,
 * compression) but carries only an AV1 decoder, so HEVC-coded HEIF — what iPhones shoot by
 * default — is decoded here by libheif compiled to WebAssembly with libde265 (libheif-js): no
 * native build, nothing downloaded at install time. Its module (~2 MB of JavaScript with the WASM
 * inlined) is imported on the first HEIC only, so start-up never pays for it.
 *
 * The decode is synchronous WebAssembly on the calling thread (see docs/decisions.md for its
 * cost); callers check the pixel count from the header BEFORE calling this.
 *
 * libheif applies the image item's transformations (irot, imir, clap), so the pixels come out
 * upright. iPhones also write an EXIF Orientation tag that says the same rotation again: callers
 * must not apply it a second time.
 */
import type { HeifError, LibHeif } from 'libheif-js/wasm-bundle';

let loading: Promise<LibHeif> | undefined;

function libheif(): Promise<LibHeif> {
  loading ??= import('libheif-js/wasm-bundle').then((m) => m.default).catch((err: unknown) => {
    loading = undefined; // let a later photo try again
    throw err;
  });
  return loading;
}

/** Upright 8-bit RGBA pixels of the file's primary image. */
export interface DecodedHeic {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

/** libheif refused the file: its data is damaged, incomplete or uses something it cannot decode. */
export class HeicDecodeError extends Error {
  override readonly name = 'HeicDecodeError';
}

function isHeifError(v: unknown): v is HeifError {
  return typeof v === 'object' && v !== null && 'code' in v && 'message' in v;
}

/** Decodes the primary image of a HEIF file (HEVC or any other coding libheif-js carries). */
export async function decodeHeic(file: Uint8Array): Promise<DecodedHeic> {
  const h = await libheif();
  const ctx = h.heif_context_alloc();
  if (!ctx) throw new Error('libheif: cannot allocate a decoding context');
  let handle: ReturnType<LibHeif['heif_js_context_get_primary_image_handle']> | undefined;
  let decoded: Awaited<ReturnType<LibHeif['heif_js_decode_image2']>> | undefined;
  try {
    const read = h.heif_context_read_from_memory(ctx, file);
    if (read.code !== h.heif_error_code.heif_error_Ok) throw new HeicDecodeError(read.message);
    handle = h.heif_js_context_get_primary_image_handle(ctx);
    if (isHeifError(handle)) throw new HeicDecodeError(handle.message);
    decoded = await h.heif_js_decode_image2(handle, h.heif_colorspace.heif_colorspace_RGB, h.heif_chroma.heif_chroma_interleaved_RGBA);
    if (!decoded) throw new HeicDecodeError('the image could not be decoded');
    if (isHeifError(decoded)) throw new HeicDecodeError(decoded.message);
    const ch = decoded.channels.find((c) => c.id === h.heif_channel.heif_channel_interleaved);
    if (!ch || ch.bits_per_pixel !== 8 || ch.width < 1 || ch.height < 1 || ch.stride < ch.width * 4) {
      throw new HeicDecodeError('the decoded image has no 8-bit RGBA plane');
    }
    // The plane is a view of WASM memory, reused once the image is released: copy it out, row by
    // row when rows are padded.
    const row = ch.width * 4;
    const data = Buffer.allocUnsafe(row * ch.height);
    if (ch.stride === row) data.set(ch.data.subarray(0, row * ch.height));
    else for (let y = 0; y < ch.height; y++) data.set(ch.data.subarray(y * ch.stride, y * ch.stride + row), y * row);
    return { data, width: ch.width, height: ch.height, channels: 4 };
  } finally {
    if (decoded && !isHeifError(decoded)) h.heif_image_release(decoded.image);
    if (handle && !isHeifError(handle)) h.heif_image_handle_release(handle);
    h.heif_context_free(ctx);
  }
}
