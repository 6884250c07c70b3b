import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { App } from './types.ts';

/** Where `vite build` puts the web app (web/vite.config.ts); git-ignored, built by `npm install`. */
export const WEB_DIST_DIR = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/** Hashed file names (`index-B2x9….js`): their content never changes under that name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Paths that belong to the API process, never to the web app's client routes (`/s/…`: public share pages). */
const SERVER_PATHS = /^\/(?:v1|docs|assets|healthz|readyz|metrics|s)(?:[/?]|$)/;

/**
 * The Content-Security-Policy of the app's pages: scripts and styles only from our own files
 * (Vite emits no inline script), API calls to ourselves, images also from where signed file URLs
 * point (the public URL, an S3 endpoint, or any https host for AWS's bucket names).
 */
export function webContentSecurityPolicy(config: Config): string {
  const images = new Set(["'self'", 'data:', 'blob:', ...signedImageSources(config)]);
  // Map tiles over https are allowed already; a plain-http tile server (an intranet's) is added by name.
  const tiles = config.mapTiles === null ? null : tileSource(config.mapTiles);
  if (tiles?.startsWith('http:')) images.add(tiles);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${[...images].join(' ')}`,
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Where signed file URLs point, as CSP sources: the public URL, an S3 endpoint, or any https host (AWS's bucket names). */
export function signedImageSources(config: Config): string[] {
  const sources = ['https:', new URL(config.publicUrl).origin];
  if (config.storage.driver === 's3' && config.storage.endpoint) sources.push(new URL(config.storage.endpoint).origin);
  return sources;
}

/** The CSP source of a tile URL template: its origin, `{s}` (subdomains) as a wildcard (`http://*.tiles.example`). */
function tileSource(template: string): string {
  const url = new URL(template.replace('{s}', 'subdomain-placeholder'));
  return `${url.protocol}//${url.host.replace('subdomain-placeholder', '*')}`;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * index.html with the server's settings the page needs as `<meta>` tags (no private endpoint to
 * ask): `jobsite-map-tiles`, the projects map's tile URL template or `off`.
 */
export function withPageSettings(html: string, config: Config): string {
  const meta = `<meta name="jobsite-map-tiles" content="${escapeHtml(config.mapTiles ?? 'off')}" />`;
  // A function, so `$&` and the like in the URL are not replacement patterns.
  return html.replace('</head>', () => `  ${meta}\n  </head>`);
}

export interface WebApp {
  /**
   * Answers a GET or HEAD for a client route (`/projects/prj_…`, `/invite/{token}`) with index.html;
   * false when the request is not one (an unknown /v1 path, another method), for the 404 to answer.
   */
  fallback(req: FastifyRequest, reply: FastifyReply): boolean;
}

/**
 * Serves the built web app at `/`: hashed assets under /assets/ cached for a year, index.html
 * revalidated on every load (so a new build is picked up at once) and served for client routes too.
 * Without a build (web/dist missing), `/` explains how to make one and the API works as ever.
 */
export async function registerWebApp(app: App, config: Config, distDir = WEB_DIST_DIR): Promise<WebApp> {
  const indexPath = `${distDir}index.html`;
  const csp = webContentSecurityPolicy(config);
  const built = fs.existsSync(indexPath);
  if (!built) app.log.warn(`The web app is not built (${indexPath} is missing): run \`npm run build:web\`.`);
  // Read once: a rebuild while running changes the asset names, which need a restart to be served anyway.
  const index = built ? withPageSettings(fs.readFileSync(indexPath, 'utf8'), config) : null;

  const sendIndex = (reply: FastifyReply) => {
    if (!index) {
      return reply.code(503).type('text/plain; charset=utf-8').header('cache-control', 'no-store')
        .send('The web app is not built: run `npm run build:web` (or `npm install`), then restart.\n');
    }
    return reply.type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .send(index);
  };

  if (built && fs.existsSync(`${distDir}assets`)) {
    await app.register(fastifyStatic, {
      root: `${distDir}assets`,
      prefix: '/assets/',
      index: false,
      // Our own cache headers below; no ETag/Last-Modified revalidation needed for immutable names.
      cacheControl: false,
      etag: false,
      lastModified: false,
      decorateReply: false,
      setHeaders: (res) => {
        res.setHeader('cache-control', IMMUTABLE);
        res.setHeader('x-content-type-options', 'nosniff');
      },
    });
  }
  app.get('/', { config: { auth: false }, schema: { hide: true } }, async (_req, reply) => sendIndex(reply));

  return {
    fallback(req, reply) {
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      if (SERVER_PATHS.test(req.url)) return false;
      void sendIndex(reply);
      return true;
    },
  };
}
