import type { Knex } from 'knex';
import type { Queryable } from '../../lib/db';
import { toIsoRequired } from '../../lib/time';

export type Row = Record<string, unknown>;

/** What one level of the country > division > district > thana hierarchy is called and hangs from. */
export interface LevelDef {
  table: string;
  /** the path segment and the list's data key: `divisions` */
  plural: string;
  /** the record's data key: `division` */
  singular: string;
  /** the word in messages: `Division` */
  label: string;
  /** the level above, and this table's column that refers to it; null for countries */
  parent: { level: LevelDef; key: string } | null;
  /** 409 when the name is taken under the same parent */
  duplicateMessage: string;
}

export const countries: LevelDef = {
  table: 'countries',
  plural: 'countries',
  singular: 'country',
  label: 'Country',
  parent: null,
  duplicateMessage: 'A country with this name already exists',
};

export const divisions: LevelDef = {
  table: 'divisions',
  plural: 'divisions',
  singular: 'division',
  label: 'Division',
  parent: { level: countries, key: 'country_id' },
  duplicateMessage: 'A division with this name already exists in this country',
};

export const districts: LevelDef = {
  table: 'districts',
  plural: 'districts',
  singular: 'district',
  label: 'District',
  parent: { level: divisions, key: 'division_id' },
  duplicateMessage: 'A district with this name already exists in this division',
};

export const thanas: LevelDef = {
  table: 'thanas',
  plural: 'thanas',
  singular: 'thana',
  label: 'Thana',
  parent: { level: districts, key: 'district_id' },
  duplicateMessage: 'A thana with this name already exists in this district',
};

/** Top down: the order of the hierarchy (and of the statistics object). */
export const LEVELS: readonly LevelDef[] = [countries, divisions, districts, thanas];

/** The response field that carries the parent's name: `country_name`. */
export const parentNameField = (level: LevelDef): string | null =>
  level.parent ? `${level.parent.level.singular}_name` : null;

/** The level's rows (aliased `t`) with the parent's name joined in. */
export function baseQuery(db: Queryable, level: LevelDef): Knex.QueryBuilder {
  const q = db(`${level.table} as t`).select('t.*');
  if (level.parent) {
    q.join(`${level.parent.level.table} as p`, 'p.id', `t.${level.parent.key}`).select(`p.name as ${parentNameField(level)}`);
  }
  return q;
}

/** A row as the API shows it: snake_case, integer ids, is_active as 1/0, ISO timestamps. */
export function toRecord(level: LevelDef, row: Row): Row {
  const parent = level.parent
    ? { [level.parent.key]: Number(row[level.parent.key]), [parentNameField(level)!]: row[parentNameField(level)!] }
    : {};
  return {
    id: Number(row.id),
    ...parent,
    name: row.name,
    code: row.code ?? null,
    is_active: Number(row.is_active) ? 1 : 0,
    created_at: toIsoRequired(row.created_at),
    updated_at: toIsoRequired(row.updated_at),
  };
}
