/**
 * The HEIC fallback decoder. sharp's prebuilt libvips reads the HEIF container (size, EXIF,
 * compression) but carries only an AV1 decoder, so HEVC-coded HEIF — what iPhones shoot by
 * default — is decoded by libheif compiled to WebAssembly with libde265 (libheif-js): no native
 * build, nothing downloaded at install time.
 *
 * The decode is synchronous WebAssembly (~1.3 s for 12 MP) and its heap grows to the largest
 * photo seen, so it runs in worker threads (photos.heic.worker.mjs), never on the thread that
 * serves the API: at most `poolSize` threads, started on the first HEIC, each loading libheif-js
 * (~2 MB of JavaScript with the WASM inlined) itself. A thread idle for `idleMs` is terminated,
 * which returns its WASM heap to the system; the next HEIC starts a new one. Idle threads do not
 * keep the process alive. Callers check the pixel count from the header BEFORE calling this.
 *
 * libheif applies the image item's transformations (irot, imir, clap), so the pixels come out
 * upright. iPhones also write an EXIF Orientation tag that says the same rotation again: callers
 * must not apply it a second time.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';

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

const WORKER_FILE = new URL('./photos.heic.worker.mjs', import.meta.url);

type Reply =
  | { ok: true; data: ArrayBuffer; width: number; height: number }
  | { ok: false; corrupt: boolean; message: string };

interface Job {
  file: Uint8Array;
  resolve: (px: DecodedHeic) => void;
  reject: (err: Error) => void;
}

interface Thread {
  worker: Worker;
  job?: Job;
  idleTimer?: NodeJS.Timeout;
}

const settings = { idleMs: 30_000, poolSize: Math.min(2, os.availableParallelism()) };
const threads = new Set<Thread>();
const queue: Job[] = [];
let started = 0;

/** Tunes the pool (tests shorten the idle time). Applies to threads from now on. */
export function configureHeicDecoder(options: { idleMs?: number; poolSize?: number }): void {
  if (options.idleMs !== undefined) settings.idleMs = Math.max(0, options.idleMs);
  if (options.poolSize !== undefined) settings.poolSize = Math.max(1, Math.floor(options.poolSize));
  for (const t of threads) if (!t.job) idle(t);
}

/** Threads running now, how many are decoding, decodes waiting, and threads started so far. */
export function heicDecoderStats(): { threads: number; busy: number; queued: number; started: number } {
  let busy = 0;
  for (const t of threads) if (t.job) busy++;
  return { threads: threads.size, busy, queued: queue.length, started };
}

/**
 * Terminates every decoder thread now. Decodes in progress or waiting are rejected (the media
 * layer reports them as processing_failed); the next decodeHeic starts a new thread.
 */
export async function stopHeicDecoder(): Promise<void> {
  const err = new Error('the HEIC decoder was stopped');
  for (const job of queue.splice(0)) job.reject(err);
  await Promise.all([...threads].map((t) => {
    const job = t.job;
    t.job = undefined;
    job?.reject(err);
    return retire(t);
  }));
}

/**
 * Decodes the primary image of a HEIF file (HEVC or any other coding libheif-js carries) in a
 * decoder thread. Rejects with HeicDecodeError when libheif refuses the file, with a plain Error
 * when the thread fails (it is then replaced).
 */
export function decodeHeic(file: Uint8Array): Promise<DecodedHeic> {
  // A copy of exactly the file's bytes, handed over to the thread: the caller keeps its buffer
  // (which may be a view of a larger one), and nothing else is cloned.
  const own = new Uint8Array(file.byteLength);
  own.set(file);
  return new Promise((resolve, reject) => {
    queue.push({ file: own, resolve, reject });
    dispatch();
  });
}

function dispatch(): void {
  while (queue.length) {
    let free: Thread | undefined;
    for (const t of threads) if (!t.job) { free = t; break; }
    if (!free) {
      if (threads.size >= settings.poolSize) return;
      try {
        free = start();
      } catch (err) {
        queue.shift()!.reject(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
    }
    const job = queue.shift()!;
    clearTimeout(free.idleTimer);
    free.job = job;
    free.worker.ref(); // a decode in progress keeps the process alive, as any pending I/O does
    free.worker.postMessage({ file: job.file }, [job.file.buffer as ArrayBuffer]);
  }
}

function start(): Thread {
  // No execArgv: the thread is plain JavaScript and needs neither tsx nor the parent's flags.
  const worker = new Worker(WORKER_FILE, { execArgv: [], name: 'jobsite-heic' });
  const t: Thread = { worker };
  threads.add(t);
  started++;
  worker.on('message', (reply: Reply) => {
    const job = t.job;
    t.job = undefined;
    if (reply.ok) {
      job?.resolve({ data: Buffer.from(reply.data), width: reply.width, height: reply.height, channels: 4 });
    } else if (reply.corrupt) {
      job?.reject(new HeicDecodeError(reply.message));
    } else {
      // libheif failed in a way that may leave the module unusable (an aborted WASM instance
      // refuses every later call): this thread is not reused.
      job?.reject(new Error(reply.message));
      void retire(t);
    }
    if (threads.has(t)) idle(t);
    dispatch();
  });
  const failed = (err: Error) => {
    threads.delete(t);
    clearTimeout(t.idleTimer);
    const job = t.job;
    t.job = undefined;
    job?.reject(err);
    dispatch();
  };
  worker.on('error', (err) => failed(new Error(`the HEIC decoder thread failed: ${err.message}`, { cause: err })));
  worker.on('exit', (code) => failed(new Error(`the HEIC decoder thread stopped (exit code ${code})`)));
  return t;
}

function idle(t: Thread): void {
  t.worker.unref();
  clearTimeout(t.idleTimer);
  t.idleTimer = setTimeout(() => void retire(t), settings.idleMs);
  t.idleTimer.unref();
}

async function retire(t: Thread): Promise<void> {
  threads.delete(t);
  clearTimeout(t.idleTimer);
  await t.worker.terminate();
}
