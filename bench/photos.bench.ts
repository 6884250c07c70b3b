/**
 * `npm run bench:photos`: photo processing throughput and upload memory, each against a ceiling
 * measured in the same run on the same machine.
 *
 * A fresh database (DATABASE_URL's server, or an embedded one), a temporary data directory, and a
 * real `jobsite serve` in a child process that takes the uploads over real HTTP on 127.0.0.1.
 *
 * (1) Processing: BENCH_PHOTOS 12-megapixel JPEGs (noisy, so they are the size of phone photos,
 *     ~6.5 MB; EXIF time and GPS, half of them with orientation 6) are uploaded, then the real
 *     graphile worker (startWorker, in this process, at its default concurrency: 2 × cores)
 *     processes them: photos/s from the first job's start to the last job's success. The ceiling:
 *     the better of raw sharp at the cores' count and at the worker's concurrency, on
 *     the same bytes — decode once, auto-rotate, shrink to 2048 as raw
 *     pixels, encode `large` and a 320 px `thumbnail` from them with the app's JPEG settings.
 *     A blob store wrapper marks when each job reads its original and stores its variants, which
 *     splits a job's time into its steps (row, read, sharp, store, finish) and the gap between jobs.
 * (2) Upload memory: BENCH_UPLOADS uploads of a ~40 MB file (a real 12 MP JPEG followed by
 *     random padding: sniffing and the header check pass) sent BENCH_UPLOAD_CONCURRENCY at a time;
 *     the server's RSS (/proc) is sampled every 5 ms: peak growth over the RSS before the round.
 *     The ceiling: bench/upload-ceiling-server.ts, a bare Node http server writing the same
 *     request bodies to files while hashing them (SHA-256, fsync), in a child process too.
 * Each measurement runs BENCH_ROUNDS times, alternating app and ceiling; the medians are the result.
 *
 *   BENCH_PHOTOS=40  BENCH_UPLOADS=20  BENCH_UPLOAD_MB=40  BENCH_UPLOAD_CONCURRENCY=10  BENCH_ROUNDS=3
 *   BENCH_CONCURRENCY=<cores>  BENCH_WORKER_CONCURRENCY=<the configured default, 2 × cores>  BENCH_ONLY=process|upload
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import sharp from 'sharp';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { EventLog } from '../src/features/events/events.log.ts';
import { VARIANT_SIZES } from '../src/features/photos/photos.jobs.ts';
import { PROCESS_PHOTO } from '../src/features/photos/photos.service.ts';
import { WorkspacesService } from '../src/features/workspaces/workspaces.service.ts';
import { startWorker } from '../src/jobs/worker.ts';
import type { BlobStore } from '../src/storage/blob-store.ts';
import { createBlobStore } from '../src/storage/create-blob-store.ts';
import { jpeg12mp, jpegWithExif } from '../test/fixtures/images.ts';
import { cpuMicros, createBenchDatabase, freePort } from './support.ts';

const CORES = os.cpus().length;
const PHOTOS = Number(process.env.BENCH_PHOTOS ?? 40);
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);
const UPLOAD_MB = Number(process.env.BENCH_UPLOAD_MB ?? 40);
const UPLOAD_CONCURRENCY = Number(process.env.BENCH_UPLOAD_CONCURRENCY ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? CORES);
/** The worker's concurrency when it should differ from the ceiling's (to see what hiding its waits would give). */
const WORKER_CONCURRENCY = Number(process.env.BENCH_WORKER_CONCURRENCY ?? loadConfig({}).media.workerConcurrency);
const ONLY = process.env.BENCH_ONLY ?? '';
/** The app's variant encoding (photos.media.ts): the ceiling encodes the same way. */
const JPEG_OUT = { quality: 82, progressive: false, mozjpeg: false, chromaSubsampling: '4:2:0' } as const;

/** Milliseconds this process has spent in garbage collection so far. */
let gcMs = 0;
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcMs += e.duration; }).observe({ entryTypes: ['gc'] });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mb = (bytes: number) => bytes / 1024 / 1024;

