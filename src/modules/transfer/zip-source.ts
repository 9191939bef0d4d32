import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

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
 * The upload could not be written to the temporary directory (full, missing, not writable): a
 * fault of the server, not of the file, answered as one (500, logged with its cause).
 */
export class UploadStorageError extends Error {
  constructor(dir: string, cause: unknown) {
    super(`The upload cannot be written to ${dir} while it is read: ${(cause as Error).message}`, { cause });
  }
}

/**
 * A stream written to a file in the system's temporary directory (`os.tmpdir()`: TMPDIR), and
 * read back from there. The file is unlinked as soon as it is open, where the system allows it
 * (Linux, macOS): it has no name while it is read, and the system frees it when the service
 * closes it or dies. Elsewhere it is removed on `close`.
 */
export class SpooledFile implements ZipSource {
  private constructor(
    private readonly handle: FileHandle,
    private readonly dir: string | null,
    public size: number,
  ) {}

  static async of(chunks: AsyncIterable<Buffer>, tmpdir = os.tmpdir()): Promise<SpooledFile> {
    const stored = <T>(step: Promise<T>) => step.catch((err: unknown) => Promise.reject(new UploadStorageError(tmpdir, err)));
    const dir = await stored(mkdtemp(path.join(tmpdir, 'directory-import-')));
    const handle = await stored(open(path.join(dir, 'upload.xlsx'), 'w+', 0o600)).catch(async (err: unknown) => {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    });
    const unlinked = await rm(dir, { recursive: true }).then(() => true, () => false);
    const file = new SpooledFile(handle, unlinked ? null : dir, 0);
    try {
      // an error of the stream (a client gone, a body past its limit) is the stream's, not the disk's
      for await (const chunk of chunks) {
        await stored(handle.write(chunk, 0, chunk.length, file.size));
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
      const { bytesRead } = await this.handle.read(bytes, got, length - got, at + got);
      if (bytesRead === 0) throw new Error('the spooled upload ended early');
      got += bytesRead;
    }
    return bytes;
  }

  async *chunks(start: number, end: number): AsyncGenerator<Buffer> {
    for (let at = start; at < end; at += CHUNK) yield await this.read(at, Math.min(CHUNK, end - at));
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    if (this.dir) await rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
