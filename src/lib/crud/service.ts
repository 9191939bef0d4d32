import type { Knex } from 'knex';
import { isForeignKeyViolation, isUniqueViolation, whereContains, type Db, type Queryable } from '../db';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import type { VersionCondition } from '../http/conditional';
import { paginationOf } from '../http/paging';
import { pageOf } from '../http/validate';
import { baseQuery, filtersOf, orderOf, toRecord, type ResourceDef, type Values } from './resource';

export interface ListInput {
  page?: number;
  limit?: number;
  search?: string;
  /** a soft-deleted resource's list shows inactive records too */
  include_inactive?: boolean;
  [filter: string]: unknown;
}

/**
 * Runs a write in one transaction: the module's own frame around every change of its records (a
 * version that reads are tagged by, say). `condition` is the request's If-Match and If-None-Match,
 * to be checked after the work, whose own checks answer first (404 before 412).
 */
export type ChangeRunner = <T>(work: (trx: Knex.Transaction) => Promise<T>, condition?: VersionCondition) => Promise<T>;

/** What a write did, for the module to record in the write's transaction: each field `after` gives, with its value `before`. */
export interface RecordedChange {
  resource: ResourceDef;
  verb: 'create' | 'update' | 'delete';
  id: number;
  before: Values | null;
  after: Values;
}

export type ChangeRecorder<Actor> = (trx: Knex.Transaction, actor: Actor, change: RecordedChange) => Promise<void>;

/**
 * The reads and writes of every resource a ResourceDef describes: list, get, the children of a
 * parent, create, update, and a soft or hard delete. A write runs in the module's ChangeRunner,
 * is recorded by its ChangeRecorder, and checks, in this order: the parent, the unique keys,
 * the resource's own `check`. The database's keys decide the races that the checks could not see.
 */
export class CrudService<Actor> {
  protected readonly db: Db;
  private readonly run: ChangeRunner;
  private readonly record: ChangeRecorder<Actor>;

  constructor(deps: { db: Db; run: ChangeRunner; record: ChangeRecorder<Actor> }) {
    this.db = deps.db;
    this.run = deps.run;
    this.record = deps.record;
  }

  /** `only`: the one record a caller may see (a scope), or null for all. */
  async list(def: ResourceDef, input: ListInput, only: number | null = null) {
    const { page, limit, offset } = pageOf(input, def.page.defaultLimit);
    const filtered = () => {
      const q = this.db(`${def.table} as t`);
      if (def.active && !input.include_inactive) q.where(`t.${def.active}`, true);
      if (input.search) whereContains(q, def.search.map((c) => `t.${c}`), input.search);
      for (const column of filtersOf(def)) {
        const value = input[column];
        if (value === null) q.whereNull(`t.${column}`);
        else if (value !== undefined) q.where(`t.${column}`, value as Knex.Value);
      }
      if (only !== null) q.where('t.id', only);
      return q;
    };
    const [{ total }] = await filtered().count({ total: '*' });
    const rows = await baseQuery(this.db, def).whereIn('t.id', filtered().select('t.id')).orderBy(orderOf(def)).limit(limit).offset(offset);
    const records: Record<string, unknown> = { [def.plural]: rows.map((row: Values) => toRecord(def, row)) };
    return { ...records, pagination: paginationOf(page, limit, Number(total)) };
  }

  async get(def: ResourceDef, id: number, db: Queryable = this.db): Promise<Values> {
    const row = await baseQuery(db, def).where('t.id', id).first();
    if (!row) throw new NotFoundError(`${def.label} not found`);
    return toRecord(def, row);
  }

  /** Every (active) record under one parent, in the list's order; an unknown parent is a 404 of the parent's kind. */
  async childrenOf(def: ResourceDef, parentId: number) {
    const { parent } = def;
    if (!parent) throw new TypeError(`${def.plural} have no parent`);
    if (!(await this.db(parent.resource.table).where({ id: parentId }).first('id'))) {
      throw new NotFoundError(`${parent.resource.label} not found`);
    }
    const q = baseQuery(this.db, def).where(`t.${parent.key}`, parentId);
    if (def.active) q.where(`t.${def.active}`, true);
    const rows = await q.orderBy(orderOf(def));
    return { [parent.key]: parentId, [def.plural]: rows.map((row: Values) => toRecord(def, row)), total: rows.length };
  }

  async create(def: ResourceDef, values: Values, actor: Actor): Promise<Values> {
    return this.write(
      def,
      async (trx) => {
        await this.checkParent(trx, def, values, null);
        await this.assertUnique(trx, def, values, null, values);
        await def.check?.(trx, values, null);
        const row = def.active ? { ...values, [def.active]: true } : values;
        const now = new Date();
        const [id] = await trx(def.table).insert({ ...row, created_at: now, updated_at: now });
        await this.record(trx, actor, { resource: def, verb: 'create', id: Number(id), before: null, after: row });
        return this.get(def, Number(id), trx);
      },
      { values, id: null },
    );
  }

