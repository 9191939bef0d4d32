import { streamRows, type Db } from '../../../lib/db';
import { ROLE_ID } from '../../access';
import { statistics, type ContactFilters, type ContactStatistics, type RoleFilter } from '../read/listing.queries';
import type { OrdRange } from '../tree/lineage';
import { directoryVersions } from '../tree/lock';
import { LIST_SEARCH_FIELDS } from './candidates';
import { contactGramsView, gramQueryOf, gramPair, SEARCH_FIELDS, type SearchableFields } from './grams';
import { breather, GramPostingsBuilder, type GramPostings } from './postings';

/** Between the fields of a contact in its searchable text; a term holding it is left to SQL. */
export const SEPARATOR = '\u0000';

/**
 * A listing's `search` matches the first LISTED fields of a text (LIST_SEARCH_FIELDS is
 * SEARCH_FIELDS without the last, `mobile`): checked once, when this module loads.
 */
const LISTED: number = LIST_SEARCH_FIELDS.length;
if (LIST_SEARCH_FIELDS.some((field, i) => SEARCH_FIELDS[i] !== field)) throw new Error('LIST_SEARCH_FIELDS must begin SEARCH_FIELDS');

/** Where the listed fields of a text end: at the separator after the LISTED-th field, or its end. */
function listedEnd(text: string): number {
  if (LISTED === SEARCH_FIELDS.length) return text.length;
  let at = -1;
  for (let i = 0; i < LISTED; i++) at = text.indexOf(SEPARATOR, at + 1);
  return at;
}

/** As applyFilters (listing.queries.ts) reads role_filter. */
function roleAdmits(filter: RoleFilter, roleId: number): boolean {
  if (filter === 'super_admin') return roleId === ROLE_ID.superAdmin;
  if (filter === 'admin') return roleId === ROLE_ID.admin;
  return filter === 'all' || (roleId !== ROLE_ID.superAdmin && roleId !== ROLE_ID.admin);
}

interface SearchFilters {
  unit_id?: number;
  department_id?: number;
}

/** A match of a listing's search: what its page and its counters (statisticsOf) need. */
export interface ListedMatch {
  id: number;
  parent_id: number | null;
  role_id: number;
}

/** One entry per contact, by slot (name order). */
interface Columns {
  ids: number[];
  /** the lower-cased fields joined by SEPARATOR, the name first (SEARCH_FIELDS' order) */
  texts: string[];
  /** where the LISTED fields of each text end (listedEnd) */
  listedEnds: Int32Array;
  serviceNos: string[];
  emails: string[];
  unitIds: Float64Array;
  /** 0: no department */
  departmentIds: Float64Array;
  roleIds: Float64Array;
  /** 0: a root */
  parentIds: Float64Array;
  treeOrds: Float64Array;
  /** each slot's place in the directory's pre-order (tree_ord, then id), and the slot at each place */
  ranks: Int32Array;
  byRank: Int32Array;
  /** 1: active */
  active: Uint8Array;
}

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
 * listing, which uses the tree columns, needs both to be current.
 */
export class SearchSnapshot {
  private constructor(
    readonly version: number,
    readonly treeVersion: number,
    private readonly c: Columns,
    private readonly grams: GramPostings,
  ) {}

  /**
   * Reads the directory's versions, then all its contacts (inactive ones too, for the listings'
   * include_inactive): the contacts are at least as new as the versions (a change committed in
   * between only makes them newer), whatever the isolation level, and no transaction is held
   * open while they are read.
   */
  static async load(db: Db): Promise<SearchSnapshot> {
    const versions = await directoryVersions(db);
    const ids: number[] = [];
    const texts: string[] = [];
    const serviceNos: string[] = [];
    const emails: string[] = [];
    const numbers = { unit: [] as number[], department: [] as number[], role: [] as number[], parent: [] as number[], ord: [] as number[], active: [] as number[] };
    const grams = new GramPostingsBuilder();
    // in name order (sort_name is sortNameOf(name), compared byte-wise: by code point), then
    // id, each row numbered as it comes and not kept (streamRows: streamed on MySQL, one read on
    // SQLite, so that its only connection is not held for the build).
    // One statement: the tree columns are one consistent state of the tree.
    const query = db('users')
      .select('id', 'unit_id', 'department_id', 'role_id', 'parent_id', 'tree_ord', 'is_active', ...SEARCH_FIELDS)
      .orderBy([{ column: 'sort_name' }, { column: 'id' }]);
    for await (const row of streamRows(db, query)) {
      const slot = ids.length;
      ids.push(Number(row.id));
      serviceNos.push(String(row.service_no).toLowerCase());
      emails.push(String(row.email));
      numbers.unit.push(Number(row.unit_id));
      numbers.department.push(row.department_id === null ? 0 : Number(row.department_id));
      numbers.role.push(Number(row.role_id));
      numbers.parent.push(row.parent_id === null ? 0 : Number(row.parent_id));
      numbers.ord.push(Number(row.tree_ord));
      numbers.active.push(Number(row.is_active) ? 1 : 0);
      const fields = SEARCH_FIELDS.map((f) => (typeof row[f] === 'string' ? (row[f] as string).toLowerCase() : ''));
      texts.push(fields.join(SEPARATOR));
      grams.add(slot, contactGramsView(row as SearchableFields));
      await breather(slot);
    }
    const treeOrds = Float64Array.from(numbers.ord);
    // the pre-order once per build, so that a listing sorts its matches as integers
    const byRank = Int32Array.from(ids.keys()).sort((a, b) => treeOrds[a] - treeOrds[b] || ids[a] - ids[b]);
    const ranks = new Int32Array(ids.length);
    byRank.forEach((slot, rank) => {
      ranks[slot] = rank;
    });
    const columns: Columns = {
      ids,
      texts,
      listedEnds: Int32Array.from(texts, listedEnd),
      serviceNos,
      emails,
      unitIds: Float64Array.from(numbers.unit),
      departmentIds: Float64Array.from(numbers.department),
      roleIds: Float64Array.from(numbers.role),
      parentIds: Float64Array.from(numbers.parent),
      treeOrds,
      ranks,
      byRank,
      active: Uint8Array.from(numbers.active),
    };
    return new SearchSnapshot(versions.search_version, versions.version, columns, await grams.build());
  }

