import { TtlCache } from '../../lib/cache';
import { Gate } from '../../lib/gate';
import { pageOf } from '../../lib/http/validate';
import { nullableId } from '../../lib/rows';
import { dialectOf, preparedQuery, type Db } from '../../lib/db';
import { NotFoundError } from '../../lib/errors';
import { contactQuery, loadNameMaps, toContact, USER_CONTACT_COLUMNS } from './contacts.repository';
import {
  applyFilters,
  containsTerm,
  contactsByIds,
  countStatistics,
  joinCandidates,
  LIST_SEARCH_FIELDS,
  rankedSearch,
  searchSet,
  shape,
  statisticsOf,
  subtreeRange,
  type ContactFilters,
  type ContactStatistics,
  type RoleFilter,
} from './contacts.listing';
import { buildHierarchy } from './hierarchy';
import { SearchIndex, searchVersion } from './search-index';
import { nest, type AncestorRow, type Format } from './tree';

export interface ListInput {
  page?: number;
  limit?: number;
  search?: string;
  parent_id?: number | null;
  unit_id?: number;
  department_id?: number;
  tree?: boolean;
  format?: Format;
  include_inactive?: boolean;
  role_filter?: RoleFilter;
}

export const CONTACT_PAGE = { defaultLimit: 100, maxLimit: 1000 };
export const CHILDREN_PAGE = { defaultLimit: 100, maxLimit: 1000 };
export const SEARCH_LIMIT = { defaultLimit: 20, maxLimit: 100 };

/**
 * `users as u` for reading a unit in tree order. On MySQL, when nothing but the unit (and
 * activity) filters, through the (unit_id, is_active, tree_ord) index by force: for a unit of a
 * tenth of the directory the optimizer would scan the whole table and sort, which takes MariaDB
 * twice as long (the unit tree of the benchmark). A search, a department or a role narrows the
 * set by other indexes, which the optimizer is left to choose (forced, a search for a term that
 * matches nobody took 29 ms instead of 2).
 */
function unitUsers(db: Db, filters: ContactFilters) {
  const unitOnly = !filters.search && filters.department_id === undefined && filters.role_filter === 'all';
  return dialectOf(db) === 'mysql' && unitOnly
    ? db.from(db.raw('users as u force index (users_unit_id_is_active_tree_ord_index)'))
    : db('users as u');
}

const asString = (v: number | undefined | null) => (v === undefined || v === null ? null : String(v));

export class ContactsQueryService {
  /**
   * What is computed from the whole directory (counters over large sets), keyed by the
   * directory's version: every change of the tree or of a counted field bumps it in the same
   * transaction (lockDirectory), so a cached value is never older than the data it describes
   * (the hour only bounds how long an unused entry stays).
   */
  private readonly cache = new TtlCache<unknown>(60 * 60 * 1000, 500);
  private readonly contactById: (id: number) => Promise<Record<string, unknown>[]>;

  /** the search endpoint's index in memory; null: every search runs in SQL */
  private readonly searchIndex: SearchIndex | null;

  constructor(
    private readonly db: Db,
    options: { searchIndex: 'memory' | 'sql'; searchIndexRefreshMs: number; onSearchIndexError: (err: unknown) => void },
  ) {
    this.contactById = preparedQuery(db, (id: number) => contactQuery(db).where('u.id', id), [0]);
    this.searchIndex =
      options.searchIndex === 'memory' ? new SearchIndex(db, options.searchIndexRefreshMs, options.onSearchIndexError) : null;
  }

  private async version(): Promise<number> {
    const row = await this.db('directory_state').where({ id: 1 }).first('version');
    return Number(row.version);
  }

  /** Read the version before computing, so a value is never cached under a newer version than its data. */
  private async cached<V>(key: string, compute: () => Promise<V>): Promise<V> {
    return this.cache.get(`${await this.version()}|${key}`, compute) as Promise<V>;
  }

  private filtersOf(input: ListInput, unitId?: number): ContactFilters {
    return {
      search: input.search || undefined,
      unit_id: unitId ?? input.unit_id,
      department_id: input.department_id,
      role_filter: input.role_filter ?? 'all',
      include_inactive: input.include_inactive ?? false,
    };
  }

  async get(id: number) {
    const [row] = await this.contactById(id);
    if (!row) throw new NotFoundError('Contact not found');
    return toContact(row);
  }

