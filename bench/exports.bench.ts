/**
 * `npm run bench:exports`: how much memory the worker needs to write a ZIP export of ~2 GB of
 * photos, and how long it takes.
 *
 * Setup (this process): a fresh database (DATABASE_URL's server, or an embedded one) and a
 * temporary data directory (file blob store). A few distinct 12-megapixel noise JPEGs (noise does
 * not compress: ~7 MB each at quality 92) are made with sharp, and stored again and again under
 * new keys as the originals of BENCH_GB gigabytes of photo rows (real JPEGs, their true byte
 * size and SHA-256, captions, capture times, GPS, tags). BENCH_SMALL more rows of ~9 KB photos
 * make a second export of thousands of photos, where the per-photo metadata dominates.
 *
 * Measurement: each export is written by the real write_export job code (ExportJobs.write) in a
 * CHILD process (this file with BENCH_ROLE=write), so its memory is the worker's alone: wall time
 * and CPU around write(), peak RSS is the child's VmHWM (/proc: the high-water mark of the whole
 * process, start-up and module loading included). The ZIP is then checked with `unzip -t`.
 *
 *   BENCH_GB=2  BENCH_SMALL=5000
 */
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import type { Db } from '../src/db/database.ts';
import type { BlobStore } from '../src/storage/blob-store.ts';
import { benchEnv, procStatus } from './child-process.ts';

const GB = Number(process.env.BENCH_GB ?? 2);
const SMALL = Number(process.env.BENCH_SMALL ?? 5000);
const mb = (bytes: number) => bytes / 1024 / 1024;

interface WriteResult {
  ms: number;
  cpuMs: number;
  peakRssBytes: number;
  rssBeforeBytes: number;
  status: string;
  error: string | null;
  photoCount: number | null;
  byteSize: number | null;
  zipFile: string | null;
}

// ---------------------------------------------------------------------------------------------
// The child: writes one export with the job's code and prints what it measured.

async function writeInChild(): Promise<void> {
  const { loadConfig } = await import('../src/config.ts');
  const { openDatabase } = await import('../src/db/database.ts');
  const { createBlobStore } = await import('../src/storage/create-blob-store.ts');
  const { EventLog } = await import('../src/features/events/events.log.ts');
  const { ExportJobs } = await import('../src/features/exports/exports.jobs.ts');
  const dataDir = process.env.BENCH_DATA_DIR!;
  const env = benchEnv(dataDir, process.env.BENCH_DB_URL!);
  const config = loadConfig({ ...process.env, ...env });
  const handle = openDatabase(env.DATABASE_URL, { max: 2 });
  const blobs = await createBlobStore(config, handle.db);
  const jobs = new ExportJobs({ db: handle.db, blobs, config, events: new EventLog() });
  const id = process.env.BENCH_EXPORT_ID!;
  const rssBeforeBytes = await procStatus('VmRSS');
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  await jobs.write(id, { job: { attempts: 1, max_attempts: 1 }, logger: { error: (m: string) => console.error(m) } } as never);
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const peakRssBytes = await procStatus('VmHWM');
  const row = await handle.db.selectFrom('exports').select(['status', 'error', 'photo_count', 'byte_size', 'blob_key']).where('id', '=', id).executeTakeFirstOrThrow();
  const zipFile = row.blob_key ? path.join(dataDir, 'blobs', row.blob_key) : null;
  const result: WriteResult = {
    ms, cpuMs: (cpu.user + cpu.system) / 1000, peakRssBytes, rssBeforeBytes, status: row.status, error: row.error,
    photoCount: row.photo_count, byteSize: row.byte_size, zipFile,
  };
  process.stdout.write(JSON.stringify(result));
  await blobs.close();
  await handle.close();
}

// ---------------------------------------------------------------------------------------------
// Setup: photo rows whose originals are real JPEGs in the blob store.

interface Site {
  workspaceId: string;
  projectId: string;
  userId: string;
}

async function site(db: Db, name: string): Promise<Site> {
  const { WorkspacesService } = await import('../src/features/workspaces/workspaces.service.ts');
  const { newId } = await import('../src/ids.ts');
  const ws = await new WorkspacesService(db).provision({ name: `${name} Builders`, adminEmail: `bench-${crypto.randomBytes(3).toString('hex')}@example.test` });
  const projectId = newId('project');
  await db.insertInto('projects').values({ id: projectId, workspace_id: ws.workspace.id, name, lat: 48.8566, lon: 2.3522, created_by: ws.admin.id }).execute();
  return { workspaceId: ws.workspace.id, projectId, userId: ws.admin.id };
}

