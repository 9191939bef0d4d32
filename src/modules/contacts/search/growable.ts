/**
 * A typed array filled one number at a time, its length not known in advance (a build of the
 * search index reads its contacts as a stream): it doubles when full and hands back a copy of
 * exactly its length. A number[] would take 8 bytes a number and more while it grows.
 */
export class Growable<A extends Int32Array | Float64Array | Uint8Array | Uint16Array> {
  private array: A;
  length = 0;

  constructor(private readonly make: (length: number) => A) {
    this.array = make(1024);
  }

  push(value: number): void {
    if (this.length === this.array.length) {
      const bigger = this.make(this.array.length * 2);
      bigger.set(this.array);
      this.array = bigger;
    }
    this.array[this.length++] = value;
  }

  /** The numbers pushed, in an array of their length (the buffer it grew in is let go). */
  finish(): A {
    const done = this.array.slice(0, this.length) as A;
    this.array = this.make(0);
    return done;
  }
}

/** The bytes of a chunk of GrowableTexts: far more than any one text (some hundreds of bytes, a few KiB at most). */
const CHUNK_BYTES = 4 << 20;

/**
 * Texts as UTF-8, added one at a time as rows stream in, in chunks of ordinary memory (none is
 * copied as more come), each text whole in one chunk; copied once the build knows where each
 * goes (columns.ts encodeTexts), then let go. Held as a million strings instead, the texts were
 * some 110 MiB of V8's heap until a full collection, which nothing ran once the memory they were
 * copied into was a SharedArrayBuffer: V8 counts ordinary array buffers towards its next
 * collection, not shared ones (docs/performance.md, "Walks on a thread of their own").
 */
export class GrowableTexts {
  private readonly chunks: Buffer[] = [];
  /** where the next text goes in the last chunk */
  private end = CHUNK_BYTES;
  /** each text's chunk, its start in it and its length in bytes */
  private readonly chunkOf = new Growable((n) => new Int32Array(n));
  private readonly startOf = new Growable((n) => new Int32Array(n));
  private readonly lengthOf = new Growable((n) => new Int32Array(n));
  /** the bytes of all texts added */
  bytes = 0;

  push(text: string): void {
    const length = Buffer.byteLength(text, 'utf8');
    if (this.end + length > CHUNK_BYTES) {
      this.chunks.push(Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, length)));
      this.end = 0;
    }
    this.chunks[this.chunks.length - 1].write(text, this.end, 'utf8');
    this.chunkOf.push(this.chunks.length - 1);
    this.startOf.push(this.end);
    this.lengthOf.push(length);
    this.end += length;
    this.bytes += length;
  }

  /** The texts added, to be copied out: text `n` (the nth added) into `target` at `at`, its length in bytes returned. */
  finish(): { copyTo(n: number, target: Uint8Array, at: number): number } {
    const chunks = this.chunks.splice(0);
    const [chunkOf, startOf, lengthOf] = [this.chunkOf.finish(), this.startOf.finish(), this.lengthOf.finish()];
    return {
      copyTo(n, target, at) {
        target.set(chunks[chunkOf[n]].subarray(startOf[n], startOf[n] + lengthOf[n]), at);
        return lengthOf[n];
      },
    };
  }
}
