import type { Db } from '../../../lib/db';
import { paginationOf } from '../../../lib/http/paging';
import { pageOf } from '../../../lib/http/validate';
import { contactsByIdsReader } from '../data/users.queries';
import { idEcho, SEARCH_LIMIT } from '../read/list-input';
import type { DirectoryVersions } from '../data/tree/lock';
import type { SearchIndex } from './search-index';
import { rankedSearch } from '../data/search.queries';
import type { ContactFilters } from '../domain/filters';

export interface SearchInput {
  q: string;
  unit_id?: number;
  department_id?: number;
  page?: number;
  limit?: number;
}

/**
 * GET /api/contacts/search: from the in-memory index when it is as new as the directory's
 * search version, else in SQL; both rank alike (snapshot.ts, search.queries.ts).
 */
export class ContactSearch {
  private readonly db: Db;
  /** null: every search runs in SQL */
  private readonly index: SearchIndex | null;
  private readonly contactsByIds: ReturnType<typeof contactsByIdsReader>;

  constructor(deps: { db: Db; index: SearchIndex | null }) {
    this.db = deps.db;
    this.index = deps.index;
    this.contactsByIds = contactsByIdsReader(deps.db);
  }

  /**
   * Active contacts containing `q` in name, e-mail, service number, phone or mobile: exact
   * service number or e-mail first, then names that start with it, then the rest by name.
   * `versions`: the request's, read with its session. A page past the first ranks the matches
   * up to its end and keeps its own (the SQL search ranks every match anyway; the index keeps
   * the first `offset + limit` of each rank, bounded by the matches).
   */
  async search(input: SearchInput, versions: DirectoryVersions) {
    const { page, limit, offset } = pageOf(input, SEARCH_LIMIT.defaultLimit);
    const filters: ContactFilters = {
      search: input.q,
      unit_id: input.unit_id,
      department_id: input.department_id,
      role_filter: 'all',
      include_inactive: false,
    };
    const needle = input.q.toLowerCase();
    const view = this.index && (await this.index.at(versions, needle));
    const upTo = offset + limit;
    const ranked = view ? await view.search(needle, filters, upTo) : await rankedSearch(this.db, { ...filters, search: input.q }, upTo);
    const { total } = ranked;
    const contacts = await this.contactsByIds(ranked.ids.slice(offset));
    return {
      contacts: contacts.map(({ level: _level, ...c }) => c),
      searchTerm: input.q,
      /** searchTerm in snake_case (docs/api.md, Paging: searchTerm is kept, deprecated) */
      search_term: input.q,
      filters: { unit_id: idEcho(input.unit_id), department_id: idEcho(input.department_id) },
      total,
      pagination: paginationOf(page, limit, total),
    };
  }
}
