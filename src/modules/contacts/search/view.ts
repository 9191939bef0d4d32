import { compareCodePoints } from '../../../lib/text';
import { conditionsOf, countInto, predicateOf, statistics, type Condition, type ContactFilters, type ContactStatistics, type OrdRange } from '../domain/filters';
import { listedMatch, searchRank } from './matching';
import type { ChangedContact, ChangedContacts, ChangedState } from './overlay';
import type { SearchSnapshot } from './snapshot';
import { Walkers } from './walkers';

type Filters = Omit<ContactFilters, 'search'>;

const byName = (a: { sortName: string; id: number }, b: { sortName: string; id: number }) => compareCodePoints(a.sortName, b.sortName) || a.id - b.id;
const byOrder = (a: ChangedContact, b: ChangedContact) => a.columns.tree_ord - b.columns.tree_ord || a.id - b.id;

/** Every walk in this thread: a view's walks when it is given no walk threads. */
const IN_THREAD = new Walkers({ threads: 0, from: 0 });

/**
 * What answers a search from memory: a snapshot, and the contacts changed since its build
 * (null: none, the snapshot is current). The snapshot's walks skip the changed contacts; each
 * answer adds those of them that match, as they are now, in their places: by name for the
 * search endpoint, by order key for a listing. Both are what SQL would answer at the version the
 * changed contacts were read up to. A term's walks run on `walkers` (walkers.ts), each with the
 * changed contacts as they were when it began (ChangedState), whatever is read while it runs.
 */
export class SearchView {
  constructor(
    private readonly snapshot: SearchSnapshot,
    private readonly changed: ChangedContacts | null,
    private readonly walkers: Walkers = IN_THREAD,
  ) {}

  /** How many changed contacts it adds to the snapshot's answers (0: the snapshot is current). */
  get changes(): number {
    return this.changed ? this.changed.contacts.size : 0;
  }

  /**
   * The search endpoint's matches of a lower-cased term (two or more characters, no SEPARATOR)
   * among the active contacts: exact service number or e-mail, then name prefix, then the rest,
   * each by name; the ids of the first `limit` and the count of all.
   */
  async search(needle: string, f: Filters, limit: number): Promise<{ ids: number[]; total: number }> {
    const now = this.now();
    const conditions = conditionsOf(f);
    const { ranked, total } = await this.walkers.run(this.snapshot, { walk: 'ranked', needle, conditions, limit, skip: now.skip });
    const admits = predicateOf(conditions);
    const added: ChangedContact[][] = [[], [], []];
    for (const c of now.contacts) {
      if (admits(c.columns) && c.text.includes(needle)) {
        added[searchRank(c.text, c.serviceNo, c.email, needle)].push(c);
      }
    }
    const ids: number[] = [];
    for (let rank = 0; rank < 3 && ids.length < limit; rank++) {
      let inRank = ranked[rank].map((slot) => ({ id: this.snapshot.idAt(slot), sortName: '' }));
      if (added[rank].length > 0) {
        for (const [i, slot] of ranked[rank].entries()) inRank[i].sortName = this.snapshot.sortNameAt(slot);
        inRank = [...inRank, ...added[rank]].sort(byName);
      }
      for (const m of inRank.slice(0, limit - ids.length)) ids.push(m.id);
    }
    return { ids, total: total + added[0].length + added[1].length + added[2].length };
  }

  /**
   * One page of a listing's matched set (the directory's pre-order): the ids at
   * [offset, offset + limit), and the counters over the whole set (statisticsOf's).
   */
  async listingPage(needle: string, f: Filters, range: OrdRange | undefined, page: { offset: number; limit: number }): Promise<{ ids: number[]; statistics: ContactStatistics }> {
    const now = this.now();
    const upTo = page.offset + page.limit;
    const conditions = conditionsOf(f, range);
    const { ranks, total, counts } = await this.walkers.run(this.snapshot, { walk: 'matched', needle, conditions, skip: now.skip, upTo });
    const added = this.listedChanges(needle, conditions, now.contacts);
    for (const c of added) countInto(counts, c.columns);
    return { ids: this.merged(ranks, added, page), statistics: statistics(total + added.length, counts) };
  }