/** Runs `task` for each item, `concurrency` at a time. */
async function pool<T>(items: T[], concurrency: number, task: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      await task(items[i]!, i);
    }
  }));
}

async function rssBytes(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** Samples a process's RSS every few milliseconds until stopped; returns the peak. */
function rssSampler(pid: number, everyMs = 5): { stop(): Promise<number> } {
  let peak = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      peak = Math.max(peak, await rssBytes(pid));
      await sleep(everyMs);
    }
  })();
  return { async stop() { running = false; await loop; return Math.max(peak, await rssBytes(pid)); } };
}

function spawnChild(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited`);
    try {
      await fetch(url, { method: 'GET' });
      return;
    } catch { /* not up yet */ }
    await sleep(100);
  }
  throw new Error(`${url} did not start`);
}

// ---------------------------------------------------------------------------------------------
// The photos

/** The APP1 (EXIF) segment of a JPEG, marker included. */
function exifSegment(jpeg: Buffer): Buffer {
  for (let at = 2; at + 4 <= jpeg.length;) {
    if (jpeg[at] !== 0xff) break;
    const length = jpeg.readUInt16BE(at + 2);
    if (jpeg[at + 1] === 0xe1 && jpeg.toString('latin1', at + 4, at + 10) === 'Exif\0\0') return jpeg.subarray(at, at + 2 + length);
    at += 2 + length;
  }
  throw new Error('no EXIF segment');
}

/**
 * BENCH_PHOTOS distinct 12 MP JPEGs: four noisy 4000 × 3000 images (encoding one takes seconds),
 * each copy given its own EXIF (capture time, GPS position; every other one orientation 6, as a
 * phone held upright writes it) spliced in after the SOI marker.
 */
async function makePhotos(n: number): Promise<Buffer[]> {
  const bases = await Promise.all(Array.from({ length: Math.min(4, n) }, () => jpeg12mp()));
  return Promise.all(Array.from({ length: n }, async (_, i) => {
    const exif = exifSegment(await jpegWithExif({
      dateTimeOriginal: `2026:11:${String(1 + (i % 28)).padStart(2, '0')} 08:${String(i % 60).padStart(2, '0')}:00`,
      offsetTimeOriginal: '+01:00', lat: 48.85 + i / 1000, lon: 2.35 + i / 1000, altitude: 35,
      ...(i % 2 ? { orientation: 6 } : {}),
    }, 16, 16));
    const base = bases[i % bases.length]!;
    return Buffer.concat([base.subarray(0, 2), exif, base.subarray(2)]);
  }));
}

/** The ceiling: the least sharp work for the same variants (decode once, rotate, 2048 raw, two encodes). */
async function rawSharp(photos: Buffer[], concurrency: number): Promise<{ seconds: number; cpuMs: number; gcMs: number }> {
  const cpu0 = process.cpuUsage();
  const gc0 = gcMs;
  const started = performance.now();
  await pool(photos, concurrency, async (photo) => {
    const input = Buffer.from(photo); // a fresh copy, as the worker reads a fresh one from storage
    const big = Math.max(...Object.values(VARIANT_SIZES));
    const { data, info } = await sharp(input).rotate()
      .resize({ width: big, height: big, fit: 'inside', withoutEnlargement: true })
      .raw().toBuffer({ resolveWithObject: true });
    const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
    await Promise.all(Object.values(VARIANT_SIZES).map((size) => {
      let p = sharp(data, raw);
      if (size < Math.max(info.width, info.height)) p = p.resize({ width: size, height: size, fit: 'inside' });
      return p.jpeg(JPEG_OUT).toBuffer();
    }));
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { seconds, cpuMs: (cpu.user + cpu.system) / 1000, gcMs: gcMs - gc0 };
}


/** When each step of one photo's job happened (performance.now()), keyed by the original's blob key. */
interface JobMarks { start?: number; get?: number; read?: number; put?: number; stored?: number; success?: number }

/**
 * The worker's blob store, with the time each original was asked for and finished reading, and
 * when its variants' puts began and all ended: the job's steps, seen from outside its code.
 */
function timedBlobs(blobs: BlobStore, marks: (originalKey: string) => JobMarks): BlobStore {
  return new Proxy(blobs, {
    get(target, prop) {
      if (prop === 'get') {
        return async (key: string, options?: Parameters<BlobStore['get']>[1]) => {
          const m = marks(key);
          m.get = performance.now();
          const object = await target.get(key, options);
          object?.stream.once('end', () => { m.read = performance.now(); });
          return object;
        };
      }
      if (prop === 'read') {
        return async (key: string) => {
          const m = marks(key);
          m.get = performance.now();
          const bytes = await target.read(key);
          m.read = performance.now();
          return bytes;
        };
      }
      if (prop === 'put') {
        return async (key: string, ...rest: [Parameters<BlobStore['put']>[1], Parameters<BlobStore['put']>[2]]) => {
          const m = marks(key.split('.')[0]!);
          m.put ??= performance.now();
          const result = await target.put(key, ...rest);
          m.stored = performance.now();
          return result;
        };
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const database = await createBenchDatabase();
  const { url } = database;
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-bench-photos-'));
  const ceilingDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-bench-uploads-'));
  const children: ChildProcess[] = [];
  const handle = openDatabase(url, { max: 4 });
  try {
    const ws = await new WorkspacesService(handle.db).provision({ name: 'Bench', adminEmail: 'bench@example.test' });
    const apiPort = await freePort();
    const base = `http://127.0.0.1:${apiPort}`;
    const env = {
      DATABASE_URL: url, JOBSITE_DATA_DIR: dataDir, JOBSITE_PUBLIC_URL: base, LOG_LEVEL: 'warn', JOBSITE_RATE_LIMIT: '100000000',
      JOBSITE_PHOTO_MAX_BYTES: String(Math.max(50, UPLOAD_MB + 5) * 1024 * 1024),
    };
    const api = spawnChild(['src/main.ts', 'serve'], { ...env, PORT: String(apiPort) });
    children.push(api);
    await waitUp(`${base}/healthz`, api);
    const auth = { authorization: `Bearer ${ws.api_key.key}` };
    const res = await fetch(`${base}/v1/projects`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench site' }) });
    const project = await res.json() as { id: string };
    if (res.status !== 201) throw new Error(`create project: ${res.status} ${JSON.stringify(project)}`);

    const upload = async (target: string, body: Buffer, name: string, headers: Record<string, string> = auth): Promise<string> => {
      const form = new FormData();
      form.append('caption', name);
      form.append('file', new Blob([body as Uint8Array<ArrayBuffer>], { type: 'image/jpeg' }), `${name}.jpg`);
      const r = await fetch(target, { method: 'POST', headers, body: form });
      const json = await r.json() as { id?: string };
      if (r.status !== 201) throw new Error(`upload ${name} to ${target}: ${r.status} ${JSON.stringify(json)}`);
      return json.id ?? '';
    };
    const cpuModel = os.cpus()[0]?.model ?? 'unknown CPU';
    console.log(`\nJobsite photos — node ${process.version}, ${CORES} × ${cpuModel}, ${mb(os.totalmem() / 1024).toFixed(0)} GiB, ` +
      `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips}), sharp.concurrency() = ${sharp.concurrency()}\n`);

    // (1) processing throughput
    if (ONLY !== 'upload') {
      const t0 = performance.now();
      const photos = await makePhotos(PHOTOS);
      const avg = photos.reduce((s, p) => s + p.length, 0) / photos.length;
      console.log(`${PHOTOS} photos of 4000 × 3000, ${mb(avg).toFixed(1)} MB on average (made in ${((performance.now() - t0) / 1000).toFixed(1)} s); concurrency ${CONCURRENCY}` +
        `${WORKER_CONCURRENCY !== CONCURRENCY ? ` (the worker: ${WORKER_CONCURRENCY})` : ''}\n`);
      const config = loadConfig({ ...process.env, ...env });
      const blobs = await createBlobStore(config, handle.db);
      let marks = new Map<string, JobMarks>();
      const marksOf = (key: string) => { let m = marks.get(key); if (!m) marks.set(key, m = {}); return m; };
      const deps = { db: handle.db, blobs: timedBlobs(blobs, marksOf), config, events: new EventLog() };
      const phases: Record<string, number[]> = { load: [], read: [], media: [], store: [], finish: [] };
      const gaps: number[] = [];
      await rawSharp(photos.slice(0, CONCURRENCY * 2), CONCURRENCY); // warm-up: libvips, JIT

      const rows: { ceiling: number; app: number; ratio: number; cpuCeiling: number; cpuApp: number; perJobMs: number; gcCeiling: number; gcApp: number }[] = [];
      console.log('| round | upload (not timed) | raw sharp photos/s | worker photos/s | worker / ceiling | CPU ms/photo: raw sharp / worker | of which GC | worker ms per job (median) |');
      console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
      for (let round = 0; round <= ROUNDS; round++) {
        const warmUp = round === 0; // a first worker round with a few photos: start-up costs, JIT
        const batch = warmUp ? photos.slice(0, CONCURRENCY * 2) : photos;
        // The ceiling is the best raw sharp does: at the cores' count, and at the worker's when that differs.
        let ceiling = warmUp ? null : await rawSharp(batch, CONCURRENCY);
        if (ceiling && WORKER_CONCURRENCY !== CONCURRENCY) {
          const other = await rawSharp(batch, WORKER_CONCURRENCY);
          if (other.seconds < ceiling.seconds) ceiling = other;
        }

        const up0 = performance.now();
        const ids = new Set<string>();
        await pool(batch, 4, async (photo, i) => { ids.add(await upload(`${base}/v1/projects/${project.id}/photos`, photo, `photo ${round}-${i}`)); });
        const uploadSeconds = (performance.now() - up0) / 1000;

        const { rows: keyRows } = await handle.pool.query<{ id: string; blob_key: string }>('select id, blob_key from photos where id = any($1)', [[...ids]]);
        const keyOf = new Map(keyRows.map((r) => [r.id, r.blob_key]));
        const photoOf = (job: { payload: unknown }) => keyOf.get(String((job.payload as { photo_id: string }).photo_id))!;
        marks = new Map();
        let firstStart = 0;
        let lastSuccess = 0;
        const startedAt = new Map<string, number>();
        const jobMs: number[] = [];
        const failures: string[] = [];
        let done = 0;
        let allDone!: () => void;
        const finished = new Promise<void>((resolve) => { allDone = resolve; });
        const cpu0 = process.cpuUsage();
        const gc0 = gcMs;
        const runner = await startWorker(url, deps, undefined, WORKER_CONCURRENCY);
        runner.events.on('job:start', ({ job }) => {
          if (job.task_identifier !== PROCESS_PHOTO) return;
          const now = performance.now();
          if (!firstStart) firstStart = now;
          startedAt.set(job.id, now);
          marksOf(photoOf(job)).start = now;
        });
        runner.events.on('job:error', ({ job, error }) => { if (job.task_identifier === PROCESS_PHOTO) failures.push(String(error)); });
        runner.events.on('job:success', ({ job }) => {
          if (job.task_identifier !== PROCESS_PHOTO) return;
          lastSuccess = performance.now();
          marksOf(photoOf(job)).success = lastSuccess;
          jobMs.push(lastSuccess - startedAt.get(job.id)!);
          if (++done === batch.length) allDone();
        });
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([finished, new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`only ${done} of ${batch.length} processed in 10 minutes`)), 600_000);
        })]).finally(() => clearTimeout(timer));
        const cpu = process.cpuUsage(cpu0);
        const gc = gcMs - gc0;
        await runner.stop();
        if (failures.length) throw new Error(`processing failed: ${failures.slice(0, 3).join('; ')}`);

        const { rows: [check] } = await handle.pool.query<{ processed: number; exif: number; variants: number }>(
          `select count(*) filter (where processing_status = 'processed')::int as processed,
                  count(*) filter (where captured_at_source = 'exif_offset' and coordinates_source = 'exif' and captured_at_time_zone = 'Europe/Paris')::int as exif,
                  count(*) filter (where variants ? 'large' and variants ? 'thumbnail')::int as variants
             from photos where id = any($1)`, [[...ids]]);
        if (check!.processed !== batch.length || check!.exif !== batch.length || check!.variants !== batch.length) {
          throw new Error(`not every photo came out right: ${JSON.stringify(check)} of ${batch.length}`);
        }
        if (warmUp) continue;
        for (const m of marks.values()) {
          phases.load!.push(m.get! - m.start!);
          phases.read!.push(m.read! - m.get!);
          phases.media!.push(m.put! - m.read!);
          phases.store!.push(m.stored! - m.put!);
          phases.finish!.push(m.success! - m.stored!);
        }
        const seconds = (lastSuccess - firstStart) / 1000;
        gaps.push(WORKER_CONCURRENCY * seconds * 1000 / batch.length - jobMs.reduce((a, b) => a + b, 0) / jobMs.length);
        const row = {
          ceiling: batch.length / ceiling!.seconds,
          app: batch.length / seconds,
          ratio: ceiling!.seconds / seconds,
          cpuCeiling: ceiling!.cpuMs / batch.length,
          cpuApp: (cpu.user + cpu.system) / 1000 / batch.length,
          perJobMs: median(jobMs),
          gcCeiling: ceiling!.gcMs / batch.length,
          gcApp: gc / batch.length,
        };
        rows.push(row);
        console.log(`| ${round} | ${uploadSeconds.toFixed(1)} s | ${row.ceiling.toFixed(2)} | ${row.app.toFixed(2)} | **${(row.ratio * 100).toFixed(0)} %** | ` +
          `${row.cpuCeiling.toFixed(0)} / ${row.cpuApp.toFixed(0)} | ${row.gcCeiling.toFixed(1)} / ${row.gcApp.toFixed(1)} | ${row.perJobMs.toFixed(0)} |`);
      }
      console.log(`| median | | ${median(rows.map((r) => r.ceiling)).toFixed(2)} | ${median(rows.map((r) => r.app)).toFixed(2)} | ` +
        `**${(median(rows.map((r) => r.ratio)) * 100).toFixed(0)} %** | ${median(rows.map((r) => r.cpuCeiling)).toFixed(0)} / ${median(rows.map((r) => r.cpuApp)).toFixed(0)} | ` +
        `${median(rows.map((r) => r.gcCeiling)).toFixed(1)} / ${median(rows.map((r) => r.gcApp)).toFixed(1)} | ${median(rows.map((r) => r.perJobMs)).toFixed(0)} |`);
      console.log(`(every photo checked: processed, EXIF time and GPS read, large and thumbnail stored; target ≥ 80 %)\n`);
      const ceilingMs = CONCURRENCY * 1000 / median(rows.map((r) => r.ceiling));
      console.log(`Where a job's time goes (median ms over every photo of every round; raw sharp took ` +
        `${ceilingMs.toFixed(0)} ms of wall time per photo per slot):\n`);
      console.log('| load the row | read the original | EXIF + variants (sharp) | store the variants | finish: update, event, job completion | between jobs (per slot, mean) |');
      console.log('|---:|---:|---:|---:|---:|---:|');
      console.log(`| ${Object.values(phases).map((v) => median(v).toFixed(1)).join(' | ')} | ${median(gaps).toFixed(1)} |\n`);
      await blobs.close();
    }

    // (2) upload memory and speed
    if (ONLY !== 'process') {
      const jpeg = await jpeg12mp();
      const big = Buffer.concat([jpeg, crypto.randomBytes(UPLOAD_MB * 1024 * 1024 - jpeg.length)]);
      const ceilingPort = await freePort();
      const ceilingServer = spawnChild(['bench/upload-ceiling-server.ts'], { PORT: String(ceilingPort), BENCH_UPLOAD_DIR: ceilingDir });
      children.push(ceilingServer);
      await waitUp(`http://127.0.0.1:${ceilingPort}/`, ceilingServer);
      const targets = [
        { name: 'API', pid: api.pid!, url: `${base}/v1/projects/${project.id}/photos`, headers: auth },
        { name: 'ceiling', pid: ceilingServer.pid!, url: `http://127.0.0.1:${ceilingPort}/`, headers: {} },
      ];
      const measure = async (t: typeof targets[number], count: number) => {
        const before = await rssBytes(t.pid);
        const cpu0 = await cpuMicros(t.pid);
        const sampler = rssSampler(t.pid);
        const started = performance.now();
        await pool(Array.from({ length: count }, (_, i) => i), UPLOAD_CONCURRENCY, async (i) => { await upload(t.url, big, `big ${i}`, t.headers); });
        const seconds = (performance.now() - started) / 1000;
        const peak = await sampler.stop();
        const cpu = await cpuMicros(t.pid) - cpu0;
        return { mbps: mb(big.length * count) / seconds, before, peak, growth: Math.max(0, peak - before), cpuMsPerMb: cpu / 1000 / mb(big.length * count) };
      };
      const idle = await rssBytes(api.pid!);
      for (const t of targets) await measure(t, UPLOAD_CONCURRENCY); // warm-up: JIT, buffers, pools
      const results: Record<string, Awaited<ReturnType<typeof measure>>[]> = { API: [], ceiling: [] };
      console.log(`${UPLOADS} uploads of ${UPLOAD_MB} MB, ${UPLOAD_CONCURRENCY} at a time, multipart over HTTP on 127.0.0.1\n`);
      console.log('| round | API MB/s | ceiling MB/s | API / ceiling | API RSS before → peak growth | ceiling RSS before → peak growth | server CPU ms/MB: API / ceiling |');
      console.log('|---:|---:|---:|---:|---:|---:|---:|');
      for (let round = 1; round <= ROUNDS; round++) {
        const a = await measure(targets[0]!, UPLOADS);
        const c = await measure(targets[1]!, UPLOADS);
        results.API!.push(a);
        results.ceiling!.push(c);
        await fs.rm(ceilingDir, { recursive: true, force: true });
        await fs.mkdir(ceilingDir);
        console.log(`| ${round} | ${a.mbps.toFixed(0)} | ${c.mbps.toFixed(0)} | **${(a.mbps / c.mbps * 100).toFixed(0)} %** | ` +
          `${mb(a.before).toFixed(0)} MB → **+${mb(a.growth).toFixed(1)} MB** | ${mb(c.before).toFixed(0)} MB → +${mb(c.growth).toFixed(1)} MB | ` +
          `${a.cpuMsPerMb.toFixed(1)} / ${c.cpuMsPerMb.toFixed(1)} |`);
      }
      const m = (k: 'API' | 'ceiling', f: (r: Awaited<ReturnType<typeof measure>>) => number) => median(results[k]!.map(f));
      console.log(`| median | ${m('API', (r) => r.mbps).toFixed(0)} | ${m('ceiling', (r) => r.mbps).toFixed(0)} | ` +
        `**${(median(results.API!.map((r, i) => r.mbps / results.ceiling![i]!.mbps)) * 100).toFixed(0)} %** | ` +
        `+${mb(m('API', (r) => r.growth)).toFixed(1)} MB | +${mb(m('ceiling', (r) => r.growth)).toFixed(1)} MB | ` +
        `${m('API', (r) => r.cpuMsPerMb).toFixed(1)} / ${m('ceiling', (r) => r.cpuMsPerMb).toFixed(1)} |`);
      console.log(`(target: API peak RSS growth < 100 MB; the API's RSS was ${mb(idle).toFixed(0)} MB before its first large upload, ` +
        `its highest peak ${mb(Math.max(...results.API!.map((r) => r.peak))).toFixed(0)} MB)\n`);
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => new Promise((r) => c.exitCode !== null ? r(null) : c.once('exit', r))));
    await handle.close();
    await database.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(ceilingDir, { recursive: true, force: true });
  }
}

await main();
