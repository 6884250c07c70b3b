import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { ERROR_CODES } from '../src/http/errors.ts';
import { createBlobStore } from '../src/storage/create-blob-store.ts';
import { variantKey } from '../src/storage/keys.ts';
import { startS3Server, type S3TestServer } from './s3-server.ts';
import { startTestApp, type TestContext } from './helpers.ts';

// The SDK's notice that its 2027 releases will need Node 22 says nothing about these tests.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

const HOUR = 3600_000;

interface Fetched {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** GETs a signed URL the way a browser would: ours through the app (no Authorization), S3's over HTTP. */
async function fetchUrl(t: TestContext, url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET'): Promise<Fetched> {
  if (url.startsWith(`${t.config.publicUrl}/`)) {
    const res = await t.app.inject({ method, url: url.slice(t.config.publicUrl.length), headers });
    return { status: res.statusCode, headers: res.headers as Record<string, string>, body: res.rawPayload };
  }
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.from(await res.arrayBuffer()) };
}

async function putBytes(t: TestContext, bytes: Buffer, contentType = 'image/jpeg', kind = 'photos'): Promise<string> {
  const key = t.app.blobs.newKey(kind);
  await t.app.blobs.put(key, Readable.from([bytes]), { contentType });
  return key;
}

/** The URL with one query parameter (or the path, for `key`) changed. */
function tamper(url: string, name: string, value: (old: string) => string): string {
  const u = new URL(url);
  if (name === 'key') u.pathname = value(u.pathname);
  else u.searchParams.set(name, value(u.searchParams.get(name) ?? ''));
  return u.toString();
}

const flipLast = (s: string) => s.slice(0, -1) + (s.endsWith('A') ? 'B' : 'A');

const dataDirs: string[] = [];
async function tempDataDir(): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-files-'));
  dataDirs.push(dir);
  return dir;
}
after(async () => {
  for (const dir of dataDirs) await fs.rm(dir, { recursive: true, force: true });
});

let s3: S3TestServer;
before(async () => { s3 = await startS3Server(); });
after(async () => s3?.stop());

