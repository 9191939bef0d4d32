import { gramQueryOf, gramPair } from '../domain/grams';
import { conditionsOf, counterOver, countsWithout, predicateOver, type Condition, type ContactFilters, type OrdRange, type SetCounts } from '../domain/filters';
import { columnReader, countSlot, walkFilter } from './slot-tests';
import type { Columns, SnapshotData } from './snapshot-data';
import { bytesInclude, rarestByte, sortNameOfText, termBytes, textRank } from './matching';
import { postingsOver, type GramPostings } from './postings';
import { firstInOrder } from './order';

/** How many filters' counts over a whole snapshot it keeps (counted). */
const COUNTS_KEPT = 256;

/** No slot skipped. */
const NONE = new Int32Array(0);

/**
 * The directory at one version, held for searches: each contact's searchable fields
 * (lower-cased, in one string), what ranks it, what the listings filter and count by (unit,
 * department, role, activity, parent, order key), and an inverted index from every trigram of
 * those fields to the contacts holding it. Contacts are numbered in name order (sort_name, then
 * id), so each posting list, and so each walk over matches, is in the order the search
 * endpoint ranks in within a rank: a page needs no sort.
 *
 * `version` is the search version it reflects (enough for what a search shows), `treeVersion`
 * the directory version (a move changes parents and order keys, and bumps only that one): a
 * listing, which uses the tree columns, needs both to be current, or the contacts changed since
 * read afresh (overlay.ts). Each walk takes `skip`, the slots of those contacts, ascending.
 * Made over its data in the thread that built it and in each walk thread.
 */
export class SearchSnapshot {
  readonly serial: number;
  readonly version: number;
  readonly treeVersion: number;
  private readonly c: Columns;
  private readonly grams: GramPostings;

  constructor(readonly data: SnapshotData) {
    ({ serial: this.serial, version: this.version, treeVersion: this.treeVersion } = data);
    const { texts } = data.columns;
    // a Buffer posted to another thread arrives as a Uint8Array over the same memory
    const posted: Uint8Array = texts.bytes;
    const bytes = Buffer.isBuffer(posted) ? posted : Buffer.from(posted.buffer, posted.byteOffset, posted.byteLength);
    this.c = { ...data.columns, texts: { ...texts, bytes } };
    this.grams = postingsOver(data.postings);
  }

  /** How many contacts it holds (its slots are 0 to size - 1). */
  get size(): number {
    return this.c.ids.length;
  }

  /** The slot of a contact, or -1 for one it does not hold (added since). */
  slotOf(id: number): number {
    const { byId, ids } = this.c;
    let lo = 0;
    let hi = byId.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = ids[byId[mid]];
      if (at === id) return byId[mid];
      if (at < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  idAt(slot: number): number {
    return this.c.ids[slot];
  }

  sortNameAt(slot: number): string {
    const { texts, fieldStarts } = this.c;
    const start = texts.starts[slot];
    // the name ends one before the e-mail starts
    return sortNameOfText(texts.bytes.toString('utf8', start, start + fieldStarts[3 * slot] - 1));
  }

  /** The slot at a place of the pre-order, and its order key. */
  slotAtRank(rank: number): number {
    return this.c.byRank[rank];
  }

  treeOrdAt(slot: number): number {
    return this.c.treeOrds[slot];
  }

  /** Contacts that may hold the term (two or more characters), ascending: a superset of the matches (postings.ts holdingAll, startingWith). */
  private candidates(needle: string): Int32Array {
    const query = gramQueryOf(needle);
    return query.kind === 'prefix' ? this.grams.startingWith(gramPair(query.from), this.c.ids.length) : this.grams.holdingAll(query.grams);
  }

  /**
   * The search endpoint's matches of a lower-cased term (two or more characters, no SEPARATOR)
   * among the contacts, but those in `skip`, that pass the conditions (domain/filters.ts
   * conditionsOf): for each rank (matching.ts searchRank) the first `limit` slots, in name
   * order, and the count of all. `among` (ascending) tests those slots instead of the term's
   * candidates: which of them the walk would match (kept-walks.ts).
   */
  ranked(needle: string, conditions: readonly Condition[], limit: number, skip: Int32Array = NONE, among?: Int32Array): { ranked: number[][]; total: number } {
    const { texts, emailCased, fieldStarts } = this.c;
    const { bytes, words, starts: textStarts } = texts;
    const term = termBytes(needle);
    const anchor = rarestByte(term, texts.byteCounts);
    const starts = { email: 0, service: 0, phone: 0 };
    const { active } = this.c;
    const { activeOnly, others } = walkFilter(conditions, this.column);
    const ranked: number[][] = [[], [], []];
    let total = 0;
    const candidates = among ?? this.candidates(needle);
    // the skipped slots and the candidates are both ascending: `skipped` is the first skipped slot not below the candidate
    let skipped = 0;
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i];
      const start = textStarts[slot];
      while (skipped < skip.length && skip[skipped] < slot) skipped++;
      if ((skipped < skip.length && skip[skipped] === slot) || (activeOnly && active[slot] !== 1) || (others !== null && !others(slot))) continue;
      if (!bytesInclude(bytes, words, start, textStarts[slot + 1], term, anchor)) continue;
      total++;
      starts.email = fieldStarts[3 * slot];
      starts.service = fieldStarts[3 * slot + 1];
      starts.phone = fieldStarts[3 * slot + 2];
      const rank = textRank(bytes, start, starts, emailCased[slot] === 0, term);
      if (ranked[rank].length < limit) ranked[rank].push(slot);
    }
    return { ranked, total };
  }

