/**
 * `npm run lint:openapi`: writes the OpenAPI document the server serves at /v1/openapi.json to a
 * temporary file and lints it with Redocly's recommended rules (configured in redocly.yaml).
 * No database: the app is built over Kysely's DummyDriver (building runs no query that needs
 * answers), so this runs anywhere in a few seconds, before the test stage in CI.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import type { Database } from '../src/db/schema.ts';

interface LintReport {
  totals: { errors: number; warnings: number };
  version: string;
  problems: { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }[];
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobsite-openapi-'));
try {
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new PostgresIntrospector(k),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  // The default public URL (http://127.0.0.1:3000), as a fresh server documents itself.
  const config = loadConfig({ LOG_LEVEL: 'silent', JOBSITE_DATA_DIR: path.join(dir, 'data') });
  const app = await buildApp({ config, db, logger: false });
  await app.ready();
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(app.swagger(), null, 2));
  await app.close();

  const root = path.join(import.meta.dirname, '..');
  const lint = spawnSync(path.join(root, 'node_modules', '.bin', 'redocly'), ['lint', '--format', 'json', '--config', path.join(root, 'redocly.yaml'), file], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    // Offline and quiet: no usage telemetry, no update check against the registry.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  let report: LintReport;
  try {
    report = JSON.parse(lint.stdout) as LintReport;
  } catch {
    process.stderr.write(`${lint.stdout}\n${lint.stderr}\nredocly lint gave no report (exit ${lint.status}).\n`);
    process.exit(1);
  }
  // Warnings fail too: a rule that does not apply is turned off in redocly.yaml, with the reason.
  for (const p of report.problems) console.log(`${p.severity.padEnd(5)} ${p.ruleId}  ${p.location[0]?.pointer ?? ''}\n      ${p.message}`);
  const { errors, warnings } = report.totals;
  console.log(`OpenAPI lint (Redocly ${report.version}, ${path.relative(root, path.join(root, 'redocly.yaml'))}): ${errors} errors, ${warnings} warnings.`);
  process.exitCode = errors + warnings > 0 ? 1 : 0;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
