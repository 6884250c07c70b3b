/**
 * What the web tests share: a real Chromium
 * (Debian's `chromium`, driven by playwright-core; none → a skip that says so), the two screen
 * sizes, and axe-core run inside the page.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** JOBSITE_CHROMIUM, when set, is the only one tried. */
const CANDIDATES = process.env.JOBSITE_CHROMIUM ? [process.env.JOBSITE_CHROMIUM] : ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The Chromium binary, or null (the tests then skip with NO_CHROMIUM). */
export function chromiumPath(): string | null {
  return CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

export const NO_CHROMIUM = 'no Chromium found (install Debian\'s: apt-get install -y chromium; or set JOBSITE_CHROMIUM)';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath()!,
    // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }

/** axe-core's violations of impact serious or critical on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol: the page's CSP (script-src 'self') does not apply.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** docs/images/<name>.png, for docs/web.md. */
export function screenshotPath(name: string): string {
  return path.join('docs', 'images', `${name}.png`);
}
