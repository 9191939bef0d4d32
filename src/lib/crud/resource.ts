import type { ValidationChain } from 'express-validator';
import type { Knex } from 'knex';
import type { Queryable } from '../db';
import { nullableId } from '../rows';
import { toIsoRequired } from '../time';

export type Values = Record<string, unknown>;

/**
 * How a column leaves the database in a record: `int` a number, `flag` 1 or 0, `time` ISO text,
 * `text` as stored; with `?`, null when the column is.
 */
export type FieldKind = 'int' | 'int?' | 'text' | 'text?' | 'flag' | 'time';

/** What another resource's `parent` relation needs to know of the resource it points at. */
export type ParentResource = Pick<ResourceDef, 'table' | 'singular' | 'label' | 'active'>;

/** A column of the table that names a row of another table (or of the same one). */
export interface ParentRelation {
  resource: ParentResource;
  /** the column, and the list filter of the same name */
  key: string;
  /** the record's field that carries the parent's name (one of `fields`) */
  nameField: string;
  /** null is allowed (a record at the top): the parent's name is joined in by a left join */
  optional?: boolean;
  /**
   * The engine checks the parent a write names: it exists and, if its resource is soft-deleted,
   * is active; otherwise a 400 on `key`. Left off, the resource's own `check` does what it needs.
   */
  checked?: boolean;
  /** GET /<parent singular>/:<key>: every active record under one parent, not paged */
  byParent?: boolean;
}

/** A group of columns that no two records share; `message` is the 409 of a write that would. */
export interface UniqueKey {
  columns: string[];
  message: string;
  /**
   * Compared as stored, as the table's own unique key compares (so the stored row keeps it, and
   * only a write that gives one of its columns is checked). Otherwise case-insensitively, which
   * is stricter than the key: every write is checked, as the record stands after it.
   */
  exact?: boolean;
}

/** The express-validator chains of a resource's list query and its create and update bodies. */
export interface ResourceRules {
  list: ValidationChain[];
  create: ValidationChain[];
  update: ValidationChain[];
}

/** One kind of record, as data: the engine (CrudService, crudRouter) makes its reads, writes and routes. */
export interface ResourceDef {
  table: string;
  /** the path segment and the list's data key: `units` */
  plural: string;
  /** the record's data key: `unit` */
  singular: string;
  /** the word in messages: `Unit` */
  label: string;
  /** the record's fields in the order it shows them, each a column of the table or the parent's name */
  fields: Record<string, FieldKind>;
  parent?: ParentRelation;
  /** columns a list's `search` looks in */
  search: string[];
  /** a list's order; the id breaks ties */
  orderBy: string[];
  /** list query parameters that filter on the column of the same name (beyond the parent's key) */
  filters?: string[];
  page: { defaultLimit: number; maxLimit: number };
  rules: ResourceRules;
  unique: UniqueKey[];
  /**
   * A soft-deleted resource: the column that a delete clears. Lists leave cleared rows out unless
   * asked to `include_inactive`, and a delete answers the record.
   */
  active?: string;
  /** rows of other tables that keep a (hard-deleted) record from being deleted */
  usedBy?: Array<{ table: string; column: string }>;
  /** further checks of a create or update, after the parent's and the unique keys'; `values` are the record after the change */
  check?(trx: Knex.Transaction, values: Values, id: number | null): Promise<void>;
  /** a check before a (hard) delete, beyond usedBy */
  checkDelete?(trx: Knex.Transaction, id: number): Promise<void>;
}

/** The resource's rows (aliased `t`) with the parent's name joined in. */
export function baseQuery(db: Queryable, def: ResourceDef): Knex.QueryBuilder {
  const q = db(`${def.table} as t`).select('t.*');
  const { parent } = def;
  if (parent) {
    const join = parent.optional ? 'leftJoin' : 'join';
    q[join](`${parent.resource.table} as p`, 'p.id', `t.${parent.key}`).select(`p.name as ${parent.nameField}`);
  }
  return q;
}

const convert: Record<FieldKind, (v: unknown) => unknown> = {
  int: (v) => Number(v),
  'int?': nullableId,
  text: (v) => v,
  'text?': (v) => v ?? null,
  flag: (v) => (Number(v) ? 1 : 0),
  time: toIsoRequired,
};

/** A row as the API shows it: the resource's fields, in their order. */
export function toRecord(def: ResourceDef, row: Values): Values {
  return Object.fromEntries(Object.entries(def.fields).map(([field, kind]) => [field, convert[kind](row[field])]));
}

/** A list's order: the resource's, then the id. */
export const orderOf = (def: ResourceDef): string[] => [...def.orderBy, 'id'].map((c) => `t.${c}`);

/** The list parameters that filter on a column: the parent's key, then the resource's filters. */
export const filtersOf = (def: ResourceDef): string[] => [...(def.parent ? [def.parent.key] : []), ...(def.filters ?? [])];
