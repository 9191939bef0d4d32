import { gramPair } from '../data/grams';

/**
 * Trigram posting lists in one array: the contacts (numbers, ascending) of gram g are
 * `postings[offsets[g] .. offsets[g + 1])`. The grams are those of the trigram table
 * (grams.ts), so both ways of searching find the same candidates.
 */
export interface GramPostings {
  /** the shortest posting list among the grams (none when one of them indexes nobody) */
  rarest(grams: readonly number[]): Int32Array;
  /** every contact holding a gram of the given pair (gramPair), in number order */
  startingWith(pair: number, contacts: number): Int32Array;
}

const BLOCK_BITS = 20;
const BLOCK = 1 << BLOCK_BITS;

/** Two passes over numbers, not one list per gram, so a build of 100,000 contacts stays small. */
export class GramPostingsBuilder {
  private readonly gramIds = new Map<number, number>();
  private counts = new Int32Array(1 << 16);
  /** the gram ids of each contact, one contact after another (in blocks, never copied), and where each contact's end */
  private readonly blocks: Int32Array[] = [];
  private used = 0;
  private readonly slotEnds: number[] = [];

  /** `grams`: the contact's distinct grams (read at once, not kept) */
  add(slot: number, grams: ArrayLike<number>): void {
    for (let i = 0; i < grams.length; i++) {
      const gram = grams[i];
      let id = this.gramIds.get(gram);
      if (id === undefined) {
        id = this.gramIds.size;
        this.gramIds.set(gram, id);
        if (id === this.counts.length) this.counts = grown(this.counts);
      }
      this.counts[id]++;
      if (this.used === this.blocks.length * BLOCK) this.blocks.push(new Int32Array(BLOCK));
      this.blocks[this.used >> BLOCK_BITS][this.used & (BLOCK - 1)] = id;
      this.used++;
    }
    this.slotEnds[slot] = this.used;
  }

  async build(): Promise<GramPostings> {
    const gramCount = this.gramIds.size;
    const offsets = new Int32Array(gramCount + 1);
    for (let g = 0; g < gramCount; g++) offsets[g + 1] = offsets[g] + this.counts[g];
    const fill = offsets.slice(0, gramCount);
    const postings = new Int32Array(this.used);
    let start = 0;
    for (let slot = 0; slot < this.slotEnds.length; slot++) {
      const end = this.slotEnds[slot];
      for (let i = start; i < end; i++) postings[fill[this.blocks[i >> BLOCK_BITS][i & (BLOCK - 1)]]++] = slot;
      start = end;
      await breather(slot);
    }
    // the per-contact lists are in the postings now
    this.blocks.length = 0;
    const gramIds = this.gramIds;
    const byPair = new Map<number, number[]>();
    for (const [gram, id] of gramIds) {
      const pair = gramPair(gram);
      const group = byPair.get(pair);
      if (group) group.push(id);
      else byPair.set(pair, [id]);
    }
    const list = (id: number) => postings.subarray(offsets[id], offsets[id + 1]);
    return {
      rarest(grams) {
        let shortest: Int32Array | undefined;
        for (const gram of grams) {
          const id = gramIds.get(gram);
          if (id === undefined) return new Int32Array(0);
          if (shortest === undefined || offsets[id + 1] - offsets[id] < shortest.length) shortest = list(id);
        }
        return shortest ?? new Int32Array(0);
      },
      startingWith(pair, contacts) {
        const group = byPair.get(pair) ?? [];
        // one list needs no merge; several are merged by marks, in number order
        if (group.length === 1) return list(group[0]);
        const marks = new Uint8Array(contacts);
        let marked = 0;
        for (const id of group) {
          for (const slot of list(id)) {
            marked += 1 - marks[slot];
            marks[slot] = 1;
          }
        }
        const slots = new Int32Array(marked);
        for (let slot = 0, n = 0; n < marked; slot++) if (marks[slot]) slots[n++] = slot;
        return slots;
      },
    };
  }
}

/** Every 2,048 contacts a build lets other requests run (a slice takes about 10 ms). */
export async function breather(slot: number): Promise<void> {
  if ((slot & 2047) === 2047) await new Promise((resolve) => setImmediate(resolve));
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