/** Stores `count` originals cycling through `images`, each under its own key, and their photo rows; answers the bytes stored. */
async function seedPhotos(db: Db, blobs: BlobStore, s: Site, images: Buffer[], count: number): Promise<number> {
  const { newId } = await import('../src/ids.ts');
  const tag = { id: newId('tag'), workspace_id: s.workspaceId, name: `Deck ${crypto.randomBytes(2).toString('hex')}`, color: '#336699' };
  await db.insertInto('tags').values(tag).execute();
  const hashes = images.map((b) => crypto.createHash('sha256').update(b).digest('hex'));
  const start = Date.UTC(2026, 2, 2, 7, 0, 0);
  let total = 0;
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    if (!batch.length) return;
    await db.insertInto('photos').values(batch as never).execute();
    await db.insertInto('photo_tags').values(batch.filter((_, i) => i % 3 === 0).map((r) => ({ photo_id: r.id as string, tag_id: tag.id, workspace_id: s.workspaceId }))).execute();
    batch = [];
  };
  for (let i = 0; i < count; i++) {
    const bytes = images[i % images.length]!;
    const key = blobs.newKey('photos');
    await blobs.put(key, Readable.from([bytes]), { contentType: 'image/jpeg' });
    total += bytes.length;
    batch.push({
      id: newId('photo'), workspace_id: s.workspaceId, project_id: s.projectId, creator_id: s.userId, blob_key: key, content_type: 'image/jpeg',
      byte_size: bytes.length, sha256: hashes[i % images.length]!, width: 4000, height: 3000,
      caption: `Deck poured, north side, bay ${1 + (i % 40)} — formwork and rebar checked`,
      captured_at: new Date(start + i * 90_000), captured_at_source: 'exif_local', captured_at_time_zone: 'Europe/Paris',
      lat: 48.85 + i / 100_000, lon: 2.35 + i / 100_000, altitude: 35, coordinates_source: 'exif',
      variants: JSON.stringify({}), processing_status: 'processed',
    });
    if (batch.length === 500) await flush();
    if ((i + 1) % 100 === 0) process.stderr.write(`  stored ${i + 1}/${count} originals (${mb(total).toFixed(0)} MB)\r`);
  }
  await flush();
  process.stderr.write('\n');
  return total;
}

async function newExport(db: Db, s: Site): Promise<string> {
  const { newId } = await import('../src/ids.ts');
  const id = newId('export');
  await db.insertInto('exports').values({
    id, workspace_id: s.workspaceId, project_id: s.projectId, requested_by: s.userId, file_name: 'Bench photos.zip',
    selection: JSON.stringify({ photo_ids: null, captured_after: null, captured_before: null, tag_ids: null }),
  }).execute();
  return id;
}

function writeChild(dataDir: string, url: string, exportId: string): Promise<WriteResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname], {
      // As `npm start` and `npm run jobsite` run job processes (package.json), unless the caller sets it.
      env: { MALLOC_ARENA_MAX: '2', ...process.env, BENCH_ROLE: 'write', BENCH_DATA_DIR: dataDir, BENCH_DB_URL: url, BENCH_EXPORT_ID: exportId },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as WriteResult) : reject(new Error(`write child exited with ${code}`))));
  });
}

/** `unzip -t` over the whole ZIP (every CRC); answers its last line. */
function unzipTest(file: string): string {
  const test = spawnSync('unzip', ['-tqq', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (test.error) return `unzip not available (${test.error.message})`;
  if (test.status !== 0) throw new Error(`unzip -t failed (${test.status}): ${test.stdout.slice(-2000)}${test.stderr}`);
  const entries = spawnSync('unzip', ['-Z1', file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout.trim().split('\n').length;
  return `unzip -t: no errors, ${entries} entries`;
}

function report(label: string, r: WriteResult, stored: number): void {
  if (r.status !== 'finished') throw new Error(`${label}: export ${r.status}: ${r.error}`);
  console.log(`${label}: ${r.photoCount} photos, ${mb(stored).toFixed(0)} MB of originals → ${mb(r.byteSize!).toFixed(0)} MB ZIP in ${(r.ms / 1000).toFixed(1)} s ` +
    `(${(mb(r.byteSize!) / (r.ms / 1000)).toFixed(0)} MB/s; CPU ${(r.cpuMs / 1000).toFixed(1)} s), peak RSS ${mb(r.peakRssBytes).toFixed(0)} MB ` +
    `(${mb(r.rssBeforeBytes).toFixed(0)} MB before writing); load ${os.loadavg()[0]!.toFixed(1)}`);
  console.log(`  ${unzipTest(r.zipFile!)}`);
}

async function main(): Promise<void> {
  process.stderr.write(`exports bench: ~${GB} GB of 12 MP JPEGs, then ${SMALL} small photos\n`);
  const sharp = (await import('sharp')).default;
  const { loadConfig } = await import('../src/config.ts');
  const { openDatabase } = await import('../src/db/database.ts');
  const { createBlobStore } = await import('../src/storage/create-blob-store.ts');
  const { createBenchDatabase } = await import('./support.ts');
  const noise = (w: number, h: number, q: number, seed: number) => sharp({ create: { width: w, height: h, channels: 3, background: '#7f7f7f', noise: { type: 'gaussian', mean: 100 + seed * 7, sigma: 40 } } })
    .jpeg({ quality: q }).toBuffer();
  const big = await Promise.all([0, 1, 2, 3].map((i) => noise(4000, 3000, 92, i)));
  const small = await Promise.all([0, 1, 2, 3].map((i) => noise(160, 120, 80, i)));
  const database = await createBenchDatabase();
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-bench-exports-'));
  const config = loadConfig({ ...process.env, ...benchEnv(dataDir, database.url) });
  const handle = openDatabase(database.url, { max: 4 });
  const blobs = await createBlobStore(config, handle.db);
  try {
    const perPhoto = big.reduce((a, b) => a + b.length, 0) / big.length;
    const count = Math.ceil((GB * 1024 ** 3) / perPhoto);
    const large = await site(handle.db, 'Tower A');
    const stored = await seedPhotos(handle.db, blobs, large, big, count);
    report(`~${GB} GB export`, await writeChild(dataDir, database.url, await newExport(handle.db, large)), stored);
    if (SMALL > 0) {
      const many = await site(handle.db, 'Depot');
      const storedSmall = await seedPhotos(handle.db, blobs, many, small, SMALL);
      report(`${SMALL}-photo export`, await writeChild(dataDir, database.url, await newExport(handle.db, many)), storedSmall);
    }
    console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 1024 ** 3)} GiB, Node ${process.version}, load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await blobs.close();
    await handle.close();
    await database.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

if (process.env.BENCH_ROLE === 'write') await writeInChild();
else await main();
