import type { Config } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { BlobStore } from './blob-store.ts';
import { FileBlobStore } from './file-store.ts';
import { UrlSigner } from './url-signer.ts';
import { loadUrlSigningSecret } from './url-signing.repository.ts';

/**
 * The blob store the configuration asks for, with the URL signer every process shares (its secret
 * is read from the database on first use, not here). For S3 it
 * checks the bucket at once, so a wrong bucket, endpoint or credential stops start-up with a clear
 * message instead of failing the first upload. The AWS SDK is loaded only when S3 is configured.
 */
export async function createBlobStore(config: Config, db: Db, options: { now?: () => number } = {}): Promise<BlobStore> {
  const urlSigner = new UrlSigner(() => loadUrlSigningSecret(db, config.urlSigningSecret), config.publicUrl, options.now);
  const storage = config.storage;
  if (storage.driver === 'file') return new FileBlobStore(storage.directory, urlSigner, options.now);

  const { S3BlobStore } = await import('./s3-store.ts');
  const store = new S3BlobStore({
    bucket: storage.bucket,
    prefix: storage.prefix,
    urlSigner,
    now: options.now,
    client: {
      ...(storage.region ? { region: storage.region } : {}),
      ...(storage.endpoint ? { endpoint: storage.endpoint } : {}),
      forcePathStyle: storage.forcePathStyle,
      ...(storage.credentials ? { credentials: storage.credentials } : {}),
    },
  });
  try {
    await store.checkBucket();
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
