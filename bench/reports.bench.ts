/**
 * `npm run bench:reports`: how long a PDF photo report takes to render, and how much memory the
 * rendering process needs.
 *
 * Setup (this process): a fresh database (DATABASE_URL's server, or an embedded one) and a
 * temporary data directory (file blob store). BENCH_DISTINCT different 12-megapixel originals
 * (4000 × 3000 noisy JPEGs, each tinted differently; noise makes their `large` variants ~2 MB,
 * heavier than real phone photos) are processed with the app's own makeVariants (what the
 * process_photo job runs) into their 2048 px `large` variants. Those are cached in
 * BENCH_CACHE_DIR (default: <tmp>/jobsite-bench-reports-cache) so later runs skip this step.
 * Photo rows (caption, capture time over a week, GPS, creator, tags) point at those variants; a
 * report bigger than BENCH_DISTINCT photos prints each variant more than once (the renderer reads,
 * decodes and downscales every occurrence anew, so the work is the same).
 *
 * Measurement: each report is rendered by the real render_report job code (ReportJobs.render)
 * in a CHILD process (this file with BENCH_ROLE=render), so its memory is the renderer's alone:
 * wall time is measured around render() (PDF streamed into the blob store included; process
 * start-up excluded), peak RSS is the child's VmHWM (/proc, the kernel's high-water mark for the
 * whole life of the process, start-up and module loading included).
 *
 * BENCH_SCRIPTS=mixed ends every caption with Polish, Greek, Cyrillic, Chinese/Japanese or Korean
 * words (in turn) and names the project in Chinese too, so the render loads and subsets the CJK
 * fonts as well (default `latin`: the Latin font only).
 *
 *   BENCH_PHOTOS=100  BENCH_BIG=500  BENCH_ROUNDS=3  BENCH_DISTINCT=100  BENCH_LAYOUT=2  BENCH_SCRIPTS=latin
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { Db } from '../src/db/database.ts';
import type { StoredVariant } from '../src/db/schema.ts';
import type { BlobStore } from '../src/storage/blob-store.ts';
import { benchEnv, procStatus } from './child-process.ts';

// The render child imports only what the worker needs to render (renderInChild); the setup's
// modules (fixtures, photo processing, provisioning) are imported by main alone.

const PHOTOS = Number(process.env.BENCH_PHOTOS ?? 100);
const BIG = Number(process.env.BENCH_BIG ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 100);
const LAYOUT = Number(process.env.BENCH_LAYOUT ?? 2);
const MIXED_SCRIPTS = process.env.BENCH_SCRIPTS === 'mixed';
const WORDS = ['Zażółć gęślą jaźń', 'Καλημέρα', 'Привет', '工地照片 現場写真', '현장 사진'];
const CACHE_DIR = process.env.BENCH_CACHE_DIR ?? path.join(os.tmpdir(), 'jobsite-bench-reports-cache');

const mb = (bytes: number) => bytes / 1024 / 1024;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

interface RenderResult {
  ms: number;
  /** CPU time of the whole child (all threads) during render(): what the load of other processes cannot inflate much. */
  cpuMs: number;
  peakRssBytes: number;
  rssBeforeBytes: number;
  status: string;
  error: string | null;
  pageCount: number | null;
  byteSize: number | null;
}

// ---------------------------------------------------------------------------------------------
// The child: renders one report with the job's code and prints what it measured.

async function renderInChild(): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { openDatabase } = await import('../src/db/database.ts');
  const { createBlobStore } = await import('../src/storage/create-blob-store.ts');
  const { EventLog } = await import('../src/features/events/events.log.ts');
  const { ReportJobs } = await import('../src/features/reports/reports.jobs.ts');
  const env = benchEnv(process.env.BENCH_DATA_DIR!, process.env.BENCH_DB_URL!);
  const config = loadConfig({ ...process.env, ...env });
  const handle = openDatabase(env.DATABASE_URL, { max: 2 });
  const blobs = await createBlobStore(config, handle.db);
  const jobs = new ReportJobs({ db: handle.db, blobs, config, events: new EventLog() });
  const id = process.env.BENCH_REPORT_ID!;
  const rssBeforeBytes = await procStatus('VmRSS');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await jobs.render(id, { job: { attempts: 1, max_attempts: 1 }, logger: { error: (m: string) => console.error(m) } } as never);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const peakRssBytes = await procStatus('VmHWM');
  const row = await handle.db.selectFrom('reports').select(['status', 'error', 'page_count', 'byte_size']).where('id', '=', id).executeTakeFirstOrThrow();
  const result: RenderResult = { ms, cpuMs, peakRssBytes, rssBeforeBytes, status: row.status, error: row.error, pageCount: row.page_count, byteSize: row.byte_size };
  process.stdout.write(JSON.stringify(result));
  await blobs.close();
  await handle.close();
}

// ---------------------------------------------------------------------------------------------
// Setup: processed `large` variants (cached), photo rows, report rows.

interface CachedLarge {
  file: string;
  width: number;
  height: number;
}

