import { gramPair } from '../domain/grams';
import { GramTable, type GramTableData } from './gram-table';
import { sharedArray, sharedCopy } from './shared-arrays';

/**
 * Trigram posting lists: the contacts (numbers, ascending) holding each gram. The grams are
 * those of the trigram table (grams.ts), so both ways of searching start from the same grams.
 *
 * Each list is kept as the gaps between its numbers, each gap a varint (7 bits a byte, the high
 * bit set on all but its last byte), the lists one after another in one byte array. A contact
 * holds some 70 grams; at 4 bytes a number the lists were more than half of the index's memory
 * (docs/performance.md, "The search index's memory"), and most gaps fit in one or two bytes. A
 * search decodes only the lists it walks: the shortest of its grams and those not much longer
 * (holdingAll), or those of a pair.
 */
export interface GramPostings {
  /**
   * The contacts holding the shortest posting list's gram and those of the others no longer
   * than INTERSECT_WITHIN times the contacts left (none when a gram indexes nobody), ascending: a
   * superset of those holding every gram, a subset of the shortest list.
   */
  holdingAll(grams: readonly number[]): Int32Array;
  /** every contact holding a gram of the given pair (gramPair), in number order */
  startingWith(pair: number, contacts: number): Int32Array;
}

/**
 * The posting lists as built (buildPostings), in shared memory: the gram table, each list's
 * length, and the lists as varint gaps one after another with where each one's bytes start.
 * postingsOver answers over them in any thread.
 */
export interface PostingsData {
  table: GramTableData;
  lengths: Int32Array;
  bytes: Uint8Array;
  starts: Float64Array;
}

/**
 * Builds the posting lists of `contacts` contacts, numbered 0 to contacts - 1, from the grams of
 * each (`gramsOf`: each gram once or more, in any order, read before its next call). Each
 * contact's grams are asked for twice, in number order: once to size each list's bytes, once to
 * write them. Nothing the size of all the postings exists but the lists themselves: a million
 * contacts hold some 60 million postings, 240 MB as 32-bit numbers, and a build that held them so
 * (with each contact's gram ids besides) took its process's RSS some 700 MiB up
 * (docs/performance.md, "The search index's build at a million contacts"). A gram repeated
 * within a contact is seen by its list's last number, so the grams need no sort.
 */
export async function buildPostings(contacts: number, gramsOf: (n: number) => ArrayLike<number>): Promise<PostingsData> {
  const table = new GramTable();
  let lengths = new Int32Array(1 << 16);
  // each list's bytes, then where its next byte goes; and its last number so far (-1: none)
  let sizes = new Float64Array(1 << 16);
  let last = new Int32Array(1 << 16).fill(-1);
  for (let n = 0; n < contacts; n++) {
    const grams = gramsOf(n);
    for (let i = 0; i < grams.length; i++) {
      const id = table.idOf(grams[i]);
      if (id === lengths.length) {
        lengths = grown(lengths, 0);
        sizes = grown(sizes, 0);
        last = grown(last, -1);
      }
      if (last[id] === n) continue;
      lengths[id]++;
      sizes[id] += varintBytes(n - last[id]);
      last[id] = n;
    }
    await breather(n);
  }
  const gramCount = table.size;
  const starts = sharedArray(Float64Array, gramCount + 1);
  for (let g = 0; g < gramCount; g++) starts[g + 1] = starts[g] + sizes[g];
  const bytes = sharedArray(Uint8Array, starts[gramCount]);
  sizes.set(starts.subarray(0, gramCount));
  last.fill(-1);
  for (let n = 0; n < contacts; n++) {
    const grams = gramsOf(n);
    for (let i = 0; i < grams.length; i++) {
      const id = table.get(grams[i]);
      if (last[id] === n) continue;
      let at = sizes[id];
      let gap = n - last[id];
      last[id] = n;
      while (gap >= 0x80) {
        bytes[at++] = (gap & 0x7f) | 0x80;
        gap >>>= 7;
      }
      bytes[at++] = gap;
      sizes[id] = at;
    }
    await breather(n);
  }
  return { table: table.shared(), lengths: sharedCopy(lengths.subarray(0, gramCount)), bytes, starts };
}

/** The answers over posting lists built by buildPostings, in this thread or another. */
export function postingsOver(data: PostingsData): GramPostings {
  const table = new GramTable(data.table);
  const { lengths } = data;
  const lists: EncodedLists = { bytes: data.bytes, starts: data.starts };
  // the grams of each pair (gramPair), for a two-character term's lists
  const byPair = new Map<number, number[]>();
  table.forEach((gram, id) => {
    const pair = gramPair(gram);
    const group = byPair.get(pair);
    if (group) group.push(id);
    else byPair.set(pair, [id]);
  });
  const list = (id: number) => decodeList(lists, id, lengths[id]);
  return {
    holdingAll(grams) {
      const ids: number[] = [];
      for (const gram of grams) {
        const id = table.get(gram);
        if (id < 0) return new Int32Array(0);
        ids.push(id);
      }
      if (ids.length === 0) return new Int32Array(0);
      ids.sort((a, b) => lengths[a] - lengths[b]);
      let held = list(ids[0]);
      // the shortest first; then each list while it is short beside the contacts left
      for (let i = 1; i < ids.length && lengths[ids[i]] <= INTERSECT_WITHIN * held.length; i++) held = intersected(lists, ids[i], lengths[ids[i]], held);
      return held;
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

/** The bytes of a gap as a varint (7 bits a byte). */
function varintBytes(gap: number): number {
  return gap < 0x80 ? 1 : gap < 0x4000 ? 2 : gap < 0x200000 ? 3 : gap < 0x10000000 ? 4 : 5;
}

/** The lists as varint gaps, one after another, and where each one's bytes start. */
interface EncodedLists {
  bytes: Uint8Array;
  starts: Float64Array;
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

/**
 * How much longer than the candidates so far a posting list may be and still be walked to take
 * out those it lacks (holdingAll). Decoding a number of a list costs some 10 ns, checking a
 * candidate's text some 200 (snapshot.ts), so a list 4 times as long pays for itself when it
 * takes out a fifth of them. At a million contacts the bench's 2,000 terms had 47 million
 * candidates from their shortest lists, 26 million matches; with this, each walk took about half
 * the CPU (docs/performance.md, "The search index's build at a million contacts").
 */
const INTERSECT_WITHIN = 4;

/**
 * The numbers of `held` (ascending) that list `id` (of which there are `length`) holds too.
 * walkList's loop written out again, to stop once `held` is passed: through walkList with a
 * visitor that could stop it, or through a reader object both loops call, finding a term's
 * candidates took a fifth longer at a million contacts (docs/performance.md, "Deep pages by
 * number").
 */
function intersected({ bytes, starts }: EncodedLists, id: number, length: number, held: Int32Array): Int32Array {
  const out = new Int32Array(held.length);
  let kept = 0;
  let next = 0;
  let at = starts[id];
  let value = -1;
  for (let n = 0; n < length && next < held.length; n++) {
    let gap = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[at++];
      gap |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    value += gap;
    while (next < held.length && held[next] < value) next++;
    if (next < held.length && held[next] === value) out[kept++] = held[next++];
  }
  return out.subarray(0, kept);
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

/** An array twice as long, its new half filled with `fill`. */
function grown<A extends Int32Array | Float64Array>(array: A, fill: number): A {
  const bigger = new (array.constructor as new (length: number) => A)(array.length * 2);
  bigger.set(array);
  bigger.fill(fill, array.length);
  return bigger;
}
