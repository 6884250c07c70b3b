import crypto from 'node:crypto';

/**
 * The public page of a share link, rendered on the server: plain HTML and one stylesheet, no
 * script, so its Content-Security-Policy can forbid everything but our style (by hash) and the
 * signed image URLs. Every text that came from a user is escaped.
 */

export interface PagePhoto {
  id: string;
  caption: string | null;
  capturedAt: Date;
  timeZone: string | null;
  width: number | null;
  height: number | null;
  thumbnailUrl: string;
  fullUrl: string;
  downloadUrl: string | null;
}

export interface PageReport {
  title: string;
  pageCount: number | null;
  openUrl: string;
  downloadUrl: string | null;
}

export interface SharePageContent {
  projectName: string;
  photos: PagePhoto[] | null;
  /** Null with `photos` null: the shared report was deleted. */
  report: PageReport | null;
  expiresAt: Date | null;
}

const STYLE = `
*,*::before,*::after{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2733;background:#f4f6f8}
header,main,footer{max-width:72rem;margin:0 auto;padding:1rem}
header{padding-top:1.5rem}
.brand{margin:0;font-size:.875rem;color:#4a5866;text-transform:uppercase;letter-spacing:.06em}
h1{margin:.25rem 0;font-size:1.75rem;line-height:1.2;overflow-wrap:anywhere}
.meta{margin:0;color:#4a5866}
.grid{list-style:none;margin:0;padding:0;display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(min(100%,15rem),1fr))}
figure{margin:0;background:#fff;border-radius:.5rem;overflow:hidden;box-shadow:0 1px 3px rgba(0,0,0,.12)}
figure a.photo{display:block;background:#dde3e8}
img{display:block;width:100%;height:auto;aspect-ratio:4/3;object-fit:cover}
figcaption{padding:.6rem .75rem .75rem;overflow-wrap:anywhere}
figcaption p{margin:0}
time{display:block;font-size:.875rem;color:#4a5866}
a{color:#0b5cad}
a:focus-visible{outline:3px solid #0b5cad;outline-offset:2px}
.download{display:inline-flex;align-items:center;min-height:44px;font-size:.875rem}
.report{background:#fff;border-radius:.5rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
.report h2{margin:0 0 .5rem;font-size:1.25rem;overflow-wrap:anywhere}
.button{display:inline-block;margin:.5rem .75rem 0 0;padding:.6rem 1rem;border-radius:.375rem;background:#0b5cad;color:#fff;text-decoration:none;font-weight:600}
.button.secondary{background:#fff;color:#0b5cad;border:1px solid #0b5cad}
.notice{background:#fff;border-radius:.5rem;padding:2rem 1.25rem;text-align:center}
footer{color:#4a5866;font-size:.875rem;padding-bottom:2rem}
`.trim();

/** The CSP of these pages: our one stylesheet (by hash), images from where signed URLs point, nothing else. */
export function sharePageCsp(imageSources: string[]): string {
  const styleHash = crypto.createHash('sha256').update(STYLE).digest('base64');
  return [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    `img-src ${imageSources.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

function document(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** "Nov 24, 2026, 9:05 AM CST": in the photo's own zone when known, else UTC. */
export function formatTaken(at: Date, timeZone: string | null): string {
  const format = (zone: string) => new Intl.DateTimeFormat('en-US', {
    year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZone: zone, timeZoneName: 'short',
  }).format(at);
  try {
    return format(timeZone ?? 'UTC');
  } catch {
    return format('UTC');
  }
}

function photoItem(p: PagePhoto): string {
  const taken = formatTaken(p.capturedAt, p.timeZone);
  const alt = p.caption ? p.caption : `Photo taken ${taken}`;
  const size = p.width && p.height ? ` width="${p.width}" height="${p.height}"` : '';
  return `<li><figure>
<a class="photo" href="${esc(p.fullUrl)}" title="Open full size"><img src="${esc(p.thumbnailUrl)}" alt="${esc(alt)}"${size} loading="lazy"></a>
<figcaption>${p.caption ? `<p>${esc(p.caption)}</p>` : ''}<time datetime="${p.capturedAt.toISOString()}">${esc(taken)}</time>${
  p.downloadUrl ? `<a class="download" href="${esc(p.downloadUrl)}" download>Download original</a>` : ''}</figcaption>
</figure></li>`;
}

export function renderSharePage(c: SharePageContent): string {
  const until = c.expiresAt ? `<p>This link works until ${esc(formatTaken(c.expiresAt, 'UTC'))}.</p>` : '';
  let main: string;
  let title: string;
  if (c.photos !== null) {
    title = `${c.projectName}: shared photos`;
    main = c.photos.length === 0
      ? '<p class="notice">The photos shared here are no longer available.</p>'
      : `<h2 class="meta">${c.photos.length === 1 ? '1 photo' : `${c.photos.length} photos`}</h2>\n<ul class="grid">\n${c.photos.map(photoItem).join('\n')}\n</ul>`;
  } else if (c.report !== null) {
    const r = c.report;
    title = `${c.projectName}: ${r.title}`;
    main = `<section class="report" aria-labelledby="report-title">
<h2 id="report-title">${esc(r.title)}</h2>
<p class="meta">PDF report${r.pageCount ? `, ${r.pageCount} ${r.pageCount === 1 ? 'page' : 'pages'}` : ''}</p>
<a class="button" href="${esc(r.openUrl)}">Open the report</a>${r.downloadUrl ? `<a class="button secondary" href="${esc(r.downloadUrl)}" download>Download the PDF</a>` : ''}
</section>`;
  } else {
    title = `${c.projectName}: shared report`;
    main = '<p class="notice">The report shared here is no longer available.</p>';
  }
  return document(title, `<header>
<p class="brand">Shared with Jobsite</p>
<h1>${esc(c.projectName)}</h1>
</header>
<main>
${main}
</main>
<footer>${until}</footer>`);
}

/** A page that only says something: a heading and a sentence (a link gone, a client refused). */
function noticePage(heading: string, text: string): string {
  return document(heading, `<header>
<p class="brand">Shared with Jobsite</p>
</header>
<main>
<section class="notice">
<h1>${esc(heading)}</h1>
<p>${esc(text)}</p>
</section>
</main>`);
}

/** The page for a client that opened too many share pages in a minute (429). */
export function renderBusyPage(retryAfterSeconds: number): string {
  return noticePage('Too many pages opened',
    `Shared pages were opened too often from your address. Try again in ${retryAfterSeconds} second${retryAfterSeconds === 1 ? '' : 's'}.`);
}

/** The page of a link that is unknown (404) or turned off or expired (410). */
export function renderGonePage(reason: 'not_found' | 'revoked' | 'expired'): string {
  const { heading, text } = {
    not_found: { heading: 'This link does not exist', text: 'Check that the address was copied in full, or ask the person who sent it for a new link.' },
    revoked: { heading: 'This link has been turned off', text: 'The person who shared it turned it off. Ask them for a new link if you still need it.' },
    expired: { heading: 'This link has expired', text: 'Share links work for a limited time. Ask the person who sent it for a new link.' },
  }[reason];
  return noticePage(heading, text);
}