  /**
   * A listing's matches, as searchSet (listing.queries.ts) computes them in SQL: the contacts,
   * but those in `skip`, that pass the conditions (the filters, and a parent_id's subtree range)
   * and hold the lower-cased term in one of LIST_SEARCH_FIELDS. The first `upTo` of their places
   * in the pre-order, ascending (firstInOrder), how many they are, and the counters over them.
   * `among` as for ranked().
   */
  matchRanks(needle: string, conditions: readonly Condition[], skip: Int32Array = NONE, upTo = Number.POSITIVE_INFINITY, among?: Int32Array): { ranks: Int32Array; total: number; counts: SetCounts } {
    const { texts, listedEnds, ranks, active } = this.c;
    const { bytes, words, starts } = texts;
    const term = termBytes(needle);
    const anchor = rarestByte(term, texts.byteCounts);
    const { activeOnly, others } = walkFilter(conditions, this.column);
    let found = new Int32Array(256);
    let n = 0;
    const counts: SetCounts = { roots: 0, supers: 0, admins: 0 };
    const candidates = among ?? this.candidates(needle);
    let skipped = 0;
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i];
      while (skipped < skip.length && skip[skipped] < slot) skipped++;
      if (skipped < skip.length && skip[skipped] === slot) continue;
      // a term holds no SEPARATOR: it lies in a listed field when it lies before their end
      if ((activeOnly && active[slot] !== 1) || (others !== null && !others(slot))) continue;
      if (!bytesInclude(bytes, words, starts[slot], starts[slot] + listedEnds[slot], term, anchor)) continue;
      if (n === found.length) {
        const grown = new Int32Array(2 * n);
        grown.set(found);
        found = grown;
      }
      found[n++] = ranks[slot];
      countSlot(this.c, counts, slot);
    }
    return { ranks: firstInOrder(found.subarray(0, n), upTo, this.size), total: n, counts };
  }

  /**
   * A listing without a search: the places in the pre-order of its first `upTo` contacts, but
   * those in `skip`, that pass the filters (and lie in `range`), ascending. A walk of the
   * pre-order from the range's start (or the directory's) that stops at the `upTo`th: a page
   * far down costs a pass over the typed arrays up to it, not an SQL OFFSET, which reads every
   * index entry before the page (docs/performance.md, "Deep pages by number").
   */
  listedRanks(f: Omit<ContactFilters, 'search'>, range: OrdRange | undefined, upTo: number, skip?: Uint8Array): Int32Array {
    const { byRank, treeOrds, active } = this.c;
    const { activeOnly, others } = walkFilter(conditionsOf(f, range), this.column);
    const out = new Int32Array(Math.min(upTo, this.size));
    let n = 0;
    let rank = range ? this.firstRankAfter(range.after) : 0;
    for (; rank < byRank.length && n < out.length; rank++) {
      const slot = byRank[rank];
      if (range && treeOrds[slot] >= range.before) break;
      if (skip?.[slot] || (activeOnly && active[slot] !== 1) || (others !== null && !others(slot))) continue;
      out[n++] = rank;
    }
    return out.subarray(0, n);
  }

  /** The first place in the pre-order whose order key is above `ord`. */
  private firstRankAfter(ord: number): number {
    const { byRank, treeOrds } = this.c;
    let lo = 0;
    let hi = byRank.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (treeOrds[byRank[mid]] <= ord) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The counters over every contact, but those in `skip` (slots, each once), that passes the
   * conditions (the filters, and a subtree's range): what countStatistics (listing.queries.ts) counts in SQL. The
   * counts over all the snapshot's contacts take one pass over the arrays, made once per filter
   * and kept (the snapshot never changes); each call then takes off the skipped slots that
   * pass, so under a stream of writes, which change the directory's version and skip more
   * contacts, the statistics cost the contacts changed since the build, not the directory.
   */
  counted(conditions: readonly Condition[], skip: Int32Array = NONE): { total: number; counts: SetCounts } {
    const admits = predicateOver(conditions, this.column);
    const count = counterOver(this.column);
    const key = JSON.stringify(conditions);
    let whole = this.wholeCounts.get(key);
    if (!whole) {
      whole = { total: 0, counts: { roots: 0, supers: 0, admins: 0 } };
      for (let slot = 0; slot < this.c.ids.length; slot++) {
        if (!admits(slot)) continue;
        whole.total++;
        count(whole.counts, slot);
      }
      // a listing's subtree ranges are many: keep the most recent few hundred filters
      if (this.wholeCounts.size >= COUNTS_KEPT) this.wholeCounts.delete(this.wholeCounts.keys().next().value!);
      this.wholeCounts.set(key, whole);
    }
    const off: SetCounts = { roots: 0, supers: 0, admins: 0 };
    let total = whole.total;
    for (const slot of skip) {
      if (!admits(slot)) continue;
      total--;
      count(off, slot);
    }
    return { total, counts: countsWithout(whole.counts, off) };
  }

  /** counted()'s passes over the whole snapshot, by filter (conditionsOf as JSON), oldest first */
  private readonly wholeCounts = new Map<string, { total: number; counts: SetCounts }>();

  /** Reads a filtered column of a slot straight from its typed array (no object per candidate). */
  private readonly column = columnReader(() => this.c);
}
