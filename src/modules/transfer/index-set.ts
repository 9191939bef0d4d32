/** A set of indexes (of shared strings) as bits: 1.3 million of them take 160 KB. */
export class IndexSet {
  private readonly words: Uint32Array;
  /** how many indexes of the set come before each word: built by the first `rank` */
  private before?: Uint32Array;
  size = 0;

  constructor(count: number) {
    this.words = new Uint32Array(Math.ceil(count / 32));
  }

  add(index: number): void {
    const bit = 1 << (index & 31);
    if (this.words[index >>> 5] & bit) return;
    this.words[index >>> 5] |= bit;
    this.size++;
    this.before = undefined;
  }

  has(index: number): boolean {
    return index >>> 5 < this.words.length && (this.words[index >>> 5] & (1 << (index & 31))) !== 0;
  }

  /** How many indexes of the set come before `index`. */
  rank(index: number): number {
    if (!this.before) {
      this.before = new Uint32Array(this.words.length);
      for (let w = 1; w < this.words.length; w++) this.before[w] = this.before[w - 1] + bitCount(this.words[w - 1]);
    }
    return this.before[index >>> 5] + bitCount(this.words[index >>> 5] & ((1 << (index & 31)) - 1));
  }
}

function bitCount(word: number): number {
  let n = 0;
  for (let w = word; w !== 0; w &= w - 1) n++;
  return n;
}
