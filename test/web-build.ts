import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { WEB_DIST_DIR } from '../src/http/web-app.ts';

/** `vite build` when web/dist has no build (npm install makes one; a clone that skipped scripts may not). */
export function ensureWebBuilt(): void {
  if (fs.existsSync(path.join(WEB_DIST_DIR, 'index.html'))) return;
  console.log('Building the web app (web/dist is missing)…');
  const vite = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'], { stdio: 'inherit' });
}