  /** Each contact holding a gram of the term (two or more characters), ascending: a superset of the matches. */
  private candidates(needle: string): Int32Array {
    const query = gramQueryOf(needle);
    return query.kind === 'prefix' ? this.grams.startingWith(gramPair(query.from), this.c.ids.length) : this.grams.rarest(query.grams);
  }

  /**
   * The matches of a lower-cased term (two or more characters, no SEPARATOR) among the active
   * contacts, ranked as the search endpoint ranks them: exact service number or e-mail, then
   * name prefix, then the rest, each by name; the ids of the first `limit` and the count of all.
   */
  search(needle: string, filters: SearchFilters, limit: number): { ids: number[]; total: number } {
    const { active, unitIds, departmentIds, texts, serviceNos, emails } = this.c;
    const ranked: number[][] = [[], [], []];
    let total = 0;
    const candidates = this.candidates(needle);
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i];
      if (!active[slot]) continue;
      if (filters.unit_id !== undefined && unitIds[slot] !== filters.unit_id) continue;
      if (filters.department_id !== undefined && departmentIds[slot] !== filters.department_id) continue;
      if (!texts[slot].includes(needle)) continue;
      total++;
      // the text starts with the lower-cased name, and a term (at most 100 characters, no
      // SEPARATOR) is a prefix of it exactly when it is one of the sort name
      const rank = serviceNos[slot] === needle || emails[slot] === needle ? 0 : texts[slot].startsWith(needle) ? 1 : 2;
      if (ranked[rank].length < limit) ranked[rank].push(slot);
    }
    const ids = [...ranked[0], ...ranked[1], ...ranked[2]].slice(0, limit).map((slot) => this.c.ids[slot]);
    return { ids, total };
  }

  /**
   * A listing's matched set, as searchSet (listing.queries.ts) computes it in SQL: the contacts
   * that pass the filters (and lie in `range`, the subtree of a parent_id) and hold the lower-cased
   * term in one of LIST_SEARCH_FIELDS, in the directory's pre-order. The order, the parents and
   * the range hold only while `treeVersion` is current; the set alone, while `version` is.
   */
  listing(needle: string, f: ContactFilters, range?: OrdRange): ListedMatch[] {
    const { ids, parentIds, roleIds, byRank } = this.c;
    return Array.from(this.matchRanks(needle, f, range).ranks, (rank) => {
      const slot = byRank[rank];
      return { id: ids[slot], parent_id: parentIds[slot] || null, role_id: roleIds[slot] };
    });
  }

  /**
   * One page of listing(): the ids at [offset, offset + limit) of the matched set, and the
   * counters over the whole set (statisticsOf's), without a record per match.
   */
  listingPage(needle: string, f: ContactFilters, range: OrdRange | undefined, page: { offset: number; limit: number }): { ids: number[]; statistics: ContactStatistics } {
    const { ranks, counts } = this.matchRanks(needle, f, range);
    const ids = Array.from(ranks.subarray(page.offset, page.offset + page.limit), (rank) => this.c.ids[this.c.byRank[rank]]);
    return { ids, statistics: statistics(ranks.length, counts.roots, counts.supers, counts.admins) };
  }

  /** The matches' places in the pre-order, ascending (a typed array sorts numbers natively), and what the counters need. */
  private matchRanks(needle: string, f: ContactFilters, range?: OrdRange) {
    const { active, unitIds, departmentIds, roleIds, parentIds, treeOrds, texts, listedEnds, ranks } = this.c;
    let found = new Int32Array(256);
    let n = 0;
    const counts = { roots: 0, supers: 0, admins: 0 };
    const candidates = this.candidates(needle);
    for (let i = 0; i < candidates.length; i++) {
      const slot = candidates[i];
      if (!f.include_inactive && !active[slot]) continue;
      if (f.unit_id !== undefined && unitIds[slot] !== f.unit_id) continue;
      if (f.department_id !== undefined && departmentIds[slot] !== f.department_id) continue;
      if (!roleAdmits(f.role_filter, roleIds[slot])) continue;
      if (range && !(treeOrds[slot] > range.after && treeOrds[slot] < range.before)) continue;
      // the first occurrence: a term holds no SEPARATOR, so it lies within one field
      const at = texts[slot].indexOf(needle);
      if (at < 0 || at >= listedEnds[slot]) continue;
      if (n === found.length) {
        const grown = new Int32Array(2 * n);
        grown.set(found);
        found = grown;
      }
      found[n++] = ranks[slot];
      if (!parentIds[slot]) counts.roots++;
      if (roleIds[slot] === 1) counts.supers++;
      else if (roleIds[slot] === 2) counts.admins++;
    }
    return { ranks: found.subarray(0, n).sort(), counts };
  }
}
