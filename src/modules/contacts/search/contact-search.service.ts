import type { Db } from '../../../lib/db';
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
   * `versions`: the request's, read with its session.
   */
  async search(input: SearchInput, versions: DirectoryVersions) {
    const limit = input.limit ?? SEARCH_LIMIT.defaultLimit;
    const filters: ContactFilters = {
      search: input.q,
      unit_id: input.unit_id,
      department_id: input.department_id,
      role_filter: 'all',
      include_inactive: false,
    };
    const needle = input.q.toLowerCase();
    const view = this.index && (await this.index.at(versions, needle));
    const { ids, total } = view ? view.search(needle, filters, limit) : await rankedSearch(this.db, { ...filters, search: input.q }, limit);
    const contacts = await this.contactsByIds(ids);
    return {
      contacts: contacts.map(({ level: _level, ...c }) => c),
      searchTerm: input.q,
      filters: { unit_id: idEcho(input.unit_id), department_id: idEcho(input.department_id) },
      total,
    };
  }
}
