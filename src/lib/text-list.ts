/**
 * Many short texts (an import's 100,000 service numbers or sort names) kept as UTF-8 in a few
 * buffers of BLOCK bytes, each read back by its index: 8 bytes a text besides its own (up to 4 GiB in all),
 * where an array of strings takes 40 or more of heap a text.
 */

const BLOCK = 1 << 16;

export class TextList {
  private readonly blocks: Buffer[] = [];
  /** where text i starts, as block * BLOCK + offset, and its length in bytes */
  private readonly starts: Uint32Array;
  private readonly lengths: Uint32Array;
  private count = 0;
  private used = BLOCK;

  constructor(capacity: number) {
    this.starts = new Uint32Array(capacity);
    this.lengths = new Uint32Array(capacity);
  }

  get length(): number {
    return this.count;
  }

  /** Appends a text; returns its index. */
  push(text: string): number {
    const bytes = Buffer.byteLength(text);
    if (this.used + bytes > this.blocks.length * BLOCK || this.blocks.length === 0) {
      // a text never spans two blocks (one longer than a block has a block of its own size)
      this.blocks.push(Buffer.allocUnsafe(Math.max(BLOCK, bytes)));
      this.used = (this.blocks.length - 1) * BLOCK;
    }
    const block = this.blocks[this.blocks.length - 1];
    block.write(text, this.used % BLOCK, bytes);
    this.starts[this.count] = this.used;
    this.lengths[this.count] = bytes;
    this.used += bytes;
    return this.count++;
  }

  /** Text i. */
  get(i: number): string {
    const [block, start] = this.place(i);
    return block.toString('utf8', start, start + this.lengths[i]);
  }

  /**
   * Texts i and j in the order of their bytes, which for UTF-8 is the order of their code
   * points (compareCodePoints in text.ts), without making either a string. A text that was
   * not well-formed (a lone surrogate) was kept with U+FFFD in its place.
   */
  compare(i: number, j: number): number {
    const [a, b] = [this.starts[i], this.starts[j]];
    const [aBlock, bBlock] = [Math.floor(a / BLOCK), Math.floor(b / BLOCK)];
    const [aStart, bStart] = [a - aBlock * BLOCK, b - bBlock * BLOCK];
    return this.blocks[aBlock].compare(this.blocks[bBlock], bStart, bStart + this.lengths[j], aStart, aStart + this.lengths[i]);
  }

  private place(i: number): [Buffer, number] {
    const block = Math.floor(this.starts[i] / BLOCK);
    return [this.blocks[block], this.starts[i] - block * BLOCK];
  }
}