  /** `condition`: the request's If-Match and If-None-Match (ChangeRunner). */
  async update(def: ResourceDef, id: number, changes: Values, actor: Actor, condition?: VersionCondition): Promise<Values> {
    return this.change(def, id, changes, actor, condition, 'update');
  }

  /**
   * A soft delete clears the `active` column (a change like an update, which answers the record
   * and leaves no entry when it was inactive already); a hard delete removes the row, refused
   * while `usedBy` rows refer to it, and answers null.
   */
  async remove(def: ResourceDef, id: number, actor: Actor, condition?: VersionCondition): Promise<Values | null> {
    if (def.active) return this.change(def, id, { [def.active]: false }, actor, condition, 'delete');
    await this.write(
      def,
      async (trx) => {
        const current: Values | undefined = await trx(def.table).where({ id }).forUpdate().first();
        if (!current) throw new NotFoundError(`${def.label} not found`);
        await def.checkDelete?.(trx, id);
        await this.assertUnused(trx, def, id);
        await trx(def.table).where({ id }).delete();
        // the record as it was, field by field, since the row is gone
        const { id: _id, created_at: _created, updated_at: _updated, ...fields } = current;
        const gone = Object.fromEntries(Object.keys(fields).map((f) => [f, null]));
        await this.record(trx, actor, { resource: def, verb: 'delete', id, before: fields, after: gone });
      },
      undefined,
      condition,
    );
    return null;
  }

  private async change(def: ResourceDef, id: number, changes: Values, actor: Actor, condition: VersionCondition | undefined, verb: 'update' | 'delete') {
    return this.write(
      def,
      async (trx) => {
        const current: Values | undefined = await trx(def.table).where({ id }).forUpdate().first();
        if (!current) throw new NotFoundError(`${def.label} not found`);
        const values = { ...current, ...changes };
        await this.checkParent(trx, def, changes, current);
        await this.assertUnique(trx, def, values, id, changes);
        await def.check?.(trx, values, id);
        await trx(def.table).where({ id }).update({ ...changes, updated_at: new Date() });
        await this.record(trx, actor, { resource: def, verb, id, before: current, after: changes });
        return this.get(def, id, trx);
      },
      { values: changes, id },
      condition,
    );
  }

  /**
   * A checked parent (ParentRelation.checked) that a write names exists and, if soft-deleted, is
   * active. An update checks only a new parent: a record may keep a parent deactivated since.
   */
  private async checkParent(trx: Knex.Transaction, def: ResourceDef, values: Values, current: Values | null): Promise<void> {
    if (!def.parent?.checked) return;
    const { key, resource } = def.parent;
    const wanted = values[key];
    if (wanted === null || (current && (wanted === undefined || Number(wanted) === Number(current[key])))) return;
    // shared lock: the parent cannot be deactivated under us before we commit
    const row = await trx(resource.table).where({ id: Number(wanted) }).forShare().first(resource.active ?? 'id');
    if (!row) throw ValidationError.field(key, `${resource.label} not found`);
    if (resource.active && !Number(row[resource.active])) throw ValidationError.field(key, `${resource.label} is inactive`);
  }

  /** `values`: the record after the write; `given`: what the write gives (UniqueKey.exact). */
  private async assertUnique(db: Queryable, def: ResourceDef, values: Values, id: number | null, given: Values): Promise<void> {
    for (const { columns, message, exact } of def.unique) {
      if (columns.some((c) => values[c] === null || values[c] === undefined)) continue;
      if (exact && !columns.some((c) => given[c] !== undefined)) continue;
      const q = db(def.table);
      for (const column of columns) {
        const value = values[column];
        if (!exact && typeof value === 'string') q.whereRaw('LOWER(??) = ?', [column, value.toLowerCase()]);
        else q.where(column, value as Knex.Value);
      }
      if (id !== null) q.whereNot({ id });
      if (await q.first('id')) throw new ConflictError(message);
    }
  }

  private async assertUnused(db: Queryable, def: ResourceDef, id: number): Promise<void> {
    for (const { table, column } of def.usedBy ?? []) {
      if (await db(table).where(column, id).first(column)) {
        throw new ConflictError(`${def.label} is in use and cannot be deleted`);
      }
    }
  }

  /**
   * Runs a change; the database's keys decide the races that the checks could not see: a
   * duplicate (the winner has committed by now, so the same checks name the key that was taken),
   * a row that came into use while being deleted, or a referenced row that went.
   */
  private async write<T>(
    def: ResourceDef,
    work: (trx: Knex.Transaction) => Promise<T>,
    written?: { values: Values; id: number | null },
    condition?: VersionCondition,
  ): Promise<T> {
    try {
      return await this.run(work, condition);
    } catch (err) {
      if (isUniqueViolation(err)) {
        if (written) await this.assertUnique(this.db, def, written.values, written.id, written.values);
        throw new ConflictError(def.unique[0]?.message ?? `${def.label} already exists`);
      }
      if (isForeignKeyViolation(err)) {
        const { parent } = def;
        if (parent?.checked) throw ValidationError.field(parent.key, `${parent.resource.label} not found`);
        throw new ConflictError(`${def.label} conflicts with a concurrent change; try again`);
      }
      throw err;
    }
  }
}
