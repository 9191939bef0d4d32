import type { Db } from '../../../lib/db';
import { searchSet, statisticsOf } from '../data/listing.queries';
import type { DirectoryVersions } from '../data/tree/lock';
import { LIST_SEARCH_FIELDS } from '../domain/grams';
import type { SearchIndex } from './search-index';
import type { ContactFilters, ContactStatistics, OrdRange } from '../domain/filters';

type SearchFilters = ContactFilters & { search: string };

/**
 * The `search` of a listing (GET /api/contacts) and of a unit's tree: from the in-memory index
 * when it is current, as the search endpoint decides (ContactSearch), else in SQL; both give
 * the same set (snapshot.ts `listing`, listing.queries.ts `searchSet`). SQL answers a term of
 * one character or holding U+0000 (SearchIndex.at), every search while the index is older than
 * the directory, and every search with SEARCH_INDEX=sql (no index).
 */
export class ListSearch {
  private readonly db: Db;
  /** null: every search runs in SQL */
  private readonly index: SearchIndex | null;

  constructor(deps: { db: Db; index: SearchIndex | null }) {
    this.db = deps.db;
    this.index = deps.index;
  }

  /**
   * One page of a listing's matched set (the directory's pre-order) and the counters over the
   * whole set. The index answers only when it has reached the directory version as well as the
   * search version: its order keys and parents (the pre-order, the parent_id range, the root
   * counter) are then those of the tree. After a move, SQL answers until the next build.
   * `versions` are the request's, read with its session before this call: a snapshot that has
   * reached them holds every change they count.
   */
  async page(f: SearchFilters, versions: DirectoryVersions, range: OrdRange | undefined, page: { offset: number; limit: number }): Promise<{ ids: number[]; statistics: ContactStatistics }> {
    const needle = f.search.toLowerCase();
    const view = this.index && (await this.index.at(versions, needle, true));
    if (view) return view.listingPage(needle, f, range, page);
    const set = await searchSet(this.db, f, range, LIST_SEARCH_FIELDS);
    return { ids: set.slice(page.offset, page.offset + page.limit).map((m) => m.id), statistics: statisticsOf(set) };
  }

  /**
   * The ids of a unit tree's matches (in no useful order), or null when SQL should answer
   * (unit-tree.queries.ts `unitRows`). The caller reads their rows, with their places in the
   * tree, afresh: so the search version alone decides, exactly as for the search endpoint.
   */
  async unitMatchIds(f: SearchFilters & { unit_id: number }, versions: DirectoryVersions): Promise<number[] | null> {
    const needle = f.search.toLowerCase();
    const view = this.index && (await this.index.at(versions, needle));
    return view ? view.listingIds(needle, f) : null;
  }
}