/** BENCH_DISTINCT `large` variants made from 12 MP originals by the app's makeVariants; cached between runs. */
async function largeVariants(): Promise<CachedLarge[]> {
  const sharp = (await import('sharp')).default;
  const { makeVariants } = await import('../src/features/photos/photos.media.ts');
  const { VARIANT_SIZES } = await import('../src/features/photos/photos.jobs.ts');
  const { noisyJpeg } = await import('../test/fixtures/images.ts');
  await fs.mkdir(CACHE_DIR, { recursive: true });
  const metaFile = path.join(CACHE_DIR, 'meta.json');
  const cached = JSON.parse(await fs.readFile(metaFile, 'utf8').catch(() => '[]')) as CachedLarge[];
  if (cached.length >= DISTINCT) return cached.slice(0, DISTINCT);
  const started = performance.now();
  const bases = await Promise.all(Array.from({ length: 4 }, () => noisyJpeg(4000, 3000, 85)));
  const made: CachedLarge[] = [...cached];
  for (let i = made.length; i < DISTINCT; i++) {
    // A distinct 12 MP original: one of the noisy bases, tinted.
    const original = await sharp(bases[i % 4]!).modulate({ hue: (i * 37) % 360, brightness: 0.8 + (i % 5) / 10 }).jpeg({ quality: 85 }).toBuffer();
    const { variants } = await makeVariants(original, VARIANT_SIZES);
    const file = path.join(CACHE_DIR, `large-${i}.jpg`);
    await fs.writeFile(file, variants.large.data);
    made.push({ file, width: variants.large.width, height: variants.large.height });
    if ((i + 1) % 10 === 0) process.stderr.write(`  processed ${i + 1}/${DISTINCT} originals\n`);
  }
  await fs.writeFile(metaFile, JSON.stringify(made));
  process.stderr.write(`  processing ${DISTINCT - cached.length} originals took ${((performance.now() - started) / 1000).toFixed(1)} s (cached in ${CACHE_DIR})\n`);
  return made;
}

interface Site {
  workspaceId: string;
  projectId: string;
  userId: string;
}

async function seed(db: Db, blobs: BlobStore, larges: CachedLarge[], count: number): Promise<Site> {
  const { WorkspacesService } = await import('../src/features/workspaces/workspaces.service.ts');
  const { newId } = await import('../src/ids.ts');
  const ws = await new WorkspacesService(db).provision({ name: 'Bench Builders', adminEmail: 'bench@example.test' });
  const userId = ws.admin.id;
  const projectId = newId('project');
  await db.insertInto('projects').values({
    id: projectId, workspace_id: ws.workspace.id, name: MIXED_SCRIPTS ? 'Bench Tower 工地' : 'Bench Tower', street_address_1: '1 Main Street', city: 'Paris', postal_code: '75001', country: 'FR', created_by: userId,
  }).execute();
  const stored: StoredVariant[] = [];
  for (const large of larges) {
    const key = blobs.newKey('photos');
    const bytes = await fs.readFile(large.file);
    await blobs.put(`${key}.large`, Readable.from([bytes]), { contentType: 'image/jpeg' });
    stored.push({ key: `${key}.large`, width: large.width, height: large.height, byte_size: bytes.length });
  }
  const tags = ['Roof', 'Safety', 'Electrical'].map((name) => ({ id: newId('tag'), workspace_id: ws.workspace.id, name, color: '#336699' }));
  await db.insertInto('tags').values(tags).execute();
  const week = Date.UTC(2026, 10, 2, 6, 0, 0);
  const rows = Array.from({ length: count }, (_, i) => ({
    id: newId('photo'), workspace_id: ws.workspace.id, project_id: projectId, creator_id: userId,
    blob_key: `photos/bench/${projectId}-${i}`, content_type: 'image/jpeg', byte_size: 6_000_000, sha256: '0'.repeat(64),
    width: 4000, height: 3000, caption: `Photo ${i + 1}: north elevation, level ${1 + (i % 9)}, formwork and rebar checked${MIXED_SCRIPTS ? ` ${WORDS[i % WORDS.length]}` : ''}`,
    captured_at: new Date(week + Math.floor((i * 7 * 24 * 3600_000) / count)), captured_at_source: 'exif_local' as const, captured_at_time_zone: 'Europe/Paris',
    lat: 48.85 + i / 10_000, lon: 2.35 + i / 10_000, altitude: 35, coordinates_source: 'exif' as const,
    variants: JSON.stringify({ large: stored[i % stored.length] }), processing_status: 'processed' as const,
  }));
  for (let i = 0; i < rows.length; i += 500) await db.insertInto('photos').values(rows.slice(i, i + 500)).execute();
  const tagged = rows.flatMap((r, i) => (i % 3 === 0 ? [{ photo_id: r.id, tag_id: tags[i % 2]!.id, workspace_id: ws.workspace.id }] : []));
  if (tagged.length) await db.insertInto('photo_tags').values(tagged).execute();
  return { workspaceId: ws.workspace.id, projectId, userId };
}