for (const driver of ['file', 's3'] as const) {
  describe(`signed URLs: ${driver} driver`, () => {
    let t: TestContext;
    before(async () => {
      t = await startTestApp({ JOBSITE_DATA_DIR: await tempDataDir(), ...(driver === 's3' ? s3.env : {}) });
      assert.equal(t.app.blobs.driver, driver);
    });
    after(async () => t?.close());

    it('fetch the bytes without an API key, as an <img> tag would', async () => {
      const bytes = crypto.randomBytes(70_000);
      const key = await putBytes(t, bytes, 'image/png');
      const url = await t.app.blobs.signedUrl(key, { expiresInSeconds: 3600 });
      if (driver === 'file') assert.ok(url.startsWith('http://jobsite.test/v1/files/'), url);
      else assert.ok(url.startsWith(`${s3.endpoint}/${s3.bucket}/photos/`), url);
      const res = await fetchUrl(t, url);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'image/png');
      assert.equal(res.headers['content-length'], '70000');
      assert.deepEqual(res.body, bytes);
    });

    it('serve a byte range with 206 (video seeking)', async () => {
      const bytes = crypto.randomBytes(10_000);
      const url = await t.app.blobs.signedUrl(await putBytes(t, bytes, 'video/mp4', 'videos'), { expiresInSeconds: 600 });
      const res = await fetchUrl(t, url, { range: 'bytes=100-1099' });
      assert.equal(res.status, 206);
      assert.equal(res.headers['content-range'], 'bytes 100-1099/10000');
      assert.equal(res.headers['content-length'], '1000');
      assert.deepEqual(res.body, bytes.subarray(100, 1100));
    });

    it('answer with the signed file name and type', async () => {
      const key = await putBytes(t, Buffer.from('%PDF-1.7 …'), 'application/octet-stream', 'documents');
      const url = await t.app.blobs.signedUrl(key, { expiresInSeconds: 600, filename: 'Daily log – 21 Nov.pdf', disposition: 'attachment', contentType: 'application/pdf' });
      const res = await fetchUrl(t, url);
      assert.equal(res.status, 200);
      assert.equal(res.headers['content-type'], 'application/pdf');
      assert.equal(res.headers['content-disposition'], 'attachment; filename="Daily log _ 21 Nov.pdf"; filename*=UTF-8\'\'Daily%20log%20%E2%80%93%2021%20Nov.pdf');
    });

    it('are refused with 403 once expired', async () => {
      const key = await putBytes(t, Buffer.from('old news'));
      const past = await createBlobStore(t.config, t.db, { now: () => Date.now() - 2 * HOUR });
      const url = await past.signedUrl(key, { expiresInSeconds: 3600 });
      await past.close();
      const res = await fetchUrl(t, url);
      assert.equal(res.status, 403);
      if (driver === 'file') {
        assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
        assert.equal(JSON.parse(res.body.toString()).code, 'url_expired');
      }
    });

    // Only for our own signatures: s3rver does not verify SigV4, so against it this could only
    // test the fake (real S3 refuses altered presigned URLs). Expiry is tested for both drivers above.
    if (driver === 'file') it('are refused with 403 when changed in any part', async () => {
      const key = await putBytes(t, Buffer.from('private'));
      const other = await putBytes(t, Buffer.from('also private'));
      const url = await t.app.blobs.signedUrl(key, { expiresInSeconds: 600, filename: 'a.jpg' });
      assert.equal((await fetchUrl(t, url)).status, 200);
      const altered = [
        tamper(url, 'sig', flipLast),
        tamper(url, 'sig', (s) => s.slice(0, -2)),
        tamper(url, 'sig', (s) => `${s}=`),
        tamper(url, 'sig', () => 'x'),
        tamper(url, 'expires', (e) => String(Number(e) + 3600)),
        tamper(url, 'filename', () => 'b.html'),
        tamper(url, 'disposition', () => 'attachment'),
        tamper(url, 'type', () => 'text/html'),
        tamper(url, 'key', () => `/v1/files/${other}`),
        tamper(url, 'key', () => `/v1/files/${variantKey(key, 'thumbnail')}`),
        tamper(url, 'key', () => '/v1/files/..%2F..%2F../etc/passwd/x'),
      ];
      for (const bad of altered) {
        const res = await fetchUrl(t, bad);
        assert.equal(res.status, 403, bad);
        assert.equal(JSON.parse(res.body.toString()).code, 'invalid_signature', bad);
      }
    });

    it('answer 404 once the object is deleted', async () => {
      const key = await putBytes(t, Buffer.from('soon gone'));
      const url = await t.app.blobs.signedUrl(key, { expiresInSeconds: 600 });
      assert.equal((await fetchUrl(t, url)).status, 200);
      await t.app.blobs.delete(key);
      const res = await fetchUrl(t, url);
      assert.equal(res.status, 404);
      if (driver === 'file') assert.equal(JSON.parse(res.body.toString()).code, 'not_found');
    });
  });
}

