import type { Executor } from '../db/database.ts';
import { enqueue } from '../jobs/enqueue.ts';
import type { BlobStore } from './blob-store.ts';

/**
 * Deletes the objects of rows that are gone. A trigger on each media table records the deleted
 * row's key in `blob_garbage` in the deleting transaction (also when a project or a workspace
 * is deleted and the rows go by cascade), so an object is never forgotten: the request that
 * deleted it removes it at once, and the `collect_blob_garbage` job (queued with the deletion,
 * and hourly) removes whatever that missed.
 */
export class BlobGarbage {
  static readonly TASK = 'collect_blob_garbage';
  static readonly BATCH = 200;

  constructor(private readonly blobs: BlobStore) {}

  /**
   * Queues a collection a minute from now, in the deleting transaction: it removes whatever the
   * request's own `collect` after the commit could not (one waiting job at most, by its key).
   */
  static async queueCollection(tx: Executor): Promise<void> {
    await enqueue(tx, BlobGarbage.TASK, {}, { jobKey: BlobGarbage.TASK, runAt: new Date(Date.now() + 60_000) });
  }

  /** Deletes the given keys' objects (with their variants), or a batch of the oldest recorded ones; returns how many went. */
  async collect(db: Executor, keys?: string[]): Promise<number> {
    const batch = keys ?? (await db.selectFrom('blob_garbage').select('blob_key').orderBy('created_at').limit(BlobGarbage.BATCH).execute())
      .map((r) => r.blob_key);
    let collected = 0;
    for (const key of batch) {
      await this.blobs.deleteWithVariants(key);
      await db.deleteFrom('blob_garbage').where('blob_key', '=', key).execute();
      collected++;
    }
    return collected;
  }

  /** Collects batch after batch until nothing is left. */
  async collectAll(db: Executor): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await this.collect(db);
      total += n;
      if (n < BlobGarbage.BATCH) return total;
    }
  }
}
