/**
 * Texts (service numbers, e-mails) to the index of the item that holds each, for many items
 * (an import's 100,000 rows), on typed arrays: a slot holds the item's index and the text's
 * hash, and a hit is confirmed by reading the text of its item again (`keyOf`). A Map of
 * 100,000 strings takes some 8 MiB of heap, the strings included; this takes 2 MiB and no string.
 */
export class KeyTable {
  /** item index + 1 in each slot, 0 for an empty one */
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

  /** The index of the item that holds `key`, or undefined. */
  get(key: string): number | undefined {
    const at = this.slotOf(key, hashOf(key));
    return this.slots[at] === 0 ? undefined : this.slots[at] - 1;
  }

  /** Notes that item `index` holds `key`, which no item held before (get said so). */
  add(key: string, index: number): void {
    const hash = hashOf(key);
    let at = hash & this.mask;
    while (this.slots[at] !== 0) at = (at + 1) & this.mask;
    this.slots[at] = index + 1;
    this.hashes[at] = hash;
  }

  /** Notes that item `index` holds `key`, in place of any item that held it before (as Map.set). */
  put(key: string, index: number): void {
    const hash = hashOf(key);
    const at = this.slotOf(key, hash);
    this.slots[at] = index + 1;
    this.hashes[at] = hash;
  }

  /** The slot that holds `key`, or the empty slot where it would go. */
  private slotOf(key: string, hash: number): number {
    let at = hash & this.mask;
    while (this.slots[at] !== 0 && !(this.hashes[at] === hash && this.keyOf(this.slots[at] - 1) === key)) at = (at + 1) & this.mask;
    return at;
  }
}

/** FNV-1a over the UTF-16 code units. */
function hashOf(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
