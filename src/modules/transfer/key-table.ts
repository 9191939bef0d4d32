/**
 * Texts of a file's rows (service numbers, e-mails) to the index of the row that holds each,
 * on typed arrays: a slot holds the row's index and the text's hash, and a hit is confirmed by
 * reading the text from its row again (`keyOf`). A Map of 100,000 strings takes some 8 MiB of
 * heap, the strings included; this takes 2 MiB and no string.
 */
export class KeyTable {
  /** row index + 1 in each slot, 0 for an empty one */
  private readonly slots: Int32Array;
  private readonly hashes: Uint32Array;
  private readonly mask: number;

  constructor(
    count: number,
    private readonly keyOf: (index: number) => string | null | undefined,
  ) {
    let size = 16;
    while (size < count * 2) size *= 2;
    this.slots = new Int32Array(size);
    this.hashes = new Uint32Array(size);
    this.mask = size - 1;
  }

  /** The index of the row that holds `key`, or undefined. */
  get(key: string): number | undefined {
    const hash = hashOf(key);
    for (let at = hash & this.mask; this.slots[at] !== 0; at = (at + 1) & this.mask) {
      if (this.hashes[at] === hash && this.keyOf(this.slots[at] - 1) === key) return this.slots[at] - 1;
    }
    return undefined;
  }

  /** Notes that row `index` holds `key`, which no row held before (get said so). */
  add(key: string, index: number): void {
    const hash = hashOf(key);
    let at = hash & this.mask;
    while (this.slots[at] !== 0) at = (at + 1) & this.mask;
    this.slots[at] = index + 1;
    this.hashes[at] = hash;
  }
}

/** FNV-1a over the UTF-16 code units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
