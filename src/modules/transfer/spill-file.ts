import { readSync, writeSync } from 'node:fs';
import os from 'node:os';
import { closeNameless, openNameless, UploadStorageError, type NamelessFile } from './nameless-file';

/**
 * The file is read a page at a time, and the pages read last are kept (1 MiB): a pass over the
 * rows in order reads each page once. A read far from the last (a row found by its service
 * number) reads a page of its own: 4 KiB pages took 300,000 such reads of 100,000 rows in 0.74
 * to 0.83 s, 16 KiB pages in 1.07 to 1.16 s (0.4 s with the rows in memory).
 */
const PAGE = 4 * 1024;
const PAGES = 256;

/** The spill files not closed yet: each is closed when its owner is collected, if not before. */
const unclosed = new FinalizationRegistry<NamelessFile>((file) => {
  try {
    closeNameless(file);
  } catch {
    // a cleanup callback has no caller to tell: the process frees the descriptor when it ends
  }
});

/**
 * Bytes written to a file in the system's temporary directory (TMPDIR) at the offsets the caller
 * chooses, and read back from there, synchronously: the rows of an import past their first MiBs
 * (sheet-rows.ts), so that a file of 100,000 rows does not keep them all in the service's
 * memory (docs/performance.md, "An import's memory"). The file has no name (nameless-file.ts). One not
 * closed is closed when it is collected.
 */
export class SpillFile {
  /** the pages read, by number, the one used longest ago first */
  private readonly pages = new Map<number, Buffer>();
  private lastNumber = -1;
  private lastPage: Buffer | null = null;

  private constructor(
    private readonly file: NamelessFile,
    private readonly dir: string,
  ) {
    unclosed.register(this, this.file, this);
  }

  static open(tmpdir = os.tmpdir()): SpillFile {
    return new SpillFile(openNameless(tmpdir, 'rows'), tmpdir);
  }

  /** Writes `bytes` of `data` at `at`. */
  write(data: Buffer, bytes: number, at: number): void {
    try {
      for (let done = 0; done < bytes; ) done += writeSync(this.fd(), data, done, bytes - done, at + done);
    } catch (err) {
      throw new UploadStorageError(this.dir, err);
    }
  }

  /** The text of `bytes` bytes at `at`, as written. */
  read(at: number, bytes: number): string {
    const number = Math.floor(at / PAGE);
    const start = at - number * PAGE;
    if (start + bytes > PAGE) {
      const own = Buffer.allocUnsafe(bytes);
      if (this.fill(own, bytes, at) < bytes) throw new Error('the spilled rows ended early');
      return own.toString('utf8');
    }
    return this.page(number).toString('utf8', start, start + bytes);
  }

  close(): void {
    unclosed.unregister(this);
    closeNameless(this.file);
  }

  private fd(): number {
    if (this.file.fd === null) throw new Error('the spill file is closed');
    return this.file.fd;
  }

  /** Page `number`, from the cache or read into it (in place of the page used longest ago). */
  private page(number: number): Buffer {
    // most reads are of the page read last: no reordering for them
    if (number === this.lastNumber) return this.lastPage!;
    const page = this.cachedPage(number);
    [this.lastNumber, this.lastPage] = [number, page];
    return page;
  }

  private cachedPage(number: number): Buffer {
    const cached = this.pages.get(number);
    if (cached) {
      // the most recently used last
      this.pages.delete(number);
      this.pages.set(number, cached);
      return cached;
    }
    let page: Buffer;
    if (this.pages.size < PAGES) page = Buffer.allocUnsafeSlow(PAGE);
    else {
      const [oldest, buffer] = this.pages.entries().next().value as [number, Buffer];
      this.pages.delete(oldest);
      page = buffer;
    }
    // a page may end short where the file does: nothing is read past what was written
    this.fill(page, PAGE, number * PAGE);
    this.pages.set(number, page);
    return page;
  }

  /** Reads up to `length` bytes at `at` into `into`; how many there were. */
  private fill(into: Buffer, length: number, at: number): number {
    let got = 0;
    while (got < length) {
      const n = readSync(this.fd(), into, got, length - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return got;
  }
}
