import crypto from 'node:crypto';

/**
 * The secret part of a share link's URL. It is derived, not stored: HMAC-SHA256 of the link's id
 * under a key drawn (HKDF) from the server's URL-signing secret. Only its SHA-256 is kept, to find
 * the link when the page is opened; deriving it again lets the API show the same `url` on every
 * read (people copy a link days later) without a copy of the token in the database. Changing the
 * signing secret (JOBSITE_URL_SIGNING_SECRET) changes what would be derived: existing links keep
 * working for those who have them, but their `url` can no longer be shown (null).
 */
export const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export class ShareTokens {
  private key: Promise<Buffer> | null = null;

  /** `loadSecret` is the URL-signing secret's loader (read once, retried after a failure). */
  constructor(private readonly loadSecret: () => Promise<Buffer>) {}

  async tokenOf(shareLinkId: string): Promise<string> {
    return crypto.createHmac('sha256', await this.derivedKey()).update(`jobsite-share-link-v1:${shareLinkId}`).digest('base64url');
  }

  private derivedKey(): Promise<Buffer> {
    this.key ??= this.loadSecret().then(
      (secret) => Buffer.from(crypto.hkdfSync('sha256', secret, Buffer.alloc(0), 'jobsite share links', 32)),
      (err: unknown) => {
        this.key = null;
        throw err;
      },
    );
    return this.key;
  }
}

export const hashToken = (token: string): Buffer => crypto.createHash('sha256').update(token).digest();