describe('GET /v1/files/… (file driver)', () => {
  let t: TestContext;
  let dataDir: string;
  before(async () => {
    dataDir = await tempDataDir();
    t = await startTestApp({ JOBSITE_DATA_DIR: dataDir });
  });
  after(async () => t?.close());

  const pathOf = (url: string) => url.slice('http://jobsite.test'.length);

  it('serves with the object\'s type, length, SHA-256 ETag, caching until expiry, and safe headers', async () => {
    const bytes = crypto.randomBytes(4096);
    const key = await putBytes(t, bytes, 'image/webp');
    const url = await t.app.blobs.signedUrl(key, { expiresInSeconds: 3600 });
    const expires = Number(new URL(url).searchParams.get('expires'));
    const res = await t.app.inject({ method: 'GET', url: pathOf(url) });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], 'image/webp');
    assert.equal(res.headers['content-length'], '4096');
    assert.equal(res.headers.etag, `"${crypto.createHash('sha256').update(bytes).digest('hex')}"`);
    assert.equal(res.headers['accept-ranges'], 'bytes');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.match(String(res.headers['content-security-policy']), /sandbox/);
    assert.equal(res.headers['content-disposition'], undefined);
    const maxAge = Number(/^private, max-age=(\d+)$/.exec(String(res.headers['cache-control']))?.[1]);
    const left = expires - Math.floor(Date.now() / 1000);
    // The server's clock read came first: its second may be one earlier than ours.
    assert.ok(maxAge <= left + 1 && maxAge >= left - 2, `max-age ${maxAge}, ${left} s left`);
    assert.ok(maxAge > 3000, 'a URL lives at least its lifetime less one 5-minute step');
    assert.equal(res.headers.ratelimit, undefined, 'not rate-limited per key: there is no key');
    assert.ok(res.headers['x-request-id']);
    assert.deepEqual(res.rawPayload, bytes);
  });

  it('answers If-None-Match with 304, and HEAD without a body', async () => {
    const bytes = crypto.randomBytes(2000);
    const url = pathOf(await t.app.blobs.signedUrl(await putBytes(t, bytes), { expiresInSeconds: 600 }));
    const first = await t.app.inject({ method: 'GET', url });
    const etag = String(first.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const again = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': inm } });
      assert.equal(again.statusCode, 304, inm);
      assert.equal(again.body, '');
      assert.equal(again.headers.etag, etag);
      assert.match(String(again.headers['cache-control']), /^private, max-age=\d+$/);
    }
    assert.equal((await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': '"other"' } })).statusCode, 200);

    const head = await t.app.inject({ method: 'HEAD', url });
    assert.equal(head.statusCode, 200);
    assert.equal(head.headers['content-length'], '2000');
    assert.equal(head.headers['content-type'], 'image/jpeg');
    assert.equal(head.headers.etag, etag);
    assert.equal(head.body, '');
    const headRange = await t.app.inject({ method: 'HEAD', url, headers: { range: 'bytes=-10' } });
    assert.equal(headRange.statusCode, 206);
    assert.equal(headRange.headers['content-range'], 'bytes 1990-1999/2000');
    assert.equal(headRange.headers['content-length'], '10');
  });

  it('serves single ranges, ignores what it may ignore, and answers 416 beyond the end', async () => {
    const bytes = crypto.randomBytes(1000);
    const url = pathOf(await t.app.blobs.signedUrl(await putBytes(t, bytes, 'video/mp4', 'videos'), { expiresInSeconds: 600 }));
    const get = (headers: Record<string, string>) => t.app.inject({ method: 'GET', url, headers });
    const etag = String((await get({})).headers.etag);

    for (const [range, start, end] of [['bytes=0-0', 0, 0], ['bytes=990-', 990, 999], ['bytes=-1', 999, 999], ['bytes=500-5000', 500, 999]] as const) {
      const res = await get({ range });
      assert.equal(res.statusCode, 206, range);
      assert.equal(res.headers['content-range'], `bytes ${start}-${end}/1000`);
      assert.equal(res.headers['content-length'], String(end - start + 1));
      assert.deepEqual(res.rawPayload, bytes.subarray(start, end + 1), range);
    }
    for (const range of ['bytes=0-1,5-6', 'lines=1-2', 'bytes=5-1', 'nonsense']) {
      const res = await get({ range });
      assert.equal(res.statusCode, 200, range);
      assert.equal(res.rawPayload.length, 1000);
    }
    assert.equal((await get({ range: 'bytes=0-9', 'if-range': etag })).statusCode, 206);
    assert.equal((await get({ range: 'bytes=0-9', 'if-range': '"older"' })).statusCode, 200);
    assert.equal((await get({ range: 'bytes=0-9', 'if-range': 'Wed, 21 Oct 2015 07:28:00 GMT' })).statusCode, 200);

    const beyond = await get({ range: 'bytes=1000-' });
    assert.equal(beyond.statusCode, 416);
    assert.equal(beyond.headers['content-range'], 'bytes */1000');
    assert.equal(beyond.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(beyond.json().code, 'range_not_satisfiable');
  });

  it('keeps PDFs viewable in the browser but still unsniffable', async () => {
    const url = pathOf(await t.app.blobs.signedUrl(await putBytes(t, Buffer.from('%PDF-1.7'), 'application/pdf', 'documents'), { expiresInSeconds: 600, filename: 'plan.pdf' }));
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.headers['content-security-policy'], undefined);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['content-disposition'], 'inline; filename="plan.pdf"; filename*=UTF-8\'\'plan.pdf');
  });

  it('refuses malformed URLs with 400 and unsigned ones with 403, never touching the disk', async () => {
    const key = await putBytes(t, Buffer.from('x'));
    const url = new URL(await t.app.blobs.signedUrl(key, { expiresInSeconds: 600 }));
    const without = (name: string) => { const u = new URL(url); u.searchParams.delete(name); return pathOf(u.toString()); };
    for (const bad of [without('sig'), without('expires'), pathOf(tamper(url.toString(), 'expires', () => 'soon')), pathOf(tamper(url.toString(), 'disposition', () => 'evil'))]) {
      const res = await t.app.inject({ method: 'GET', url: bad });
      assert.equal(res.statusCode, 400, bad);
      assert.equal(res.json().code, 'validation_failed');
    }
    const res = await t.app.inject({ method: 'GET', url: `/v1/files/photos/2026/11/${'a'.repeat(26)}?expires=9999999999&sig=${'A'.repeat(43)}` });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().code, 'invalid_signature');
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/files/photos/2026/11' })).statusCode, 404);
    assert.equal((await t.app.inject({ method: 'POST', url: url.pathname + url.search })).statusCode, 405);
  });

  it('refuses a correctly signed path that is not a key (a leaked secret still cannot walk the disk)', async () => {
    const secret = 'k'.repeat(40);
    const leaky = await startTestApp({ JOBSITE_DATA_DIR: dataDir, JOBSITE_URL_SIGNING_SECRET: secret }, { databaseUrl: t.url });
    try {
      await fs.writeFile(path.join(dataDir, 'secret.txt'), 'do not serve');
      const key = '../../../secret.txt';
      const expires = Math.floor(Date.now() / 1000) + 600;
      const sig = crypto.createHmac('sha256', secret).update(JSON.stringify(['jobsite-file-url-v1', key, expires, null, null, null])).digest('base64url');
      const res = await leaky.app.inject({ method: 'GET', url: `/v1/files/..%2F..%2F..%2Fsecret.txt/a/b/c?expires=${expires}&sig=${sig}` });
      assert.equal(res.statusCode, 403);
      const res2 = await leaky.app.inject({ method: 'GET', url: `/v1/files/${key.split('/').map(encodeURIComponent).join('/')}?expires=${expires}&sig=${sig}` });
      // The client resolves the dot segments (/secret.txt): no file route, so a 404, or the web app's
      // page for an unknown client path when it is built; never the file.
      assert.ok(res2.statusCode === 404 || String(res2.headers['content-type']).startsWith('text/html'), `${res2.statusCode} ${res2.body}`);
      assert.doesNotMatch(res2.body, /do not serve/);

      // Nor can it make the server send a header of its choosing.
      const real = await putBytes(leaky, Buffer.from('x'));
      const type = 'text/html\r\nset-cookie: a=b';
      const typeSig = crypto.createHmac('sha256', secret).update(JSON.stringify(['jobsite-file-url-v1', real, expires, null, null, type])).digest('base64url');
      const res3 = await leaky.app.inject({ method: 'GET', url: `/v1/files/${real}?expires=${expires}&type=${encodeURIComponent(type)}&sig=${typeSig}` });
      assert.equal(res3.statusCode, 403);
      assert.equal(res3.headers['set-cookie'], undefined);
    } finally {
      await leaky.close();
    }
  });

  it('verifies on every API process with the key kept in the database, or the configured one', async () => {
    const key = await putBytes(t, Buffer.from('shared'));
    const url = pathOf(await t.app.blobs.signedUrl(key, { expiresInSeconds: 600 }));
    const second = await startTestApp({ JOBSITE_DATA_DIR: dataDir, JOBSITE_RATE_LIMIT: '1' }, { databaseUrl: t.url });
    const configured = await startTestApp({ JOBSITE_DATA_DIR: dataDir, JOBSITE_URL_SIGNING_SECRET: 's'.repeat(32) }, { databaseUrl: t.url });
    try {
      // A rate limit of 1 a minute: URLs are not counted against any key.
      for (let i = 0; i < 3; i++) assert.equal((await second.app.inject({ method: 'GET', url })).statusCode, 200);
      assert.equal((await t.db.selectFrom('url_signing_secret').select('secret').execute()).length, 1);
      assert.equal((await configured.app.inject({ method: 'GET', url })).statusCode, 403);
      const own = pathOf(await configured.app.blobs.signedUrl(key, { expiresInSeconds: 600 }));
      assert.equal((await configured.app.inject({ method: 'GET', url: own })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: own })).statusCode, 403);
    } finally {
      await second.close();
      await configured.close();
    }
  });

  it('streams over a real socket', async () => {
    const bytes = crypto.randomBytes(3 * 1024 * 1024);
    const url = await t.app.blobs.signedUrl(await putBytes(t, bytes, 'video/mp4', 'videos'), { expiresInSeconds: 600 });
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const res = await fetch(url.replace('http://jobsite.test', address));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-length'), String(bytes.length));
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), bytes);
    const ranged = await fetch(url.replace('http://jobsite.test', address), { headers: { range: 'bytes=-5' } });
    assert.equal(ranged.status, 206);
    assert.deepEqual(Buffer.from(await ranged.arrayBuffer()), bytes.subarray(-5));
  });

  it('is in the OpenAPI document: public, with its parameters and answers', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const op = doc.paths['/v1/files/{kind}/{year}/{month}/{name}']?.get;
    assert.ok(op, Object.keys(doc.paths).join(' '));
    assert.deepEqual(op.security, []);
    const params = op.parameters.map((p: { in: string; name: string }) => `${p.in}:${p.name}`);
    for (const p of ['path:kind', 'path:name', 'query:expires', 'query:sig', 'query:filename', 'header:range', 'header:if-none-match']) assert.ok(params.includes(p), p);
    for (const status of ['200', '206', '304', '403', '404', '416']) assert.ok(op.responses[status], status);
    for (const status of ['401', '429']) assert.equal(op.responses[status], undefined, status);
    for (const code of ['invalid_signature', 'url_expired', 'range_not_satisfiable']) assert.ok(ERROR_CODES[code], code);
  });
});

describe('S3 start-up check', () => {
  let t: TestContext;
  before(async () => { t = await startTestApp(); });
  after(async () => t?.close());

  it('names the problem when the bucket is missing or the credentials are refused', async () => {
    await assert.rejects(createBlobStore(loadConfig({ ...s3.env, JOBSITE_STORAGE: 's3://no-such-bucket' }), t.db), /The S3 bucket "no-such-bucket" is not usable: it does not exist/);
    await assert.rejects(createBlobStore(loadConfig({ ...s3.env, AWS_ACCESS_KEY_ID: 'WRONG', AWS_SECRET_ACCESS_KEY: 'WRONG' }), t.db), /The S3 bucket "jobsite-test" is not usable: access is denied/);
  });
});