  /** A page of the filtered set in pre-order, in the asked format, with counters over the whole set. */
  async list(input: ListInput) {
    const format: Format = input.format ?? (input.tree === false ? 'flat' : 'tree');
    const { page, limit, offset } = pageOf(input, CONTACT_PAGE.defaultLimit);
    const filters = this.filtersOf(input);
    const range = input.parent_id ? await subtreeRange(this.db, input.parent_id) : undefined;

    let statistics: ContactStatistics;
    let contacts;
    if (filters.search) {
      const set = await searchSet(this.db, { ...filters, search: filters.search }, range, LIST_SEARCH_FIELDS);
      statistics = statisticsOf(set);
      contacts = await contactsByIds(this.db, set.slice(offset, offset + limit).map((r) => r.id));
    } else {
      statistics = await this.cached(`stats|${JSON.stringify([filters, range])}`, () => countStatistics(this.db, filters, range));
      const pageIds = applyFilters(this.db('users as u'), filters, range).orderBy('u.tree_ord').limit(limit).offset(offset).select('u.id');
      const rows: Record<string, unknown>[] = await contactQuery(this.db).select('u.depth').join(pageIds.as('pg'), 'pg.id', 'u.id').orderBy('u.tree_ord');
      contacts = rows.map((row) => ({ ...toContact(row), level: Number(row.depth) }));
    }
    return {
      contacts: await shape(this.db, contacts, format),
      statistics,
      pagination: { page, limit, total: statistics.total_contacts, format },
      filters: {
        search: filters.search ?? '',
        parent_id: asString(input.parent_id),
        unit_id: asString(filters.unit_id),
        department_id: asString(filters.department_id),
        tree: format === 'tree',
        include_inactive: filters.include_inactive,
        role_filter: filters.role_filter,
      },
    };
  }

  /**
   * The whole tree of a unit, unpaged, filtered, in the asked format. Built three at a time:
   * each build holds every contact of the unit in memory (some 30 MB for 10,000), so ten at once
   * would need ten times that for no more speed (the benchmark: 401 MiB at most without the
   * gate, 306 MiB with it, 12 to 13 requests/s either way). The waiting ones queue without a
   * bound, as the requests themselves would; a finished tree is written out after its place is
   * given back, one at a time, since serializing it does not wait.
   */
  unitTree(unitId: number, input: ListInput) {
    return this.unitTrees.run(() => this.buildUnitTree(unitId, input));
  }

  private readonly unitTrees = new Gate(3);

  private async buildUnitTree(unitId: number, input: ListInput) {
    const names = await loadNameMaps(this.db, unitId);
    if (!names.units.has(unitId)) throw new NotFoundError('Unit not found');
    const format = input.format ?? 'tree';
    const filters = this.filtersOf(input, unitId);
    const q = applyFilters(unitUsers(this.db, filters), filters).select([...USER_CONTACT_COLUMNS, 'u.depth']).orderBy('u.tree_ord');
    if (filters.search) joinCandidates(q, this.db, filters.search);
    const rows = ((await q) as Record<string, unknown>[]).filter((r) => !filters.search || containsTerm(r, filters.search, LIST_SEARCH_FIELDS));
    // every ancestor of a contact is in its unit: for `hierarchical`, one read of the unit gives
    // every path (and every parent's name)
    const lineage =
      format === 'hierarchical'
        ? new Map<number, AncestorRow>(
            (await this.db('users').where({ unit_id: unitId }).select('id', 'parent_id', 'name')).map((r) => [
              Number(r.id),
              { id: Number(r.id), parent_id: nullableId(r.parent_id), name: String(r.name) },
            ]),
          )
        : undefined;
    // parents are in the unit; those that the filters left out are looked up in one query
    const parentNames = new Map(rows.map((r) => [Number(r.id), String(r.name)]));
    const missing = [...new Set(rows.map((r) => r.parent_id).filter((p) => p !== null && !parentNames.has(Number(p))))];
    if (lineage) {
      for (const p of missing) {
        const parent = lineage.get(Number(p));
        if (parent) parentNames.set(parent.id, parent.name);
      }
    } else if (missing.length > 0) {
      const unitNames = this.db('users').where({ unit_id: unitId });
      if (missing.length <= 500) unitNames.whereIn('id', missing as number[]);
      for (const r of await unitNames.select('id', 'name')) parentNames.set(Number(r.id), String(r.name));
    }
    const lookup = { names, parentNames };
    const contacts = rows.map((row) => Object.assign(toContact(row, lookup), { level: Number(row.depth) }));
    return {
      unit_id: unitId,
      contacts: await shape(this.db, contacts, format, lineage),
      statistics: statisticsOf(contacts),
      filters: {
        search: filters.search ?? '',
        department_id: asString(filters.department_id),
        format,
        include_inactive: filters.include_inactive,
        role_filter: filters.role_filter,
      },
    };
  }

