import { LRUCache } from 'lru-cache';
import { countsWithout, type SetCounts } from '../domain/filters';
import type { SearchSnapshot } from './snapshot';
import type { Walk, Walked } from './walk';

/** No slot skipped. */
const NONE = new Int32Array(0);

/** A search endpoint's walk as kept: the first `limit` slots of each rank, and the count of all. */
interface KeptRanked {
  ranked: number[][];
  total: number;
  limit: number;
}

/** A listing's walk as kept: the first places of its set, how many it holds, its counters. */
interface KeptMatched {
  ranks: Int32Array;
  total: number;
  counts: SetCounts;
}

/** What an entry costs beside its arrays: its object, its key's string, the cache's node. */
const ENTRY_BYTES = 200;

/**
 * The walks of one snapshot, kept by term and conditions (an LRU of at most `maxBytes`): a term
 * asked again over the same snapshot costs a look-up, not a walk over its candidates, which at a
 * million contacts is most of a search's CPU (docs/performance.md, "Walks kept"). lru-cache
 * bounds the entries by their bytes, which vary from a page's 400 to a unit tree's whole set.
 *
 * A snapshot never changes, but the contacts changed since its build do: each walk skips their
 * slots (`skip`, which only grows). So an entry is the walk with nothing skipped, and each
 * answer takes off the skipped slots that the walk would match, found by walking those slots
 * alone (snapshot.ts `among`): the counts lose them, the pages leave them out. When a page then
 * falls short of what was kept, the walk runs again, keeping that many more. The answer is
 * the one the walk with `skip` gives; the walker tests and the listing's property test
 * (list-search-index.test.ts) compare both with SQL.
 */
export class KeptWalks {
  private readonly kept: LRUCache<string, KeptRanked | KeptMatched>;

  constructor(maxBytes: number) {
    this.kept = new LRUCache({
      maxSize: maxBytes,
      // a unit tree's search keeps its whole set: one that large is walked each time, not kept
      maxEntrySize: Math.max(1, Math.floor(maxBytes / 32)),
      sizeCalculation: (entry, key) => ENTRY_BYTES + 2 * key.length + ('ranks' in entry ? entry.ranks.byteLength : 8 * (entry.ranked[0].length + entry.ranked[1].length + entry.ranked[2].length)),
    });
  }

  /** The walk's answer over the snapshot, as walkers.ts walkOn gives it, and whether it was kept. */
  run<W extends Walk>(snapshot: SearchSnapshot, w: W): Walked<W> {
    const key = `${w.walk}\u0000${w.needle}\u0000${JSON.stringify(w.conditions)}`;
    const skip = w.skip ?? NONE;
    const answer = w.walk === 'ranked' ? this.ranked(snapshot, key, w, skip) : this.matched(snapshot, key, w, skip);
    return answer as Walked<W>;
  }

  private ranked(snapshot: SearchSnapshot, key: string, w: Extract<Walk, { walk: 'ranked' }>, skip: Int32Array): Walked<Extract<Walk, { walk: 'ranked' }>> {
    const off = skip.length > 0 ? snapshot.ranked(w.needle, w.conditions, Number.POSITIVE_INFINITY, NONE, skip) : null;
    const found = this.kept.get(key) as KeptRanked | undefined;
    // a rank is complete when it kept fewer than its limit; else it must keep `limit` beyond the skipped
    const enough = (k: KeptRanked) => k.ranked.every((slots, rank) => slots.length < k.limit || slots.length - (off?.ranked[rank].length ?? 0) >= w.limit);
    const hit = found !== undefined && enough(found);
    const limit = w.limit + (off?.total ?? 0);
    const kept = hit ? found : this.keep(key, { ...snapshot.ranked(w.needle, w.conditions, limit), limit });
    const ranked = kept.ranked.map((slots, rank) => {
      if (!off || off.ranked[rank].length === 0) return slots.slice(0, w.limit);
      const skipped = new Set(off.ranked[rank]);
      return slots.filter((slot) => !skipped.has(slot)).slice(0, w.limit);
    });
    return { result: { ranked, total: kept.total - (off?.total ?? 0) }, kept: hit };
  }

  /** Keeps an entry (lru-cache leaves out one larger than its maxEntrySize) and gives it back. */
  private keep<E extends KeptRanked | KeptMatched>(key: string, entry: E): E {
    this.kept.set(key, entry);
    return entry;
  }

  private matched(snapshot: SearchSnapshot, key: string, w: Extract<Walk, { walk: 'matched' }>, skip: Int32Array): Walked<Extract<Walk, { walk: 'matched' }>> {
    const upTo = w.upTo ?? Number.POSITIVE_INFINITY;
    const off = skip.length > 0 ? snapshot.matchRanks(w.needle, w.conditions, NONE, Number.POSITIVE_INFINITY, skip) : null;
    const found = this.kept.get(key) as KeptMatched | undefined;
    // complete (every place kept), or enough places beyond the skipped ones
    const enough = (k: KeptMatched) => k.ranks.length === k.total || k.ranks.length - (off?.total ?? 0) >= upTo;
    const hit = found !== undefined && enough(found);
    const walk = () => {
      const walked = snapshot.matchRanks(w.needle, w.conditions, NONE, upTo + (off?.total ?? 0));
      // the places may view a larger array of the walk's (order.ts firstInOrder): kept in one of their own
      return { ...walked, ranks: walked.ranks.slice() };
    };
    const { ranks, total, counts } = hit ? found : this.keep(key, walk());
    if (!off) return { result: { ranks: ranks.subarray(0, Math.min(upTo, ranks.length)), total, counts: { ...counts } }, kept: hit };
    return { result: { ranks: without(ranks, off.ranks, upTo), total: total - off.total, counts: countsWithout(counts, off.counts) }, kept: hit };
  }
}

/** The first `upTo` of `ranks` that are not in `out` (both ascending). */
function without(ranks: Int32Array, out: Int32Array, upTo: number): Int32Array {
  const kept = new Int32Array(Math.min(upTo, ranks.length));
  let n = 0;
  let j = 0;
  for (let i = 0; i < ranks.length && n < kept.length; i++) {
    while (j < out.length && out[j] < ranks[i]) j++;
    if (j < out.length && out[j] === ranks[i]) continue;
    kept[n++] = ranks[i];
  }
  return kept.subarray(0, n);
}
