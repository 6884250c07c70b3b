/**
 * Bad input an outside fuzz run found (issue 12): NUL and broken Unicode in any text field,
 * headers too large, query parameters and bodies a route does not take, an Accept it cannot
 * satisfy, blank names. Each is a 4xx problem, never a 500. Raw sockets where the bytes matter.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { jpegWithExif } from './fixtures/images.ts';
import { androidMp4, ffmpegPath } from './fixtures/videos.ts';
import { api, newWorkspace, startTestApp, type TestContext, type TestWorkspace } from './helpers.ts';
import { multipart } from './multipart.ts';

type Res = Awaited<ReturnType<typeof api>>;

function assertProblem(res: Res, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  const body = res.json();
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.equal(body.request_id, res.headers['x-request-id']);
  return body as { detail?: string; errors?: { path: string; message: string }[] };
}

let t: TestContext;
let ws: TestWorkspace;
let projectId: string;
let origin: string;

before(async () => {
  t = await startTestApp();
  ws = await newWorkspace(t);
  projectId = (await api(t, ws.admin, 'POST', '/v1/projects', { name: 'Bad input' })).json().id;
  origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => t.close());

const auth = () => ({ authorization: `Bearer ${ws.admin.key}` });

/** A JSON body sent as these exact bytes. */
const rawJson = (method: string, url: string, bytes: Buffer | string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: method as 'POST', url, payload: bytes, headers: { ...auth(), 'content-type': 'application/json', ...headers } });

/** Sends `request` as raw bytes on a new connection and returns everything the server wrote before closing it. */
function rawExchange(request: string | Buffer): Promise<{ text: string; closed: boolean }> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('utf8'), closed: true }));
    socket.write(request);
  });
}

function splitResponse(text: string): { status: number; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text.slice(end + 4) };
}

describe('NUL characters are a 400 in every text field, never a 500', () => {
  it('PATCH photo caption', async () => {
    const { payload, headers } = multipart({ caption: 'Before' }, { data: await jpegWithExif() });
    const photo = (await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, ...auth() } })).json();
    const body = assertProblem(await api(t, ws.admin, 'PATCH', `/v1/photos/${photo.id}`, { caption: 'a\u0000b' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.caption', message: 'must not contain NUL (U+0000) characters' }]);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/photos/${photo.id}`)).json().caption, 'Before');
  });

  it('PATCH video caption', { skip: !ffmpegPath && 'no ffmpeg' }, async () => {
    const { payload, headers } = multipart({}, { data: await androidMp4(), filename: 'clip.mp4' });
    const made = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/videos`, payload, headers: { ...headers, ...auth() } });
    assert.equal(made.statusCode, 201, made.body);
    const body = assertProblem(await api(t, ws.admin, 'PATCH', `/v1/videos/${made.json().id}`, { caption: '\u0000' }), 400, 'validation_failed');
    assert.equal(body.errors?.[0]?.path, 'body.caption');
  });

  it('report title and photo_ids', async () => {
    let body = assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/reports`, { title: 'Week\u00001' }), 400, 'validation_failed');
    assert.deepEqual(body.errors?.map((e) => e.path), ['body.title']);
    body = assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/reports`, { title: 'Week 1', photo_ids: ['pho_\u0000'] }), 400, 'validation_failed');
    assert.deepEqual(body.errors?.map((e) => e.path), ['body.photo_ids.0']);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${projectId}/reports`)).json().data.length, 0);
  });

  it('multipart caption (and nothing is stored)', async () => {
    const before = (await api(t, ws.admin, 'GET', `/v1/projects/${projectId}/photos`)).json().data.length;
    const { payload, headers } = multipart({ caption: 'x\u0000y' }, { data: await jpegWithExif() });
    const res = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/photos`, payload, headers: { ...headers, ...auth() } });
    const body = assertProblem(res, 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.caption', message: 'must not contain NUL (U+0000) characters' }]);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${projectId}/photos`)).json().data.length, before);
  });

  it('field names and query strings; a path id holding NUL names nothing (404)', async () => {
    assertProblem(await api(t, ws.admin, 'POST', '/v1/projects', { name: 'x', 'na\u0000me': 1 }), 400, 'validation_failed');
    const body = assertProblem(await api(t, ws.admin, 'GET', '/v1/api-keys?user_id=usr_%00'), 400, 'validation_failed');
    assert.deepEqual(body.errors?.map((e) => e.path), ['query.user_id']);
    assertProblem(await api(t, ws.admin, 'GET', '/v1/tags/tag_%00'), 404, 'not_found');
  });
});

