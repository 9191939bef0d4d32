import { sharedCopy } from './shared-arrays';

/** A gram table's arrays and size (GramTable.shared), in shared memory: a walk thread's table over them is the same table. */
export interface GramTableData {
  grams: Float64Array;
  ids: Int32Array;
  size: number;
}

/**
 * The id of each gram (0, 1, 2, ... as first seen): an open-addressed hash table in two typed
 * arrays. A Map took a third of a build's time at a million contacts, its keys (up to 51 bits)
 * each a heap number.
 */
export class GramTable {
  private grams: Float64Array;
  /** -1: an empty place */
  private ids: Int32Array;
  size: number;

  /**
   * An empty table, in ordinary memory while it grows; or one over the arrays of another (its
   * `shared` data, in another thread, say), which neither then adds to.
   */
  constructor(data: GramTableData = { grams: new Float64Array(1 << 16), ids: new Int32Array(1 << 16).fill(-1), size: 0 }) {
    this.grams = data.grams;
    this.ids = data.ids;
    this.size = data.size;
  }

  /** The table's arrays copied to shared memory (shared-arrays.ts), once it is built: the copies it grew through were never shared. */
  shared(): GramTableData {
    return { grams: sharedCopy(this.grams), ids: sharedCopy(this.ids), size: this.size };
  }

  /** The id of a gram, -1 for one never seen. */
  get(gram: number): number {
    return this.ids[this.placeOf(gram)];
  }

  /** The id of a gram, a new one for a gram never seen. */
  idOf(gram: number): number {
    let at = this.placeOf(gram);
    if (this.ids[at] >= 0) return this.ids[at];
    // at most half full, so that a probe ends soon
    if (2 * (this.size + 1) > this.ids.length) {
      this.grow();
      at = this.placeOf(gram);
    }
    this.grams[at] = gram;
    this.ids[at] = this.size;
    return this.size++;
  }

  forEach(visit: (gram: number, id: number) => void): void {
    for (let at = 0; at < this.ids.length; at++) if (this.ids[at] >= 0) visit(this.grams[at], this.ids[at]);
  }

  /** The gram's place, or the empty one where it would go. */
  private placeOf(gram: number): number {
    const mask = this.ids.length - 1;
    // a gram is an integer below 2^51: its low 32 bits and the rest, mixed
    let h = Math.imul((gram >>> 0) ^ Math.imul(Math.floor(gram / 0x100000000), 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 15;
    let at = h & mask;
    while (this.ids[at] >= 0 && this.grams[at] !== gram) at = (at + 1) & mask;
    return at;
  }

  private grow(): void {
    const { grams, ids } = this;
    this.grams = new Float64Array(2 * grams.length);
    this.ids = new Int32Array(2 * ids.length).fill(-1);
    for (let at = 0; at < ids.length; at++) {
      if (ids[at] < 0) continue;
      const place = this.placeOf(grams[at]);
      this.grams[place] = grams[at];
      this.ids[place] = ids[at];
    }
  }
}
