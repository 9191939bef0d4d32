import type { Knex } from 'knex';
import { changesOf, type Actor, type AuditTrail, type Changes } from '../audit';
import { isForeignKeyViolation, isUniqueViolation, whereContains, type Db, type Queryable } from '../../lib/db';
import { ConflictError, NotFoundError, PreconditionFailedError } from '../../lib/errors';
import type { VersionCondition } from '../../lib/http/conditional';
import { paginationOf } from '../../lib/http/respond';
import { pageOf } from '../../lib/http/validate';
import { versionedChange, type VersionPrecondition } from '../access';

export type Values = Record<string, unknown>;

/** What makes one kind of reference record (units, departments, designations, ranks). */
export interface ResourceDef {
  table: string;
  /** the path segment and the list's data key: `units` */
  plural: string;
  /** the record's data key: `unit` */
  singular: string;
  /** the word in messages: `Unit` */
  label: string;
  /** the table is aliased `t`; joins add names of related rows */
  baseQuery(db: Queryable): Knex.QueryBuilder;
  toRecord(row: Values): Values;
  searchColumns: string[];
  orderBy: string[];
  /** list query parameters that filter on a column of `t` */
  filters: Record<string, string>;
  /** each group of columns is unique, compared case-insensitively */
  unique: Array<{ columns: string[]; message: string }>;
  /** rows of other tables that keep a record from being deleted */
  usedBy: Array<{ table: string; column: string }>;
  /** checks of a create or update against other rows; `values` are the record after the change */
  checkReferences?(trx: Knex.Transaction, values: Values, id: number | null): Promise<void>;
  /** a check before a delete, beyond usedBy */
  checkDelete?(trx: Knex.Transaction, id: number): Promise<void>;
}

export interface ListInput {
  page?: number;
  limit?: number;
  search?: string;
  [filter: string]: unknown;
}

export const REFERENCE_PAGE = { defaultLimit: 50, maxLimit: 500 };

export class ReferenceService {
  private readonly db: Db;
  private readonly audit: AuditTrail;

  constructor(deps: { db: Db; audit: AuditTrail }) {
    this.db = deps.db;
    this.audit = deps.audit;
  }

  async list(def: ResourceDef, input: ListInput) {
    const { page, limit, offset } = pageOf(input, REFERENCE_PAGE.defaultLimit);
    const filtered = () => {
      const q = this.db(`${def.table} as t`);
      if (input.search) whereContains(q, def.searchColumns.map((c) => `t.${c}`), input.search);
      for (const [param, column] of Object.entries(def.filters)) {
        const value = input[param];
        if (value === null) q.whereNull(`t.${column}`);
        else if (value !== undefined) q.where(`t.${column}`, value as Knex.Value);
      }
      return q;
    };
    const [{ total }] = await filtered().count({ total: '*' });
    const rows = await def
      .baseQuery(this.db)
      .whereIn('t.id', filtered().select('t.id'))
      .orderBy(def.orderBy.map((c) => `t.${c}`).concat('t.id'))
      .limit(limit)
      .offset(offset);
    return { [def.plural]: rows.map(def.toRecord), pagination: paginationOf(page, limit, Number(total)) };
  }

  async get(def: ResourceDef, id: number, db: Queryable = this.db): Promise<Values> {
    const row = await def.baseQuery(db).where('t.id', id).first();
    if (!row) throw new NotFoundError(`${def.label} not found`);
    return def.toRecord(row);
  }

  async create(def: ResourceDef, values: Values, actor: Actor): Promise<Values> {
    return this.write(
      def,
      async (trx) => {
        await this.checkWrite(trx, def, values, null);
        const now = new Date();
        const [id] = await trx(def.table).insert({ ...values, created_at: now, updated_at: now });
        await this.record(trx, actor, def, 'create', Number(id), changesOf(null, values));
        return this.get(def, Number(id), trx);
      },
      { values, id: null },
    );
  }

  /** `condition`: the request's If-Match and If-None-Match, checked against the reference data's version. */
  async update(def: ResourceDef, id: number, changes: Values, actor: Actor, condition?: VersionCondition): Promise<Values> {
    return this.write(
      def,
      async (trx) => {
        const current = await trx(def.table).where({ id }).forUpdate().first();
        if (!current) throw new NotFoundError(`${def.label} not found`);
        await this.checkWrite(trx, def, { ...current, ...changes }, id);
        await trx(def.table).where({ id }).update({ ...changes, updated_at: new Date() });
        await this.record(trx, actor, def, 'update', id, changesOf(current, changes));
        return this.get(def, id, trx);
      },
      { values: changes, id },
      condition,
    );
  }

