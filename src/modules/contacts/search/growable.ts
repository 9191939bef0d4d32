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
