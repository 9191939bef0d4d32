import type { Knex } from 'knex';
import { changesOf, type Actor, type AuditTrail, type Changes } from '../audit';
import { isForeignKeyViolation, isUniqueViolation, whereContains, type Db, type Queryable } from '../../lib/db';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '../../lib/errors';
import type { VersionCondition } from '../../lib/http/conditional';
import { paginationOf } from '../../lib/http/respond';
import { pageOf } from '../../lib/http/validate';
import { baseQuery, LEVELS, toRecord, type LevelDef, type Row } from './locations.levels';
import { versionedChange } from '../access';

export const LOCATIONS_PAGE = { defaultLimit: 50, maxLimit: 500 };

/** The 412 of a location write whose If-Match or If-None-Match does not hold. */
export const LOCATIONS_CHANGED = 'Locations were changed by someone else';

export interface ListInput {
  page?: number;
  limit?: number;
  search?: string;
  include_inactive?: boolean;
  /** the parent filter: country_id, division_id or district_id */
  [parentKey: string]: unknown;
}

/** A create or update: name, code, the parent id and (update only) is_active. */
export type LocationValues = Row;

interface LevelCounts {
  total: number;
  active: number;
}

/** Countries, divisions, districts and thanas: one implementation, driven by the level definitions. */
export class LocationsService {
  private readonly db: Db;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; audit: AuditTrail }) {
    this.db = deps.db;
    this.audit = deps.audit;
  }

  async list(level: LevelDef, input: ListInput) {
    const { page, limit, offset } = pageOf(input, LOCATIONS_PAGE.defaultLimit);
    const filtered = () => {
      const q = this.db(`${level.table} as t`);
      if (!input.include_inactive) q.where('t.is_active', true);
      if (input.search) whereContains(q, ['t.name', 't.code'], input.search);
      const parentId = level.parent ? input[level.parent.key] : undefined;
      if (level.parent && typeof parentId === 'number') q.where(`t.${level.parent.key}`, parentId);
      return q;
    };
    const [{ total }] = await filtered().count({ total: '*' });
    const rows = await baseQuery(this.db, level)
      .whereIn('t.id', filtered().select('t.id'))
      .orderBy([{ column: 't.name' }, { column: 't.id' }])
      .limit(limit)
      .offset(offset);
    return {
      [level.plural]: rows.map((row: Row) => toRecord(level, row)),
      pagination: paginationOf(page, limit, Number(total)),
    };
  }

  async get(level: LevelDef, id: number, db: Queryable = this.db): Promise<Row> {
    const row = await baseQuery(db, level).where('t.id', id).first();
    if (!row) throw new NotFoundError(`${level.label} not found`);
    return toRecord(level, row);
  }

  /** Every active child of one parent, by name; an unknown parent is a 404 of the parent's kind. */
  async childrenOf(level: LevelDef, parentId: number) {
    const { parent } = level;
    if (!parent) throw new TypeError(`${level.plural} have no parent level`);
    if (!(await this.db(parent.level.table).where({ id: parentId }).first('id'))) {
      throw new NotFoundError(`${parent.level.label} not found`);
    }
    const rows = await baseQuery(this.db, level)
      .where(`t.${parent.key}`, parentId)
      .where('t.is_active', true)
      .orderBy([{ column: 't.name' }, { column: 't.id' }]);
    return { [parent.key]: parentId, [level.plural]: rows.map((row: Row) => toRecord(level, row)), total: rows.length };
  }

  async create(level: LevelDef, values: LocationValues, actor: Actor): Promise<Row> {
    return this.write(level, undefined, async (trx) => {
      await this.checkParent(trx, level, values);
      await this.checkNameFree(trx, level, values, null);
      const now = new Date();
      const row = { ...values, is_active: true };
      const [id] = await trx(level.table).insert({ ...row, created_at: now, updated_at: now });
      await this.record(trx, actor, level, 'create', Number(id), changesOf(null, row));
      return this.get(level, Number(id), trx);
    });
  }

  /** `condition`: the request's If-Match and If-None-Match, checked against the locations' version. */
  async update(level: LevelDef, id: number, changes: LocationValues, actor: Actor, condition?: VersionCondition, action: 'update' | 'delete' = 'update'): Promise<Row> {
    return this.write(level, condition, async (trx) => {
      const current: Row | undefined = await trx(level.table).where({ id }).forUpdate().first();
      if (!current) throw new NotFoundError(`${level.label} not found`);
      const key = level.parent?.key;
      // moving under another parent needs a live one; a record may keep a parent deactivated since
      if (key && changes[key] !== undefined && Number(changes[key]) !== Number(current[key])) {
        await this.checkParent(trx, level, changes);
      }
      // only a new name or a new parent can collide (a delete or a code change cannot)
      if (changes.name !== undefined || (key && changes[key] !== undefined)) {
        await this.checkNameFree(trx, level, { ...current, ...changes }, id);
      }
      await trx(level.table).where({ id }).update({ ...changes, updated_at: new Date() });
      await this.record(trx, actor, level, action, id, changesOf(current, changes));
      return this.get(level, id, trx);
    });
  }

  /** Soft delete: the row stays, inactive, and drops out of lists and child lookups. */
  async remove(level: LevelDef, id: number, actor: Actor, condition?: VersionCondition): Promise<Row> {
    return this.update(level, id, { is_active: false }, actor, condition, 'delete');
  }

  /**
   * Locations belong to no organization: the entry is filed under the actor's (AuditEntry). A
   * change that changed nothing (a delete of an inactive record, say) leaves none.
   */
  private async record(trx: Knex.Transaction, actor: Actor, level: LevelDef, verb: string, id: number, changes: Changes) {
    if (Object.keys(changes).length === 0) return;
    await this.audit.record(trx, actor, { action: `${level.singular}.${verb}`, targetType: level.singular, targetId: id, changes });
  }

  async statistics(): Promise<Record<string, LevelCounts>> {
    const counts = await Promise.all(
      LEVELS.map(async (level) => {
        const [row] = await this.db(level.table).select(
          this.db.raw('COUNT(*) AS total'),
          this.db.raw('COALESCE(SUM(CASE WHEN is_active = ? THEN 1 ELSE 0 END), 0) AS active', [true]),
        );
        return [level.plural, { total: Number(row.total), active: Number(row.active) }] as const;
      }),
    );
    return Object.fromEntries(counts);
  }

  /** The parent named in `values` exists and is active: otherwise a validation failure on its field. */
  private async checkParent(trx: Knex.Transaction, level: LevelDef, values: LocationValues): Promise<void> {
    if (!level.parent) return;
    const { key, level: parentLevel } = level.parent;
    // shared lock: the parent cannot be deactivated under us before we commit
    const parent = await trx(parentLevel.table).where({ id: Number(values[key]) }).forShare().first('is_active');
    if (!parent) throw ValidationError.field(key, `${parentLevel.label} not found`);
    if (!Number(parent.is_active)) throw ValidationError.field(key, `${parentLevel.label} is inactive`);
  }

  /** Names compare exactly as stored (binary collation on MySQL, BINARY on SQLite). */
  private async checkNameFree(trx: Knex.Transaction, level: LevelDef, values: LocationValues, id: number | null) {
    const q = trx(level.table).where('name', values.name as string);
    if (level.parent) q.where(level.parent.key, Number(values[level.parent.key]));
    if (id !== null) q.whereNot({ id });
    if (await q.first('id')) throw new ConflictError(level.duplicateMessage);
  }

  /**
   * Runs a change; the database's keys decide the races the checks could not see. A `condition`
   * (the request's If-Match and If-None-Match) is versionedChange's precondition on the
   * locations' version: 412 unless it holds.
   */
  private async write<T>(level: LevelDef, condition: VersionCondition | undefined, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    try {
      // every change of these records changes what reads show: their ETags follow the version
      const precondition = condition && { holds: condition, failed: () => new PreconditionFailedError(LOCATIONS_CHANGED) };
      return await versionedChange(this.db, 'locations', work, precondition);
    } catch (err) {
      if (isUniqueViolation(err)) throw new ConflictError(level.duplicateMessage);
      if (isForeignKeyViolation(err) && level.parent) {
        throw ValidationError.field(level.parent.key, `${level.parent.level.label} not found`);
      }
      throw err;
    }
  }
}
