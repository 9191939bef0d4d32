import { read as readCallback, write as writeCallback } from 'node:fs';
import os from 'node:os';
import { promisify } from 'node:util';
import { closeNameless, openNameless, UploadStorageError, type NamelessFile } from './nameless-file';

const read = promisify(readCallback);
const write = promisify(writeCallback);

/**
 * The bytes of an uploaded .xlsx, read where they lie: a zip is read from its end (the central
 * directory), then each part's data by its offset, a part more than once (zip-limits.ts,
 * xlsx-strings.ts). A Buffer when the caller holds the file whole; a spooled file when it
 * streams in, so that the workbook is not held in memory while it is read (docs/performance.md,
 * "An import's memory").
 */
export interface ZipSource {
  readonly size: number;
  /** `length` bytes from `at`, both within the file. */
  read(at: number, length: number): Promise<Buffer>;
  /** The bytes from `start` to `end`, `CHUNK` at a time. */
  chunks(start: number, end: number): AsyncGenerator<Buffer>;
}

export const CHUNK = 64 * 1024;

/** A file held whole: its bytes are views of it. */
export function bufferSource(file: Buffer): ZipSource {
  return {
    size: file.length,
    read: async (at, length) => file.subarray(at, at + length),
    async *chunks(start, end) {
      for (let at = start; at < end; at += CHUNK) yield file.subarray(at, Math.min(at + CHUNK, end));
    },
  };
}

/**
 * A stream written to a nameless file in the system's temporary directory (`os.tmpdir()`:
 * TMPDIR, nameless-file.ts), and read back from there.
 */
export class SpooledFile implements ZipSource {
  /** reads and writes under way: the descriptor is closed once they end, not under them (its number could be another file's by then) */
  private readonly pending = new Set<Promise<unknown>>();

  private constructor(
    private readonly file: NamelessFile,
    public size: number,
  ) {}

  static async of(chunks: AsyncIterable<Buffer>, tmpdir = os.tmpdir()): Promise<SpooledFile> {
    const file = new SpooledFile(openNameless(tmpdir, 'upload.xlsx'), 0);
    try {
      // an error of the stream (a client gone, a body past its limit) is the stream's, not the disk's
      for await (const chunk of chunks) {
        for (let done = 0; done < chunk.length; ) {
          const { bytesWritten } = await file.track(write(file.fd(), chunk, done, chunk.length - done, file.size + done)).catch((err: unknown) =>
            Promise.reject(new UploadStorageError(tmpdir, err)),
          );
          done += bytesWritten;
        }
        file.size += chunk.length;
      }
    } catch (err) {
      await file.close();
      throw err;
    }
    return file;
  }

  async read(at: number, length: number): Promise<Buffer> {
    const bytes = Buffer.allocUnsafe(length);
    for (let got = 0; got < length; ) {
      const { bytesRead } = await this.track(read(this.fd(), bytes, got, length - got, at + got));
      if (bytesRead === 0) throw new Error('the spooled upload ended early');
      got += bytesRead;
    }
    return bytes;
  }

  async *chunks(start: number, end: number): AsyncGenerator<Buffer> {
    for (let at = start; at < end; at += CHUNK) yield await this.read(at, Math.min(CHUNK, end - at));
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.pending);
    try {
      closeNameless(this.file);
    } catch {
      // nothing left to do with a file that would not close
    }
  }

  private fd(): number {
    if (this.file.fd === null) throw new Error('the spooled upload is closed');
    return this.file.fd;
  }

  private track<T>(operation: Promise<T>): Promise<T> {
    this.pending.add(operation);
    const done = () => void this.pending.delete(operation);
    operation.then(done, done);
    return operation;
  }
}
