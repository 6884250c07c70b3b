import crypto from 'node:crypto';
import { isFilename, isMediaType } from './headers.ts';
import { assertBlobKey } from './keys.ts';
import { checkSignedUrlOptions, signingTime } from './metered.ts';
import type { SignedUrlOptions } from './blob-types.ts';

/** What a URL served by `GET /v1/files/…` carries besides its key. */
export interface FileUrlQuery {
  expires: number;
  sig: string;
  disposition?: 'inline' | 'attachment';
  filename?: string;
  type?: string;
}

export type FileUrlCheck =
  | { ok: true; expires: number; disposition?: 'inline' | 'attachment'; filename?: string; contentType?: string }
  | { ok: false; code: 'invalid_signature' | 'url_expired' };

/** The signing secret, or how to get it (read once, on first use: building the app touches no database). */
export type SecretSource = Buffer | (() => Promise<Buffer>);

/** How many URLs the signer remembers per lifetime (see UrlSigner.memo): a few pages of photos' worth. */
const MEMO_SIZE = 10_000;

/**
 * Signs the URLs this API serves itself: `<public URL>/v1/files/<key>?expires=<unix s>[&disposition=…]
 * [&filename=…][&type=…]&sig=<base64url HMAC-SHA256>`. The MAC covers the key, the expiry and every
 * response override, so none of them can be changed; it is keyed with a secret every API process
 * shares (see loadUrlSigningSecret), so any process verifies what any other signed.
 */
export class UrlSigner {
  private secret: Promise<Buffer> | null = null;
  /** The secret once loaded: from then on a URL is signed without waiting for anything. */
  private loaded: Buffer | null = null;
  /**
   * The plain URLs (no response overrides) signed at the current signing time, per lifetime. A
   * URL is a function of its key, expiry and the secret only, and the expiry stays put for a
   * whole signing step (metered.ts), so signing a key again within the step gives the same
   * string: a page of photos listed again costs map lookups instead of four HMACs per photo.
   * Nothing about the object is remembered, only the URL its key signs to.
   */
  private readonly memo = new Map<number, { expires: number; urls: Map<string, string> }>();

  constructor(
    private readonly source: SecretSource,
    private readonly publicUrl: string,
    private readonly now: () => number = Date.now,
  ) {
    if (Buffer.isBuffer(source)) {
      this.loaded = checkSecret(source);
      this.secret = Promise.resolve(this.loaded);
    }
  }

  async url(key: string, options: SignedUrlOptions): Promise<string> {
    return this.sign(this.loaded ?? await this.key(), key, options);
  }

  private sign(secret: Buffer, key: string, options: SignedUrlOptions): string {
    const ttl = options.expiresInSeconds;
    const expires = signingTime(this.now(), ttl) + ttl;
    const plain = options.disposition === undefined && options.filename === undefined && options.contentType === undefined;
    const remembered = plain ? this.memo.get(ttl) : undefined;
    const hit = remembered?.expires === expires ? remembered.urls.get(key) : undefined;
    if (hit !== undefined) return hit;
    assertBlobKey(key);
    checkSignedUrlOptions(options);
    if (plain) {
      const sig = mac(secret, key, expires).toString('base64url');
      // What URLSearchParams would write: digits and base64url need no escaping.
      const url = `${this.publicUrl}/v1/files/${key}?expires=${expires}&sig=${sig}`;
      let urls = remembered?.expires === expires ? remembered.urls : undefined;
      if (urls === undefined || urls.size >= MEMO_SIZE) this.memo.set(ttl, { expires, urls: urls = new Map() });
      urls.set(key, url);
      return url;
    }
    const disposition = options.disposition ?? (options.filename !== undefined ? 'inline' : undefined);
    const query = new URLSearchParams({ expires: String(expires) });
    if (disposition) query.set('disposition', disposition);
    if (options.filename !== undefined) query.set('filename', options.filename);
    if (options.contentType !== undefined) query.set('type', options.contentType);
    query.set('sig', mac(secret, key, expires, disposition, options.filename, options.contentType).toString('base64url'));
    return `${this.publicUrl}/v1/files/${key}?${query.toString().replace(/\+/g, '%20')}`;
  }

  /** Checks a URL's signature first (in constant time), then its expiry. */
  async verify(key: string, query: FileUrlQuery): Promise<FileUrlCheck> {
    const given = Buffer.from(query.sig, 'base64url');
    const expected = mac(this.loaded ?? await this.key(), key, query.expires, query.disposition, query.filename, query.type);
    // Buffer.from(…, 'base64url') skips junk; re-encoding must give back exactly what was sent.
    if (given.length !== expected.length || given.toString('base64url') !== query.sig || !crypto.timingSafeEqual(given, expected)) {
      return { ok: false, code: 'invalid_signature' };
    }
    // Never signed by url(), so only a leaked secret could have: refuse rather than send it as a header.
    if ((query.type !== undefined && !isMediaType(query.type)) || (query.filename !== undefined && !isFilename(query.filename))) {
      return { ok: false, code: 'invalid_signature' };
    }
    if (query.expires * 1000 <= this.now()) return { ok: false, code: 'url_expired' };
    return { ok: true, expires: query.expires, disposition: query.disposition, filename: query.filename, contentType: query.type };
  }

  /** Loads the secret once; a failed load (database down) is retried on the next use. */
  private key(): Promise<Buffer> {
    this.secret ??= (this.source as () => Promise<Buffer>)().then((secret) => (this.loaded = checkSecret(secret)), (err: unknown) => {
      this.secret = null;
      throw err;
    });
    return this.secret;
  }
}

function checkSecret(secret: Buffer): Buffer {
  if (secret.length < 32) throw new Error('The URL signing secret must be at least 32 bytes');
  return secret;
}

function mac(secret: Buffer, key: string, expires: number, disposition?: string, filename?: string, type?: string): Buffer {
  const message = JSON.stringify(['jobsite-file-url-v1', key, expires, disposition ?? null, filename ?? null, type ?? null]);
  return crypto.createHmac('sha256', secret).update(message).digest();
}
