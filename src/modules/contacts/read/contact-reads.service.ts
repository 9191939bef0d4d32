import { TtlCache } from '../../../lib/cache';
import type { Db } from '../../../lib/db';
import { NotFoundError } from '../../../lib/errors';
import { paginationOf } from '../../../lib/http/paging';
import { ListSearch } from '../search/list-search';
import type { SearchIndex } from '../search/search-index';
import type { SearchView } from '../search/view';
import { lineageOf, subtreeRange, type AncestorRow } from '../data/tree/lineage';
import { smallBranch } from '../data/tree/branch';
import { atOneVersion } from '../data/tree/one-version';
import type { DirectoryVersions } from '../data/tree/lock';
import type { ReadVersions } from '../../access';
import { toContact, type Contact, type ContactRow } from '../domain/contact.record';
import { headCounts, unitAndDepartmentCounts, unitsAndDepartments } from '../data/directory.queries';
import { nest, nestBranch, shape, type Format, type TreeScope } from './formats';
import { buildHierarchy } from './hierarchy';
import { CHILDREN_PAGE, CONTACT_PAGE, filtersEcho, filtersOf, idEcho, type ListInput } from './list-input';
import { childrenCount, childrenPage, contactExists, countStatistics, listPage, placeOf } from '../data/listing.queries';
import { childrenDigest, listDigest, listPagination, numberedWindow, placeFor, placeGone, reachable, type PageRequest } from './list-paging';
import { activeSubtreeMembers, activeUnitMembers } from '../data/unit-tree.queries';
import { contactReader, listedByIdsReader } from '../data/users.queries';
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
  private readonly referenceCounts = new TtlCache<{ units: number; departments: number }>(60_000, 4);
  private readonly contactById: (id: number) => Promise<ContactRow | undefined>;
  private readonly listedByIds: ReturnType<typeof listedByIdsReader>;
  private readonly search: ListSearch;
  private readonly index: SearchIndex | null;

  /** how deep a page number reaches into a list, from either end (list-paging.ts) */
  private readonly pageDepth: number;

  constructor(deps: { db: Db; index: SearchIndex | null; pageDepth?: number }) {
    this.db = deps.db;
    this.pageDepth = deps.pageDepth ?? 10_000;
    this.index = deps.index;
    this.contactById = contactReader(deps.db);
    this.listedByIds = listedByIdsReader(deps.db);
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
   * The counters over a filtered set, with the index's view of the request's versions when it
   * has one (one pass over its arrays, plus the contacts changed since its build), else counted
   * in SQL and cached per directory version. Each write changes that version, so under a stream
   * of writes nearly every SQL count is a new one: four scans of the directory.
   */
  private async counters(view: SearchView | null, versions: DirectoryVersions, filters: Omit<ContactFilters, 'search'>, range: OrdRange | undefined): Promise<ContactStatistics> {
    if (view) return view.statistics(filters, range);
    return this.cached(versions, `stats|${JSON.stringify([filters, range])}`, () => countStatistics(this.db, filters, range));
  }

  /** The index's view of the directory at the request's versions (tree too), or null: SQL answers. */
  private async treeView(versions: DirectoryVersions): Promise<SearchView | null> {
    return this.index && (await this.index.view(versions, true));
  }

  /** Whether a list answers page `page` (the Link header links only those). */
  reachable(page: number, limit: number, total: number): boolean {
    return reachable(this.pageDepth, page, limit, total);
  }

  async get(id: number): Promise<Contact> {
    const row = await this.contactById(id);
    if (!row) throw new NotFoundError('Contact not found');
    return toContact(row);
  }

  /**
   * A page of the filtered set in pre-order, in the asked format, with counters over the whole
   * set: by page number, or after a cursor (list-paging.ts). A subtree's range, a cursor's place
   * and the rows read from them, at one directory version (one-version.ts).
   */
  async list(input: ListInput, versions: DirectoryVersions) {
    const parentId = input.parent_id;
    if (!parentId && !input.cursor) return this.listIn(input, versions, undefined);
    return atOneVersion(this.db, versions, async (at) => this.listIn(input, at, parentId ? await subtreeRange(this.db, parentId) : undefined));
  }

  private async listIn(input: ListInput, versions: DirectoryVersions, range: OrdRange | undefined) {
    const format: Format = input.format ?? (input.tree === false ? 'flat' : 'tree');
    const limit = input.limit ?? CONTACT_PAGE.defaultLimit;
    const filters = filtersOf(input);
    const { search, unit_id, department_id, include_inactive, role_filter } = filtersEcho(filters);
    const digest = listDigest(input);
    const cursor = input.cursor && placeFor(input.cursor, 'list', digest);
    const page = cursor ? null : (input.page ?? 1);
    // by cursor: the rows after where its contact stands now (its key if it is gone), one more to know has_more
    const after = cursor ? { key: (await placeOf(this.db, cursor.id))?.tree_ord ?? cursor.ord, id: cursor.id } : undefined;

    let statistics: ContactStatistics;
    let read: { contacts: Array<Contact & { level: number }>; ords: number[] };
    if (filters.search) {
      const f = { ...filters, search: filters.search };
      if (after) {
        statistics = (await this.search.page(f, versions, range, { offset: 0, limit: 0 })).statistics;
        // order keys are unique: what lies after the cursor's key lies after its contact
        const rest = { after: Math.max(after.key, range?.after ?? 0), before: range?.before ?? Number.MAX_SAFE_INTEGER };
        read = await this.listedByIds((await this.search.page(f, versions, rest, { offset: 0, limit: limit + 1 })).ids);
      } else {
        const found = await this.search.page(f, versions, range, { offset: (page! - 1) * limit, limit });
        numberedWindow(this.pageDepth, page!, limit, found.statistics.total_contacts); // refuses a page too deep, as without search
        statistics = found.statistics;
        read = await this.listedByIds(found.ids);
      }
    } else {
      const view = await this.treeView(versions);
      statistics = await this.counters(view, versions, filters, range);
      const window = after ? { limit: limit + 1, offset: 0, after } : numberedWindow(this.pageDepth, page!, limit, statistics.total_contacts);
      if (!window) read = { contacts: [], ords: [] };
      // a numbered page from the start: its ids from the index's pre-order, as deep as it reaches
      else if (view && !window.after && !window.backwards) read = await this.listedByIds(view.listingWindow(filters, range, window));
      else read = await listPage(this.db, filters, range, window);
    }
    const total = statistics.total_contacts;
    const contacts = read.contacts.slice(0, limit);
    const hasMore = after ? read.contacts.length > limit : paginationOf(page!, limit, total).has_more;
    // the next cursor's place: the page's last contact, with its order key
    const last = hasMore ? contacts.at(-1) : undefined;
    const next = last ? { id: last.id, ord: read.ords[contacts.length - 1] } : null;
    return {
      contacts: await shape(this.db, contacts, format),
      statistics,
      pagination: { ...listPagination({ page, limit }, total, hasMore, next, { kind: 'list', digest }), format },
      filters: { search, parent_id: idEcho(input.parent_id), unit_id, department_id, tree: format === 'tree', include_inactive, role_filter },
    };
  }

  /**
   * A create's or a move's answer (docs/api.md): the contact, and as `tree` its branch or, with
   * `tree_scope=unit`, its unit's whole tree; the two read side by side (on two connections on MySQL).
   */
  async written(id: number, unitId: number, scope: TreeScope = 'contact') {
    const tree = scope === 'unit' ? this.unitTreeCompact(unitId) : this.contactTreeCompact(id);
    const [contact, compact] = await Promise.all([this.get(id), tree]);
    return { contact, tree: compact };
  }

  /** The active contacts of a unit as a compact tree ({id, name, parent_id, children}). */
  async unitTreeCompact(unitId: number) {
    return nest(await activeUnitMembers(this.db, unitId));
  }

  /**
   * A write's `data.tree` by default: the contact where it stands, as a compact tree of one
   * branch (nestBranch: its ancestors, then it with its active subtree), one consistent read: in
   * one statement for a small subtree (smallBranch), else at one directory version. Its cost
   * follows the contact's depth and subtree, not its unit's size: the unit's whole tree in every
   * move's answer grew with the unit, and cost the mixed load about a fifth of its rate
   * (docs/performance.md, "A move's answer").
   */
  async contactTreeCompact(id: number) {
    const { lineage, subtree } = (await smallBranch(this.db, id)) ?? (await atOneVersion(this.db, null, async () => {
      const subtree = await activeSubtreeMembers(this.db, id);
      return { lineage: subtree.length > 0 ? await lineageOf(this.db, [id]) : new Map<number, AncestorRow>(), subtree };
    }));
    const ancestors: AncestorRow[] = [];
    // a walk up, bounded by the rows read: a cycle (which the writers rule out) cannot hang it
    for (let at = lineage.get(id)?.parent_id ?? null; at !== null && ancestors.length < lineage.size; ) {
      const ancestor = lineage.get(at);
      if (!ancestor) break;
      ancestors.push(ancestor);
      at = ancestor.parent_id;
    }
    return nestBranch(ancestors, subtree);
  }

  /**
   * A page of a contact's direct children by name, and how many it has. Whether the contact
   * exists and that count are cached under the directory version (a create, a deletion, a move
   * and a change of is_active each bump it), so a page costs one query.
   */
  async children(id: number, input: PageRequest & { include_inactive?: boolean }, versions: DirectoryVersions) {
    const includeInactive = input.include_inactive ?? false;
    const total = await this.cached(versions, `children|${id}|${includeInactive}`, async () =>
      (await contactExists(this.db, id)) ? childrenCount(this.db, id, includeInactive) : null,
    );
    if (total === null) throw new NotFoundError('Contact not found');
    const limit = input.limit ?? CHILDREN_PAGE.defaultLimit;
    const digest = childrenDigest(id, includeInactive);
    const cursor = input.cursor && placeFor(input.cursor, 'children', digest);
    const page = cursor ? null : (input.page ?? 1);
    let children;
    if (cursor) {
      // after where the cursor's contact stands among siblings now (its name may have changed)
      const place = await placeOf(this.db, cursor.id);
      if (!place) throw placeGone();
      children = await childrenPage(this.db, id, { includeInactive, limit: limit + 1, offset: 0, after: { key: place.sort_name, id: cursor.id } });
    } else {
      const window = numberedWindow(this.pageDepth, page!, limit, total);
      children = window ? await childrenPage(this.db, id, { includeInactive, ...window }) : [];
    }
    const hasMore = cursor ? children.length > limit : paginationOf(page!, limit, total).has_more;
    children = children.slice(0, limit);
    const last = children.at(-1);
    const pagination = listPagination({ page, limit }, total, hasMore, last ? { id: last.id, ord: 0 } : null, { kind: 'children', digest });
    return { parent_id: id, children, total, pagination };
  }

  /**
   * The eight counters over the active directory. The units and departments are counted once
   * per reference version (every change of a unit or a department bumps it, lib/crud through
   * versionedChange), and at least once a minute.
   */
  async statistics(versions: DirectoryVersions & Pick<ReadVersions, 'reference'>) {
    const counters = await this.counters(await this.treeView(versions), versions, { role_filter: 'all', include_inactive: false }, undefined);
    const { units, departments } = await this.referenceCounts.get(String(versions.reference), () => unitAndDepartmentCounts(this.db));
    return { ...counters, total_units: units, total_departments: departments };
  }

  /** Units as a tree, each with its departments and the number of active contacts in each. */
  async organizationalHierarchy(versions: DirectoryVersions) {
    const counts = await this.cached(versions, 'hierarchy-counts', () => headCounts(this.db));
    const { units, departments } = await unitsAndDepartments(this.db);
    return { units: buildHierarchy(units, departments, counts) };
  }
}