  async remove(def: ResourceDef, id: number, actor: Actor, condition?: VersionCondition): Promise<void> {
    await this.write(def, async (trx) => {
      const current: Values | undefined = await trx(def.table).where({ id }).forUpdate().first();
      if (!current) throw new NotFoundError(`${def.label} not found`);
      await def.checkDelete?.(trx, id);
      await this.assertUnused(trx, def, id);
      await trx(def.table).where({ id }).delete();
      // the record as it was, field by field, since the row is gone
      const { id: _id, created_at: _created, updated_at: _updated, ...fields } = current;
      await this.record(trx, actor, def, 'delete', id, changesOf(fields, Object.fromEntries(Object.keys(fields).map((f) => [f, null]))));
    }, undefined, condition);
  }

  /**
   * One entry per change that changed something. Reference records belong to no organization,
   * so the entry is filed under the actor's (AuditEntry); an organization is its own.
   */
  private async record(trx: Knex.Transaction, actor: Actor, def: ResourceDef, verb: string, id: number, changes: Changes) {
    if (verb === 'update' && Object.keys(changes).length === 0) return;
    const organizationId = def.table === 'organizations' ? id : actor.organizationId;
    await this.audit.record(trx, actor, { action: `${def.singular}.${verb}`, targetType: def.singular, targetId: id, organizationId, changes });
  }

  private async checkWrite(trx: Knex.Transaction, def: ResourceDef, values: Values, id: number | null) {
    await this.assertUnique(trx, def, values, id);
    await def.checkReferences?.(trx, values, id);
  }

  private async assertUnique(db: Queryable, def: ResourceDef, values: Values, id: number | null) {
    for (const { columns, message } of def.unique) {
      const q = db(def.table);
      for (const column of columns) {
        const value = values[column];
        if (typeof value === 'string') q.whereRaw('LOWER(??) = ?', [column, value.toLowerCase()]);
        else q.where(column, value as Knex.Value);
      }
      if (columns.some((c) => values[c] === null || values[c] === undefined)) continue;
      if (id !== null) q.whereNot({ id });
      if (await q.first('id')) throw new ConflictError(message);
    }
  }

  private async assertUnused(db: Queryable, def: ResourceDef, id: number): Promise<void> {
    for (const { table, column } of def.usedBy) {
      if (await db(table).where(column, id).first(column)) {
        throw new ConflictError(`${def.label} is in use and cannot be deleted`);
      }
    }
  }

  /**
   * Runs a change; the database's keys decide races that the checks could not see: a
   * duplicate, a row that came into use while being deleted, or a referenced row that went.
   * A `condition` is checked after the work, whose checks come first.
   */
  private async write<T>(
    def: ResourceDef,
    work: (trx: Knex.Transaction) => Promise<T>,
    written?: { values: Values; id: number | null },
    condition?: VersionCondition,
  ): Promise<T> {
    try {
      // every change of these records changes what reads show: their ETags follow the version
      return await versionedChange(this.db, 'reference', work, referencePrecondition(condition));
    } catch (err) {
      if (isUniqueViolation(err)) {
        // the winner has committed by now: the same checks name the key that was taken
        if (written) await this.assertUnique(this.db, def, written.values, written.id);
        throw new ConflictError(def.unique[0]?.message ?? `${def.label} already exists`);
      }
      if (isForeignKeyViolation(err)) throw new ConflictError(`${def.label} conflicts with a concurrent change; try again`);
      throw err;
    }
  }
}

/** The 412 of a reference record or role whose If-Match or If-None-Match does not hold. */
export const REFERENCE_CHANGED = 'Reference data was changed by someone else';

/** A request's If-Match and If-None-Match as versionedChange's precondition on the reference data's version: 412 unless it holds. */
export function referencePrecondition(condition: VersionCondition | undefined): VersionPrecondition | undefined {
  return condition && { holds: condition, failed: () => new PreconditionFailedError(REFERENCE_CHANGED) };
}
