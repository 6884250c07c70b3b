/**
 * The few parts of libheif-js's WebAssembly build (libheif + libde265 compiled by Emscripten,
 * WASM inlined) that photos.heic.ts uses. The package ships typings for its emscripten module
 * only, not for this entry point.
 */
declare module 'libheif-js/wasm-bundle' {
  /** An embind enum value: compared by identity with the members of the enum objects. */
  export type HeifEnum = { readonly value: number };
  export interface HeifError { code: HeifEnum; subcode: HeifEnum; message: string }
  export interface HeifContext { readonly __brand: 'heif_context' }
  export interface HeifImageHandle { readonly __brand: 'heif_image_handle' }
  export interface HeifImage { readonly __brand: 'heif_image' }
  export interface HeifChannel { id: HeifEnum; width: number; height: number; stride: number; bits_per_pixel: number; data: Uint8Array }
  export interface HeifDecoded { image: HeifImage; width: number; height: number; channels: HeifChannel[] }
  export interface LibHeif {
    heif_error_code: { heif_error_Ok: HeifEnum };
    heif_colorspace: { heif_colorspace_RGB: HeifEnum };
    heif_chroma: { heif_chroma_interleaved_RGBA: HeifEnum };
    heif_channel: { heif_channel_interleaved: HeifEnum };
    heif_get_version(): string;
    heif_context_alloc(): HeifContext | null;
    heif_context_free(ctx: HeifContext): void;
    heif_context_read_from_memory(ctx: HeifContext, data: Uint8Array): HeifError;
    heif_js_context_get_primary_image_handle(ctx: HeifContext): HeifImageHandle | HeifError;
    heif_image_handle_get_width(handle: HeifImageHandle): number;
    heif_image_handle_get_height(handle: HeifImageHandle): number;
    heif_image_handle_release(handle: HeifImageHandle): void;
    heif_js_decode_image2(handle: HeifImageHandle, colorspace: HeifEnum, chroma: HeifEnum): HeifDecoded | HeifError | null | Promise<HeifDecoded | HeifError | null>;
    heif_image_release(image: HeifImage): void;
  }
  const libheif: LibHeif;
  export default libheif;
}
