/**
 * What the first screen of the web app costs: every script index.html loads (entry and module
 * preloads, following their static imports), gzipped at level 9 as a server or CDN would send it.
 *
 *   npm run size:web     (after npm run build:web)
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { WEB_DIST_DIR } from '../src/http/web-app.ts';

/** The budget of issue 14: JavaScript for the first screen, gzipped. */
export const FIRST_SCREEN_JS_BUDGET = 150 * 1024;

export interface WebSize {
  files: Array<{ file: string; bytes: number; gzipped: number }>;
  bytes: number;
  gzipped: number;
}

export function firstScreenScripts(distDir = WEB_DIST_DIR): WebSize {
  const html = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const queue = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*rel="modulepreload"[^>]*\shref)="\/([^"]+\.js)"/g)].map((m) => m[1]!);
  const seen = new Set<string>();
  const files: WebSize['files'] = [];
  while (queue.length) {
    const file = queue.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const content = fs.readFileSync(path.join(distDir, file));
    files.push({ file, bytes: content.length, gzipped: zlib.gzipSync(content, { level: 9 }).length });
    // Static imports of other chunks load with the first screen too (dynamic import() ones do not).
    for (const m of content.toString('utf8').matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']\.\/([^"']+\.js)["']/g)) {
      queue.push(path.posix.join(path.posix.dirname(file), m[1]!));
    }
  }
  return { files, bytes: files.reduce((s, f) => s + f.bytes, 0), gzipped: files.reduce((s, f) => s + f.gzipped, 0) };
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const size = firstScreenScripts();
  for (const f of size.files) console.log(`${f.file}: ${(f.bytes / 1024).toFixed(1)} KiB, ${(f.gzipped / 1024).toFixed(1)} KiB gzipped`);
  console.log(`First screen JavaScript: ${(size.gzipped / 1024).toFixed(1)} KiB gzipped (budget ${FIRST_SCREEN_JS_BUDGET / 1024} KiB).`);
  if (size.gzipped > FIRST_SCREEN_JS_BUDGET) process.exitCode = 1;
}
