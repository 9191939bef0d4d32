import { dialectOf, type Db } from '../../../lib/db';
import { searchVersion } from '../tree/lock';
import { contactGrams, gramQueryOf, gramPair, SEARCH_FIELDS, type SearchableFields } from './grams';
import { breather, GramPostingsBuilder, type GramPostings } from './postings';

/** Between the fields of a contact in its searchable text; a term holding it is left to SQL. */
export const SEPARATOR = '\u0000';

interface SearchFilters {
  unit_id?: number;
  department_id?: number;
}

/**
 * The active directory at one search version, held for the search endpoint: each active contact's
 * searchable fields (lower-cased, in one string), what ranks it, and an inverted index from
 * every trigram of those fields to the contacts holding it. Contacts are numbered in name
 * order (sort_name, then id), so each posting list, and so each walk over matches, is in the
 * order the results are ranked in within a rank: a page needs no sort.
 */
export class SearchSnapshot {
  private constructor(
    readonly version: number,
    private readonly ids: number[],
    /** the lower-cased fields joined by SEPARATOR, the name first */
    private readonly texts: string[],
    private readonly serviceNos: string[],
    private readonly emails: string[],
    private readonly unitIds: Float64Array,
    private readonly departmentIds: Float64Array,
    private readonly grams: GramPostings,
  ) {}

  /**
   * Reads the directory's search version, then its active contacts: the contacts are at least as new
   * as the version (a change committed in between only makes them newer), whatever the
   * isolation level, and no transaction is held open while they are read.
   */
  static async load(db: Db): Promise<SearchSnapshot> {
    const version = await searchVersion(db);
    const ids: number[] = [];
    const texts: string[] = [];
    const serviceNos: string[] = [];
    const emails: string[] = [];
    const unitIds: number[] = [];
    const departmentIds: number[] = [];
    const grams = new GramPostingsBuilder();
    // in name order (sort_name is sortNameOf(name), compared byte-wise: by code point), then
    // id. MySQL streams them, each row numbered as it comes and not kept; SQLite reads them in
    // one call (its driver does anyway), so that its only connection is not held for the build.
    const query = db('users')
      .where({ is_active: true })
      .select('id', 'unit_id', 'department_id', ...SEARCH_FIELDS)
      .orderBy([{ column: 'sort_name' }, { column: 'id' }]);
    const rows: AsyncIterable<Record<string, unknown>> | Array<Record<string, unknown>> =
      dialectOf(db) === 'mysql' ? query.stream() : await query;
    for await (const row of rows) {
      const slot = ids.length;
      ids.push(Number(row.id));
      serviceNos.push(String(row.service_no).toLowerCase());
      emails.push(String(row.email));
      unitIds.push(Number(row.unit_id));
      departmentIds.push(row.department_id === null ? 0 : Number(row.department_id));
      const fields = SEARCH_FIELDS.map((f) => (typeof row[f] === 'string' ? (row[f] as string).toLowerCase() : ''));
      texts.push(fields.join(SEPARATOR));
      grams.add(slot, contactGrams(row as SearchableFields));
      await breather(slot);
    }
    return new SearchSnapshot(version, ids, texts, serviceNos, emails, Float64Array.from(unitIds), Float64Array.from(departmentIds), await grams.build());
  }

  /**
   * The matches of a lower-cased term (two or more characters, no SEPARATOR), ranked as the
   * search endpoint ranks them: exact service number or e-mail, then name prefix, then the
   * rest, each by name; the ids of the first `limit` and the count of all.
   */
  search(needle: string, filters: SearchFilters, limit: number): { ids: number[]; total: number } {
    const ranked: number[][] = [[], [], []];
    let total = 0;
    const visit = (slot: number) => {
      if (filters.unit_id !== undefined && this.unitIds[slot] !== filters.unit_id) return;
      if (filters.department_id !== undefined && this.departmentIds[slot] !== filters.department_id) return;
      if (!this.texts[slot].includes(needle)) return;
      total++;
      // the text starts with the lower-cased name, and a term (at most 100 characters, no
      // SEPARATOR) is a prefix of it exactly when it is one of the sort name
      const rank = this.serviceNos[slot] === needle || this.emails[slot] === needle ? 0 : this.texts[slot].startsWith(needle) ? 1 : 2;
      if (ranked[rank].length < limit) ranked[rank].push(slot);
    };
    const query = gramQueryOf(needle);
    if (query.kind === 'prefix') this.grams.forEachStartingWith(gramPair(query.from), this.ids.length, visit);
    else for (const slot of this.grams.rarest(query.grams)) visit(slot);
    const ids = [...ranked[0], ...ranked[1], ...ranked[2]].slice(0, limit).map((slot) => this.ids[slot]);
    return { ids, total };
  }
}
