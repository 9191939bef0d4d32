import { gramPair } from '../data/grams';

/**
 * Trigram posting lists: the contacts (numbers, ascending) holding each gram. The grams are
 * those of the trigram table (grams.ts), so both ways of searching find the same candidates.
 *
 * Each list is kept as the gaps between its numbers, each gap a varint (7 bits a byte, the high
 * bit set on all but its last byte), the lists one after another in one byte array. A contact
 * holds some 70 grams; at 4 bytes a number the lists were more than half of the index's memory
 * (docs/performance.md, "The search index's memory"), and most gaps fit in one or two bytes. A
 * search decodes only the lists it walks: the shortest of its grams, or those of a pair.
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
  private readonly ends: number[] = [];

  /**
   * The `n`-th contact added (from 0, one after another), its distinct grams (read at once, not
   * kept). Its slot is `n`, unless build() is given another order.
   */
  add(n: number, grams: ArrayLike<number>): void {
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
    this.ends[n] = this.used;
  }

  /** The postings, each list ascending by slot; `order` gives the contact added at each slot (by default, as added). */
  async build(order?: Int32Array): Promise<GramPostings> {
    const gramCount = this.gramIds.size;
    const offsets = new Int32Array(gramCount + 1);
    for (let g = 0; g < gramCount; g++) offsets[g + 1] = offsets[g] + this.counts[g];
    const fill = offsets.slice(0, gramCount);
    const postings = new Int32Array(this.used);
    for (let slot = 0; slot < this.ends.length; slot++) {
      const n = order ? order[slot] : slot;
      const end = this.ends[n];
      for (let i = n === 0 ? 0 : this.ends[n - 1]; i < end; i++) postings[fill[this.blocks[i >> BLOCK_BITS][i & (BLOCK - 1)]]++] = slot;
      await breather(slot);
    }
    // the per-contact lists are in the postings now
    this.blocks.length = 0;
    const lists = await encodeLists(postings, offsets);
    const lengths = this.counts.slice(0, gramCount);
    const gramIds = this.gramIds;
    const byPair = new Map<number, number[]>();
    for (const [gram, id] of gramIds) {
      const pair = gramPair(gram);
      const group = byPair.get(pair);
      if (group) group.push(id);
      else byPair.set(pair, [id]);
    }
    const list = (id: number) => decodeList(lists, id, lengths[id]);
    return {
      rarest(grams) {
        let shortest = -1;
        for (const gram of grams) {
          const id = gramIds.get(gram);
          if (id === undefined) return new Int32Array(0);
          if (shortest < 0 || lengths[id] < lengths[shortest]) shortest = id;
        }
        return shortest < 0 ? new Int32Array(0) : list(shortest);
      },
      startingWith(pair, contacts) {
        const group = byPair.get(pair) ?? [];
        // one list needs no merge; several are merged by marks, in number order
        if (group.length === 1) return list(group[0]);
        const marks = new Uint8Array(contacts);
        let marked = 0;
        for (const id of group) marked += markList(lists, id, lengths[id], marks);
        const slots = new Int32Array(marked);
        for (let slot = 0, n = 0; n < marked; slot++) if (marks[slot]) slots[n++] = slot;
        return slots;
      },
    };
  }
}

/** The lists as varint gaps, one after another, and where each one's bytes start. */
interface EncodedLists {
  bytes: Uint8Array;
  starts: Float64Array;
}

/** Encodes each list `postings[offsets[g] .. offsets[g + 1])` (ascending numbers) as varint gaps from -1. */
async function encodeLists(postings: Int32Array, offsets: Int32Array): Promise<EncodedLists> {
  const gramCount = offsets.length - 1;
  const starts = new Float64Array(gramCount + 1);
  // at most 5 bytes a number; grown when needed, trimmed at the end
  let bytes = new Uint8Array(Math.max(16, postings.length * 2));
  let at = 0;
  for (let g = 0; g < gramCount; g++) {
    starts[g] = at;
    if (bytes.length - at < 5 * (offsets[g + 1] - offsets[g])) {
      const bigger = new Uint8Array(Math.max(2 * bytes.length, at + 5 * (offsets[g + 1] - offsets[g])));
      bigger.set(bytes.subarray(0, at));
      bytes = bigger;
    }
    let previous = -1;
    for (let i = offsets[g]; i < offsets[g + 1]; i++) {
      let gap = postings[i] - previous;
      previous = postings[i];
      while (gap >= 0x80) {
        bytes[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      bytes[at++] = gap;
    }
    await breather(g);
  }
  starts[gramCount] = at;
  return { bytes: bytes.slice(0, at), starts };
}

/** Calls `visit` with each number of list `id` (of which there are `length`), ascending: its varint gaps decoded. */
function walkList({ bytes, starts }: EncodedLists, id: number, length: number, visit: (value: number, n: number) => void): void {
  let at = starts[id];
  let value = -1;
  for (let n = 0; n < length; n++) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++];
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    value += gap;
    visit(value, n);
  }
}

/** Marks the numbers of list `id` (of which there are `length`) in `marks`; how many were not marked before. */
function markList(lists: EncodedLists, id: number, length: number, marks: Uint8Array): number {
  let marked = 0;
  walkList(lists, id, length, (value) => {
    marked += 1 - marks[value];
    marks[value] = 1;
  });
  return marked;
}

/** The numbers of list `id`, of which there are `length`. */
function decodeList(lists: EncodedLists, id: number, length: number): Int32Array {
  const out = new Int32Array(length);
  walkList(lists, id, length, (value, n) => {
    out[n] = value;
  });
  return out;
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
