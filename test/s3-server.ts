import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

/**
 * A real S3-compatible server for the tests: s3rver (pure npm), on 127.0.0.1 and a free port, in
 * a child process so its own memory never counts against ours. It speaks the S3 REST API the AWS
 * SDK uses (PUT, multipart uploads, ranges, presigned GETs, expiry); it does not check SigV4
 * signatures themselves, so tampering with a presigned URL can only be tested against real S3.
 */
export interface S3TestServer {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The environment that points Jobsite at this server. */
  env: Record<string, string>;
  /** Stops the server but keeps its objects (an outage); `resume` brings it back on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
}

const SCRIPT = `
const S3rver = require(process.argv[1]);
const server = new S3rver({ port: Number(process.argv[4] || 0), address: '127.0.0.1', silent: true, directory: process.argv[2],
  configureBuckets: [{ name: process.argv[3] }] });
server.run().then(({ port }) => process.stdout.write(JSON.stringify({ port }) + '\\n'), (err) => { console.error(err); process.exit(1); });
process.on('SIGTERM', () => server.close().finally(() => process.exit(0)));
`;

export async function startS3Server(bucket = 'jobsite-test'): Promise<S3TestServer> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'jobsite-s3rver-'));
  const entry = createRequire(import.meta.url).resolve('s3rver');
  let child: ChildProcess;
  const spawnServer = async (wanted: number): Promise<number> => {
    child = spawn(process.execPath, ['-e', SCRIPT, entry, dir, bucket, String(wanted)], { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n')) resolve((JSON.parse(line!) as { port: number }).port);
      });
      child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    });
  };
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
  const port = await spawnServer(0);
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  return {
    endpoint,
    bucket,
    credentials,
    env: {
      JOBSITE_STORAGE: `s3://${bucket}`,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      JOBSITE_S3_FORCE_PATH_STYLE: 'true',
    },
    pause: kill,
    async resume() {
      await spawnServer(port);
    },
    async stop() {
      await kill();
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