async function newReport(db: Db, site: Site, title: string): Promise<string> {
  const { newId } = await import('../src/ids.ts');
  const id = newId('report');
  await db.insertInto('reports').values({
    id, workspace_id: site.workspaceId, project_id: site.projectId, title, requested_by: site.userId,
    options: JSON.stringify({ layout: LAYOUT, time_zone: 'Europe/Paris', page_size: 'letter', include_annotations: true, include_tasks: false, include_comments: false }),
    selection: JSON.stringify({ photo_ids: null, captured_after: null, captured_before: null, tag_ids: null }),
  }).execute();
  return id;
}

function renderChild(dataDir: string, url: string, reportId: string): Promise<RenderResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
      // As `npm start` and `npm run jobsite` run job processes (package.json), unless the caller sets it.
      env: { MALLOC_ARENA_MAX: '2', ...process.env, BENCH_ROLE: 'render', BENCH_DATA_DIR: dataDir, BENCH_DB_URL: url, BENCH_REPORT_ID: reportId },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as RenderResult) : reject(new Error(`render child exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  process.stderr.write(`reports bench: ${PHOTOS}-photo report × ${ROUNDS}, then ${BIG} photos; layout ${LAYOUT}; ${MIXED_SCRIPTS ? 'mixed scripts' : 'Latin'} captions; ${DISTINCT} distinct 12 MP originals\n`);
  const larges = await largeVariants();
  const sharp = (await import('sharp')).default;
  const { loadConfig } = await import('../src/config.ts');
  const { openDatabase } = await import('../src/db/database.ts');
  const { createBlobStore } = await import('../src/storage/create-blob-store.ts');
  const { createBenchDatabase } = await import('./support.ts');
  const database = await createBenchDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-bench-reports-'));
  const config = loadConfig({ ...process.env, ...benchEnv(dataDir, database.url) });
  const handle = openDatabase(database.url, { max: 4 });
  const blobs = await createBlobStore(config, handle.db);
  try {
    const small = await seed(handle.db, blobs, larges, PHOTOS);
    const results: RenderResult[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const result = await renderChild(dataDir, database.url, await newReport(handle.db, small, `Weekly report ${r + 1}`));
      if (result.status !== 'finished') throw new Error(`report ${result.status}: ${result.error}`);
      results.push(result);
      process.stderr.write(`  ${PHOTOS} photos, round ${r + 1} (load ${os.loadavg()[0]!.toFixed(1)}): ${(result.ms / 1000).toFixed(2)} s, peak RSS ${mb(result.peakRssBytes).toFixed(0)} MB ` +
        `(${mb(result.rssBeforeBytes).toFixed(0)} MB before rendering), CPU ${(result.cpuMs / 1000).toFixed(2)} s, ${result.pageCount} pages, ${mb(result.byteSize!).toFixed(1)} MB\n`);
    }
    let big: RenderResult | null = null;
    if (BIG > 0) {
      const site = await seed(handle.db, blobs, larges, BIG);
      big = await renderChild(dataDir, database.url, await newReport(handle.db, site, 'Big report'));
      if (big.status !== 'finished') throw new Error(`big report ${big.status}: ${big.error}`);
      process.stderr.write(`  ${BIG} photos: ${(big.ms / 1000).toFixed(2)} s, CPU ${(big.cpuMs / 1000).toFixed(2)} s, peak RSS ${mb(big.peakRssBytes).toFixed(0)} MB, ${big.pageCount} pages, ${mb(big.byteSize!).toFixed(1)} MB\n`);
    }
    const ms = median(results.map((r) => r.ms));
    const peak = Math.max(...results.map((r) => r.peakRssBytes));
    const cpuMs = median(results.map((r) => r.cpuMs));
    console.log(`\n${PHOTOS}-photo report (layout ${LAYOUT}, ${MIXED_SCRIPTS ? 'mixed scripts' : 'Latin'}, median of ${ROUNDS}): ${(ms / 1000).toFixed(2)} s (target ≤ 5 s: ${ms <= 5000 ? 'met' : 'MISSED'}; CPU ${(cpuMs / 1000).toFixed(2)} s), ` +
      `peak RSS ${mb(peak).toFixed(0)} MB (target ≤ 300 MB: ${mb(peak) <= 300 ? 'met' : 'MISSED'}), ${results[0]!.pageCount} pages, ${mb(results[0]!.byteSize!).toFixed(1)} MB PDF`);
    if (big) {
      console.log(`${BIG}-photo report: ${(big.ms / 1000).toFixed(2)} s, peak RSS ${mb(big.peakRssBytes).toFixed(0)} MB (target < 400 MB: ${mb(big.peakRssBytes) < 400 ? 'met' : 'MISSED'}), ` +
        `${big.pageCount} pages, ${mb(big.byteSize!).toFixed(1)} MB PDF`);
    }
    console.log(`load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, ` +
      `sharp ${sharp.versions.sharp} (libvips ${sharp.versions.vips})`);
  } finally {
    await blobs.close();
    await handle.close();
    await database.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ROLE === 'render') await renderInChild();
else await main();