  /** The active contacts of a unit as a compact tree ({id, name, children}), for write responses. */
  async unitTreeCompact(unitId: number) {
    const rows = await this.db('users')
      .where({ unit_id: unitId, is_active: true })
      .orderBy('tree_ord')
      .select('id', 'name', 'parent_id');
    return nest(rows.map((r) => ({ id: Number(r.id), name: String(r.name), parent_id: nullableId(r.parent_id) })));
  }

  async children(id: number, input: { page?: number; limit?: number; include_inactive?: boolean }) {
    if (!(await this.db('users').where({ id }).first('id'))) throw new NotFoundError('Contact not found');
    const { page, limit, offset } = pageOf(input, CHILDREN_PAGE.defaultLimit);
    const base = () => {
      const q = this.db('users as u').where('u.parent_id', id);
      return input.include_inactive ? q : q.where('u.is_active', true);
    };
    const [{ total }] = await base().count({ total: '*' });
    const pageIds = base().orderBy([{ column: 'u.sort_name' }, { column: 'u.id' }]).limit(limit).offset(offset).select('u.id');
    const rows = await contactQuery(this.db).join(pageIds.as('pg'), 'pg.id', 'u.id').orderBy([{ column: 'u.sort_name' }, { column: 'u.id' }]);
    return {
      parent_id: id,
      children: rows.map((row: Record<string, unknown>) => toContact(row)),
      total: Number(total),
      pagination: { page, limit, total: Number(total) },
    };
  }

  /**
   * Active contacts containing `q` in name, e-mail, service number, phone or mobile: exact
   * service number or e-mail first, then names that start with it, then the rest by name.
   */
  async search(input: { q: string; unit_id?: number; department_id?: number; limit?: number }) {
    const limit = input.limit ?? SEARCH_LIMIT.defaultLimit;
    const filters: ContactFilters = {
      search: input.q,
      unit_id: input.unit_id,
      department_id: input.department_id,
      role_filter: 'all',
      include_inactive: false,
    };
    const needle = input.q.toLowerCase();
    const snapshot = this.searchIndex && (await this.searchIndex.at(await searchVersion(this.db), needle));
    const { ids, total } = snapshot
      ? snapshot.search(needle, filters, limit)
      : await rankedSearch(this.db, { ...filters, search: input.q }, limit);
    const contacts = await contactsByIds(this.db, ids);
    return {
      contacts: contacts.map(({ level: _level, ...c }) => c),
      searchTerm: input.q,
      filters: { unit_id: asString(input.unit_id), department_id: asString(input.department_id) },
      total,
    };
  }

  /** The eight counters over the active directory. */
  async statistics() {
    const counters = await this.cached('stats|all', () =>
      countStatistics(this.db, { role_filter: 'all', include_inactive: false }),
    );
    const [{ units }] = await this.db('units').count({ units: '*' });
    const [{ departments }] = await this.db('departments').count({ departments: '*' });
    return { ...counters, total_units: Number(units), total_departments: Number(departments) };
  }

  /** Units as a tree, each with its departments and the number of active contacts in each. */
  async organizationalHierarchy() {
    const counts = await this.cached('hierarchy-counts', async () => {
      const byUnit = await this.db('users').where({ is_active: true }).groupBy('unit_id').select('unit_id', this.db.raw('COUNT(*) as n'));
      const byDepartment = await this.db('users')
        .where({ is_active: true })
        .whereNotNull('department_id')
        .groupBy('department_id')
        .select('department_id', this.db.raw('COUNT(*) as n'));
      return {
        units: Object.fromEntries(byUnit.map((r) => [Number(r.unit_id), Number(r.n)])),
        departments: Object.fromEntries(byDepartment.map((r) => [Number(r.department_id), Number(r.n)])),
      };
    });
    const units = await this.db('units').orderBy([{ column: 'name' }, { column: 'id' }]).select('id', 'name', 'code', 'parent_id');
    const departments = await this.db('departments').orderBy([{ column: 'name' }, { column: 'id' }]).select('id', 'name', 'unit_id');
    return { units: buildHierarchy(units, departments, counts) };
  }
}

