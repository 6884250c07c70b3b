import type { AttemptRecord } from './deliveries.repository.ts';

/**
 * Group commit for successful attempts: while one batch is being written, the next collects;
 * each `add` resolves once its record is committed. Under load a few dozen successes share one
 * transaction; at low rates each is written at once, with no added wait.
 */
export class SuccessBatcher {
  private pending: { record: AttemptRecord; resolve(): void; reject(err: unknown): void }[] = [];
  private writing: Promise<void> | null = null;

  constructor(private readonly write: (records: AttemptRecord[]) => Promise<void>) {}

  add(record: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pending.push({ record, resolve, reject });
      if (!this.writing) this.writing = this.drain();
    });
  }

  async flushed(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length) {
        const batch = this.pending;
        this.pending = [];
        try {
          await this.write(batch.map((p) => p.record));
          for (const p of batch) p.resolve();
        } catch (err) {
          // One bad record must not sink the others: write each on its own.
          for (const p of batch) {
            try {
              await this.write([p.record]);
              p.resolve();
            } catch (e) {
              p.reject(e);
            }
          }
        }
      }
    } finally {
      this.writing = null;
    }
  }
}

/** Runs at most `max` tasks at once; the others wait their turn in order. */
export class Limiter {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes straight to the next task
      else this.active--;
    }
  }
}
