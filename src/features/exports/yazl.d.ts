/** The part of yazl (3.x, no types of its own) that exports use. */
declare module 'yazl' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  export interface EntryOptions {
    mtime?: Date;
    mode?: number;
    compress?: boolean;
    compressionLevel?: number;
    forceZip64Format?: boolean;
    /** Checked against the bytes the stream gives: a mismatch is an error on the ZipFile. */
    size?: number;
  }

  export class ZipFile extends EventEmitter {
    readonly outputStream: Readable;
    addReadStreamLazy(metadataPath: string, options: EntryOptions, getReadStream: (cb: (err: Error | null, stream?: Readable) => void) => void): void;
    addBuffer(buffer: Buffer, metadataPath: string, options?: EntryOptions): void;
    end(options?: { forceZip64Format?: boolean; comment?: string }, calculatedTotalSize?: (size: number) => void): void;
  }
}
