/**
 * The upload ceiling for bench/photos.bench.ts: a bare Node http server that writes each request
 * body, as it arrives, to a new file while hashing it (SHA-256), fsyncs it and renames it into
 * place — the same durable effect as the file blob store, with no multipart parsing, sniffing,
 * header check, auth or database. Answers 201 with the size and hash.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const dir = process.env.BENCH_UPLOAD_DIR!;
let n = 0;

const server = http.createServer((req, res) => {
  void (async () => {
    const name = path.join(dir, `upload-${process.pid}-${n++}`);
    const temp = `${name}.tmp`;
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    const handle = await fs.open(temp, 'wx', 0o644);
    try {
      for await (const chunk of req as AsyncIterable<Buffer>) {
        hash.update(chunk);
        bytes += chunk.length;
        let off = 0;
        while (off < chunk.length) off += (await handle.write(chunk, off)).bytesWritten;
      }
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, name);
    res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ byte_size: bytes, sha256: hash.digest('hex') }));
  })().catch((err: Error) => res.writeHead(500).end(err.message));
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('ceiling ready'));
