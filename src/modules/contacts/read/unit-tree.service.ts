import { TtlCache } from '../../../lib/cache';
import type { Db } from '../../../lib/db';
import { NotFoundError } from '../../../lib/errors';
import { Gate } from '../../../lib/gate';
import { ListSearch } from '../search/list-search';
import type { SearchIndex } from '../search/search-index';
import type { AncestorRow } from '../data/tree/lineage';
import { directoryTagOf } from '../data/tree/lock';
import { toContact } from '../domain/contact.record';
import { shape } from './formats';
import { filtersOf, filtersEcho, type ListInput } from './list-input';
import { statisticsOf } from '../data/listing.queries';
import { atOneVersion } from '../data/tree/one-version';
import { unitContactNames, unitLineage, unitRows, unitRowsByIds, unitSize } from '../data/unit-tree.queries';
import { streamedUnitTree } from './unit-tree-stream';
import { loadNameMaps } from '../data/users.queries';
import type { ReadVersions } from '../../access';
import type { ContactFilters } from '../domain/filters';

/**
 * The whole tree of a unit, unpaged, filtered, in the asked format (GET /api/contacts/unit/:unitId).
 * Built three at a time: each build holds every contact of the unit in memory (some 30 MB for
 * 10,000), and more at once would need more memory for no more speed (docs/performance.md).
 *
 * Frontends poll a unit's tree, and it seldom changes: the last few built are kept as JSON
 * bytes, keyed by the versions the tree shows (directoryTagOf: the tree, the contacts' fields,
 * sign-ins, the reference names) and the request, so a kept tree is never older than the data
 * it shows, and a kept one costs neither the build nor the serialization (6.6 MB for 10,000
 * contacts, some 80 ms of CPU). At most UNIT_TREES_KEPT, each for a minute at most.
 */
export const UNIT_TREES_KEPT = 4;

/** A unit's tree as the answer gives it: kept JSON bytes of its `data`, or the whole answer's text streamed. */
export type UnitTreeAnswer = { kept: Buffer } | { streamed: AsyncIterable<string> };

export class UnitTrees {
  private readonly db: Db;
  private readonly search: ListSearch;
  private readonly gate = new Gate(3);
  private readonly built = new TtlCache<Buffer>(60_000, UNIT_TREES_KEPT);
  /** units' sizes by directory version: whether a tree is streamed */
  private readonly sizes = new TtlCache<number>(60_000, 200);
  /** from how many contacts in a unit its tree is streamed (UNIT_TREE_STREAM_FROM) */
  private readonly streamFrom: number;

  constructor(deps: { db: Db; index: SearchIndex | null; streamFrom?: number }) {
    this.db = deps.db;
    this.search = new ListSearch(deps);
    this.streamFrom = deps.streamFrom ?? 20_000;
  }

  /**
   * The unit's tree: built whole and kept (unitTreeJson) when the unit holds fewer than
   * UNIT_TREE_STREAM_FROM contacts or the tree is searched (a search's matches are few), else
   * streamed (unit-tree-stream.ts): a tree of 100,000 contacts is 66 MB of JSON, whose build took
   * 4 s before its first byte and 540 to 780 MiB of the service's memory (docs/performance.md).
   * A streamed tree is not kept: four kept ones of that size would be a quarter of a gigabyte.
   */
  async unitTree(unitId: number, input: ListInput, versions: ReadVersions, message: string): Promise<UnitTreeAnswer> {
    if (!input.search) {
      const size = await this.sizes.get(`${versions.directory}|${unitId}`, () => unitSize(this.db, unitId));
      // a unit without contacts is below any threshold: its 404 (no such unit) comes from the build
      if (size > 0 && size >= this.streamFrom) {
        const format = input.format ?? 'tree';
        const filters = { ...filtersOf(input), unit_id: unitId };
        const { search, department_id, include_inactive, role_filter } = filtersEcho(filters);
        const echo = { search, department_id, format, include_inactive, role_filter };
        return { streamed: streamedUnitTree(this.db, { unitId, message, filters, format, echo }) };
      }
    }
    return { kept: await this.unitTreeJson(unitId, input, versions) };
  }

  /**
   * The unit's tree as the UTF-8 JSON of the answer's `data`, kept under directoryTagOf the
   * `versions` read before this call (the request's, read with its session), so a tree is never
   * kept under a newer version than its data.
   */
  async unitTreeJson(unitId: number, input: ListInput, versions: ReadVersions): Promise<Buffer> {
    const key = `${directoryTagOf(versions)}|${unitId}|${JSON.stringify(input)}`;
    // its rows, their lineage and their parents' names at one directory version (one-version.ts):
    // one that moved on since the session's read only makes the kept tree newer than its key
    const build = () => atOneVersion(this.db, versions, (at) => this.build(unitId, input, { ...versions, ...at }));
    return this.built.get(key, () => this.gate.run(async () => Buffer.from(JSON.stringify(await build()))));
  }

  private async build(unitId: number, input: ListInput, versions: ReadVersions) {
    const names = await loadNameMaps(this.db, unitId);
    if (!names.units.has(unitId)) throw new NotFoundError('Unit not found');
    const format = input.format ?? 'tree';
    const filters = { ...filtersOf(input), unit_id: unitId };
    const rows = await this.rows(filters, versions);
    // for `hierarchical`, one read of the unit gives every path and every parent's name
    const lineage = format === 'hierarchical' ? await unitLineage(this.db, unitId) : undefined;
    const parentNames = await this.parentNames(unitId, rows, lineage);
    const lookup = { names, parentNames };
    const contacts = rows.map((row) => Object.assign(toContact(row, lookup), { level: Number(row.depth) }));
    const { search, department_id, include_inactive, role_filter } = filtersEcho(filters);
    return {
      unit_id: unitId,
      contacts: await shape(this.db, contacts, format, lineage),
      statistics: statisticsOf(contacts),
      filters: { search, department_id, format, include_inactive, role_filter },
    };
  }

  /** The unit's rows that pass the filters, in pre-order: a search's matches from the index when it is current. */
  private async rows(filters: ContactFilters & { unit_id: number }, versions: ReadVersions) {
    const ids = filters.search ? await this.search.unitMatchIds({ ...filters, search: filters.search }, versions) : null;
    return ids ? unitRowsByIds(this.db, ids) : unitRows(this.db, filters);
  }

  /** The names of the rows' parents: among the rows, in the lineage, or read for those the filters left out. */
  private async parentNames(unitId: number, rows: Record<string, unknown>[], lineage?: Map<number, AncestorRow>) {
    const names = new Map(rows.map((r) => [Number(r.id), String(r.name)]));
    const missing = [...new Set(rows.map((r) => r.parent_id).filter((p) => p !== null && !names.has(Number(p))))].map(Number);
    if (lineage) {
      for (const p of missing) {
        const parent = lineage.get(p);
        if (parent) names.set(parent.id, parent.name);
      }
    } else if (missing.length > 0) {
      for (const [id, name] of await unitContactNames(this.db, unitId, missing)) names.set(id, name);
    }
    return names;
  }
}