describe('text must be UTF-8 / valid Unicode, not silently replaced', () => {
  it('refuses a body that is not UTF-8', async () => {
    const latin1 = Buffer.concat([Buffer.from('{"name":"Caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const body = assertProblem(await rawJson('POST', '/v1/projects', latin1), 400, 'invalid_utf8');
    assert.match(body.detail ?? '', /body is not valid UTF-8/);
    // The same text in UTF-8 is fine.
    assert.equal((await rawJson('POST', '/v1/projects', Buffer.from('{"name":"Café"}'))).statusCode, 201);
  });

  it('refuses lone surrogate escapes, keeps pairs', async () => {
    const body = assertProblem(await rawJson('POST', '/v1/projects', '{"name":"a\\ud800b"}'), 400, 'validation_failed');
    assert.deepEqual(body.errors?.map((e) => e.path), ['body.name']);
    assertProblem(await rawJson('POST', '/v1/tags', '{"name":"\\udc00"}'), 400, 'validation_failed');
    const ok = await rawJson('POST', '/v1/projects', '{"name":"Roof \\ud83c\\udfe0"}');
    assert.equal(ok.statusCode, 201, ok.body);
    assert.equal(ok.json().name, 'Roof 🏠');
  });

  it('refuses percent-encoded bytes that are not UTF-8 in a query string', async () => {
    assertProblem(await api(t, ws.admin, 'GET', '/v1/projects?q=%FF'), 400, 'invalid_utf8');
    assertProblem(await api(t, ws.admin, 'GET', '/v1/projects?q=%ED%A0%80'), 400, 'invalid_utf8'); // an encoded surrogate
    assert.equal((await api(t, ws.admin, 'GET', '/v1/projects?q=caf%C3%A9')).statusCode, 200);
  });
});

describe('what a route does not declare is refused', () => {
  it('unknown query parameters on routes without any: 400', async () => {
    const tag = (await api(t, ws.admin, 'POST', '/v1/tags', { name: 'Roofing' })).json();
    const body = assertProblem(await api(t, ws.admin, 'DELETE', `/v1/tags/${tag.id}?x=1`), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'query.x', message: 'is not a known field' }]);
    assert.equal((await api(t, ws.admin, 'GET', `/v1/tags/${tag.id}`)).statusCode, 200, 'the tag was not deleted');
    assertProblem(await api(t, ws.admin, 'GET', `/v1/projects/${projectId}?expand=tags`), 400, 'validation_failed');
    // The tooling routes outside the API still take cache-busting parameters.
    assert.equal((await t.app.inject({ method: 'GET', url: '/v1/openapi.json?v=2' })).statusCode, 200);
    assert.equal((await t.app.inject({ method: 'GET', url: '/healthz?probe=1' })).statusCode, 200);
  });

  it('every documented GET refuses a query parameter it does not declare', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, { get?: unknown }> };
    const gets = Object.entries(doc.paths).filter(([, ops]) => ops.get).map(([path]) => path.replace(/\{[^}]+\}/g, 'x_1'));
    assert.ok(gets.length > 30, String(gets.length));
    for (const path of gets) {
      const body = assertProblem(await api(t, ws.admin, 'GET', `${path}?zz_unknown=1`), 400, 'validation_failed');
      assert.ok(body.errors?.some((e) => e.path === 'query.zz_unknown' && e.message === 'is not a known field'), `${path}: ${JSON.stringify(body.errors)}`);
    }
  });

  it('a body on a route that takes none: 400; no body, an empty one or {} is fine', async () => {
    const archive = `/v1/projects/${projectId}/archive`;
    const body = assertProblem(await api(t, ws.admin, 'POST', archive, { reason: 'done' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.reason', message: 'is not a known field' }]);
    assertProblem(await rawJson('POST', archive, '[1]'), 400, 'validation_failed');
    assertProblem(await rawJson('POST', archive, '"archive"'), 400, 'validation_failed');
    assert.equal((await api(t, ws.admin, 'GET', `/v1/projects/${projectId}`)).json().status, 'active', 'nothing was archived');
    assert.equal((await api(t, ws.admin, 'POST', archive)).statusCode, 200);
    assert.equal((await rawJson('POST', `/v1/projects/${projectId}/restore`, '')).statusCode, 200);
    assert.equal((await rawJson('POST', archive, '{}')).statusCode, 200);
    await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/restore`);
    const tag = (await api(t, ws.admin, 'POST', '/v1/tags', { name: 'Framing' })).json();
    assertProblem(await rawJson('DELETE', `/v1/tags/${tag.id}`, '{"force":true}'), 400, 'validation_failed');
    // GET bodies are never read, but sending one is still a mistake worth telling.
    assertProblem(await rawJson('GET', `/v1/tags/${tag.id}`, '{"a":1}'), 400, 'validation_failed');
  });

  it('multipart-only uploads keep their own answer to a JSON body (415)', async () => {
    assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/documents`, { name: 'x' }), 415, 'unsupported_media_type');
  });

  it('Accept that allows no JSON: 406 (as problem+json)', async () => {
    const body = assertProblem(await api(t, ws.admin, 'GET', '/v1/projects', undefined, { accept: 'application/xml' }), 406, 'not_acceptable');
    assert.match(body.detail ?? '', /application\/xml/);
    assertProblem(await api(t, ws.admin, 'GET', '/v1/projects', undefined, { accept: 'application/json;q=0, text/html' }), 406, 'not_acceptable');
    for (const accept of ['application/json', 'application/problem+json', '*/*', 'application/*', 'application/json; charset=utf-8',
      'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      assert.equal((await api(t, ws.admin, 'GET', '/v1/projects', undefined, { accept })).statusCode, 200, accept);
    }
  });

  it('downloads serve their file whatever Accept says', async () => {
    const { payload, headers } = multipart({}, { data: Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1'), filename: 'plan.pdf' });
    const doc = await t.app.inject({ method: 'POST', url: `/v1/projects/${projectId}/documents`, payload, headers: { ...headers, ...auth() } });
    assert.equal(doc.statusCode, 201, doc.body);
    const res = await api(t, ws.admin, 'GET', `/v1/documents/${doc.json().id}/download`, undefined, { accept: 'application/json' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['content-type'], 'application/pdf');
  });
});

describe('names and titles must say something', () => {
  it('whitespace-only report title and API key name: 400', async () => {
    let body = assertProblem(await api(t, ws.admin, 'POST', `/v1/projects/${projectId}/reports`, { title: ' \t ' }), 400, 'validation_failed');
    assert.deepEqual(body.errors, [{ path: 'body.title', message: 'must not be blank (only white space)' }]);
    body = assertProblem(await api(t, ws.admin, 'POST', '/v1/api-keys', { name: '   ' }), 400, 'validation_failed');
    assert.equal(body.errors?.[0]?.path, 'body.name');
    assert.match(body.errors?.[0]?.message ?? '', /must not be blank/);
    assertProblem(await api(t, ws.admin, 'POST', '/v1/users', { email: 'blank@example.test', first_name: ' ' }), 400, 'validation_failed');
    assert.equal((await api(t, ws.admin, 'POST', '/v1/api-keys', { name: ' CI ' })).statusCode, 201);
  });
});

describe('requests Node refuses before routing', () => {
  const huge = 'x'.repeat(20 * 1024);

  it('431 for headers too large: problem+json, Connection: close, and the connection closes', async () => {
    const { text, closed } = await rawExchange(`GET /v1/projects HTTP/1.1\r\nHost: a\r\nX-Big: ${huge}\r\n\r\n`);
    const res = splitResponse(text);
    assert.equal(res.status, 431, text);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.equal(res.headers.connection, 'close');
    const body = JSON.parse(res.body);
    assert.equal(body.code, 'headers_too_large');
    assert.equal(body.status, 431);
    assert.equal(body.request_id, res.headers['x-request-id']);
    assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
    assert.ok(closed);
  });

  it('a HEAD with huge headers gets the headers only', async () => {
    const { text } = await rawExchange(`HEAD /v1/projects HTTP/1.1\r\nHost: a\r\nX-Big: ${huge}\r\n\r\n`);
    const res = splitResponse(text);
    assert.equal(res.status, 431, text);
    assert.equal(res.headers.connection, 'close');
    assert.equal(res.body, '');
  });

  it('malformed HTTP: 400 problem+json and close', async () => {
    const { text } = await rawExchange('GET /v1/projects HTTP/1.1\r\nHost a\r\n\r\n');
    const res = splitResponse(text);
    assert.equal(res.status, 400, text);
    assert.equal(res.headers.connection, 'close');
    assert.equal(JSON.parse(res.body).code, 'bad_request');
  });

  it('raw invalid UTF-8 over a real socket: 400 invalid_utf8', async () => {
    const body = Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]); // {"name":"\xC3("}
    const head = `POST /v1/projects HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${ws.admin.key}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
    const res = splitResponse((await rawExchange(Buffer.concat([Buffer.from(head), body]))).text);
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).code, 'invalid_utf8');
  });
});
