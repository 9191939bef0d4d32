import { TtlCache } from '../../../lib/cache';
import type { Db } from '../../../lib/db';
import { NotFoundError } from '../../../lib/errors';
import { paginationOf } from '../../../lib/http/paging';
import { pageOf } from '../../../lib/http/validate';
import { ListSearch } from '../search/list-search';
import type { SearchIndex } from '../search/search-index';
import { subtreeRange } from '../data/tree/lineage';
import { atOneVersion } from '../data/tree/one-version';
import type { DirectoryVersions } from '../data/tree/lock';
import { toContact, type Contact, type ContactRow } from '../domain/contact.record';
import { headCounts, unitAndDepartmentCounts, unitsAndDepartments } from '../data/directory.queries';
import { nest, shape, type Format } from './formats';
import { buildHierarchy } from './hierarchy';
import { CHILDREN_PAGE, CONTACT_PAGE, filtersEcho, filtersOf, idEcho, type ListInput } from './list-input';
import { childrenCount, childrenPage, contactExists, countStatistics, listPage } from '../data/listing.queries';
import { activeUnitMembers } from '../data/unit-tree.queries';
import { contactReader, contactsByIdsReader } from '../data/users.queries';
import type { ContactFilters, ContactStatistics, OrdRange } from '../domain/filters';

/** Reads of the directory: one contact, listings, children, counters and the units' hierarchy. */
export class ContactReads {
  private readonly db: Db;
  /**
   * What is computed from the whole directory (counters over large sets), keyed by the
   * directory's version, which every change of the tree or of a counted field bumps in its
   * own transaction: a cached value is never older than the data it describes (the hour
   * only bounds how long an unused entry stays).
   */
  private readonly cache = new TtlCache<unknown>(60 * 60 * 1000, 500);
  private readonly contactById: (id: number) => Promise<ContactRow | undefined>;
  private readonly contactsByIds: ReturnType<typeof contactsByIdsReader>;
  private readonly search: ListSearch;
  private readonly index: SearchIndex | null;

  constructor(deps: { db: Db; index: SearchIndex | null }) {
    this.db = deps.db;
    this.index = deps.index;
    this.contactById = contactReader(deps.db);
    this.contactsByIds = contactsByIdsReader(deps.db);
    this.search = new ListSearch(deps);
  }

  /**
   * Under the directory version the request's session read (before computing), so a value is
   * never cached under a newer version than its data.
   */
  private cached<V>(versions: DirectoryVersions, key: string, compute: () => Promise<V>): Promise<V> {
    return this.cache.get(`${versions.directory}|${key}`, compute) as Promise<V>;
  }


  /**
   * The counters over a filtered set: from the in-memory index when it has a view of the
   * request's versions (one pass over its arrays, plus the contacts changed since its build), else
   * counted in SQL and cached per directory version. Each write changes that version, so under a
   * stream of writes nearly every SQL count is a new one: four scans of the directory.
   */
  private async counters(versions: DirectoryVersions, filters: Omit<ContactFilters, 'search'>, range: OrdRange | undefined): Promise<ContactStatistics> {
    const view = this.index && (await this.index.view(versions, true));
    if (view) return view.statistics(filters, range);
    return this.cached(versions, `stats|${JSON.stringify([filters, range])}`, () => countStatistics(this.db, filters, range));
  }

  async get(id: number): Promise<Contact> {
    const row = await this.contactById(id);
    if (!row) throw new NotFoundError('Contact not found');
    return toContact(row);
  }

  /** A page of the filtered set in pre-order, in the asked format, with counters over the whole set. */
  async list(input: ListInput, versions: DirectoryVersions) {
    const parentId = input.parent_id;
    if (!parentId) return this.listIn(input, versions, undefined);
    // the subtree's range and what is read in it, at one directory version (one-version.ts)
    return atOneVersion(this.db, versions, async (at) => this.listIn(input, at, await subtreeRange(this.db, parentId)));
  }

  private async listIn(input: ListInput, versions: DirectoryVersions, range: OrdRange | undefined) {
    const format: Format = input.format ?? (input.tree === false ? 'flat' : 'tree');
    const { page, limit, offset } = pageOf(input, CONTACT_PAGE.defaultLimit);
    const filters = filtersOf(input);

    let statistics: ContactStatistics;
    let contacts;
    if (filters.search) {
      const found = await this.search.page({ ...filters, search: filters.search }, versions, range, { offset, limit });
      statistics = found.statistics;
      contacts = await this.contactsByIds(found.ids);
    } else {
      statistics = await this.counters(versions, filters, range);
      contacts = await listPage(this.db, filters, range, { limit, offset });
    }
    const { search, unit_id, department_id, include_inactive, role_filter } = filtersEcho(filters);
    return {
      contacts: await shape(this.db, contacts, format),
      statistics,
      pagination: { ...paginationOf(page, limit, statistics.total_contacts), format },
      filters: { search, parent_id: idEcho(input.parent_id), unit_id, department_id, tree: format === 'tree', include_inactive, role_filter },
    };
  }

  /** The active contacts of a unit as a compact tree ({id, name, children}), for write responses. */
  async unitTreeCompact(unitId: number) {
    return nest(await activeUnitMembers(this.db, unitId));
  }

  /**
   * A page of a contact's direct children by name, and how many it has. Whether the contact
   * exists and that count are cached under the directory version (a create, a deletion, a move
   * and a change of is_active each bump it), so a page costs one query.
   */
  async children(id: number, input: { page?: number; limit?: number; include_inactive?: boolean }, versions: DirectoryVersions) {
    const includeInactive = input.include_inactive ?? false;
    const total = await this.cached(versions, `children|${id}|${includeInactive}`, async () =>
      (await contactExists(this.db, id)) ? childrenCount(this.db, id, includeInactive) : null,
    );
    if (total === null) throw new NotFoundError('Contact not found');
    const { page, limit, offset } = pageOf(input, CHILDREN_PAGE.defaultLimit);
    const children = offset < total ? await childrenPage(this.db, id, { includeInactive, limit, offset }) : [];
    return { parent_id: id, children, total, pagination: paginationOf(page, limit, total) };
  }

  /** The eight counters over the active directory. */
  async statistics(versions: DirectoryVersions) {
    const counters = await this.counters(versions, { role_filter: 'all', include_inactive: false }, undefined);
    const { units, departments } = await unitAndDepartmentCounts(this.db);
    return { ...counters, total_units: units, total_departments: departments };
  }

  /** Units as a tree, each with its departments and the number of active contacts in each. */
  async organizationalHierarchy(versions: DirectoryVersions) {
    const counts = await this.cached(versions, 'hierarchy-counts', () => headCounts(this.db));
    const { units, departments } = await unitsAndDepartments(this.db);
    return { units: buildHierarchy(units, departments, counts) };
  }
}