  /**
   * One page of a listing without a search (the directory's pre-order): the ids at
   * [offset, offset + limit); its counters are statistics()'.
   */
  listingWindow(f: Filters, range: OrdRange | undefined, page: { offset: number; limit: number }): number[] {
    const ranks = this.snapshot.listedRanks(f, range, page.offset + page.limit, this.changed?.shadowed);
    return this.merged(ranks, this.listedChanges(null, conditionsOf(f, range), this.now().contacts), page);
  }

  /**
   * The ids at [offset, offset + limit) of the snapshot's places (ascending, at least the first
   * offset + limit of the set) merged with the changed contacts of the set (in the pre-order).
   */
  private merged(ranks: Int32Array, added: readonly ChangedContact[], page: { offset: number; limit: number }): number[] {
    const ids: number[] = [];
    const end = page.offset + page.limit;
    let i = 0;
    let j = 0;
    for (let at = 0; at < end && (i < ranks.length || j < added.length); at++) {
      if (j === added.length) {
        // the rest from the snapshot alone: place p is ranks[i + p - at]
        for (let k = i + Math.max(0, page.offset - at); k < Math.min(ranks.length, i + end - at); k++) ids.push(this.snapshot.idAt(this.snapshot.slotAtRank(ranks[k])));
        break;
      }
      let id: number;
      const slot = i < ranks.length ? this.snapshot.slotAtRank(ranks[i]) : -1;
      const fromSnapshot =
        j === added.length ||
        (slot >= 0 && (this.snapshot.treeOrdAt(slot) - added[j].columns.tree_ord || this.snapshot.idAt(slot) - added[j].id) < 0);
      if (fromSnapshot) {
        id = this.snapshot.idAt(slot);
        i++;
      } else {
        id = added[j++].id;
      }
      if (at >= page.offset) ids.push(id);
    }
    return ids;
  }

  /** The counters of a listing without a search, or of the statistics: over every contact that passes the filters (and lies in `range`). */
  statistics(f: Filters, range: OrdRange | undefined): ContactStatistics {
    const now = this.now();
    const conditions = conditionsOf(f, range);
    const { total, counts } = this.snapshot.counted(conditions, now.skip);
    const admits = predicateOf(conditions);
    let added = 0;
    for (const c of now.contacts) {
      if (!admits(c.columns)) continue;
      added++;
      countInto(counts, c.columns);
    }
    return statistics(total + added, counts);
  }

  /** The ids of a listing's matched set, in no useful order (a unit tree reads their rows afresh). */
  async listingIds(needle: string, f: Filters): Promise<number[]> {
    const now = this.now();
    const conditions = conditionsOf(f);
    const { ranks } = await this.walkers.run(this.snapshot, { walk: 'matched', needle, conditions, skip: now.skip });
    const ids = Array.from(ranks, (rank) => this.snapshot.idAt(this.snapshot.slotAtRank(rank)));
    for (const c of this.listedChanges(needle, conditions, now.contacts)) ids.push(c.id);
    return ids;
  }

  /** The changed contacts in a listing's matched set (null: a listing without a search), in the pre-order. */
  private listedChanges(needle: string | null, conditions: readonly Condition[], contacts: readonly ChangedContact[]): ChangedContact[] {
    const admits = predicateOf(conditions);
    const found: ChangedContact[] = [];
    for (const c of contacts) {
      if (admits(c.columns) && (needle === null || listedMatch(c.text, c.listedEnd, needle))) found.push(c);
    }
    return found.sort(byOrder);
  }

  /** The changed contacts now, and the slots a walk skips for them. */
  private now(): ChangedState {
    return this.changed ? this.changed.current() : UNCHANGED;
  }
}

const UNCHANGED: ChangedState = { skip: new Int32Array(0), contacts: [] };
