import type { ParentRelation, ResourceDef } from '../../lib/crud';
import { createRules, listRules, updateRules } from './locations.validators';

export const LOCATIONS_PAGE = { defaultLimit: 50, maxLimit: 500 };

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

/**
 * Every level is the same kind of record (lib/crud): id, the parent's id and name, name, code,
 * is_active, timestamps. The name is unique under its parent, compared as stored (binary
 * collation on MySQL, BINARY on SQLite, as the table's key compares); the parent must exist and
 * be active; a delete is soft, and the level lists the children of one parent.
 */
function resourceOf(level: LevelDef, above: ResourceDef | undefined): ResourceDef {
  if (level.parent && !above) throw new Error(`the level above ${level.plural} comes first in LEVELS`);
  const parent: ParentRelation | undefined =
    level.parent && above ? { resource: above, key: level.parent.key, nameField: parentNameField(level)!, checked: true, byParent: true } : undefined;
  return {
    table: level.table,
    plural: level.plural,
    singular: level.singular,
    label: level.label,
    fields: {
      id: 'int',
      ...(parent && { [parent.key]: 'int', [parent.nameField]: 'text' }),
      name: 'text',
      code: 'text?',
      is_active: 'flag',
      created_at: 'time',
      updated_at: 'time',
    },
    parent,
    search: ['name', 'code'],
    orderBy: ['name'],
    page: LOCATIONS_PAGE,
    rules: { list: listRules(level), create: createRules(level), update: updateRules(level) },
    unique: [{ columns: parent ? [parent.key, 'name'] : ['name'], message: level.duplicateMessage, exact: true }],
    active: 'is_active',
  };
}

const resources = new Map<LevelDef, ResourceDef>();
for (const level of LEVELS) resources.set(level, resourceOf(level, level.parent ? resources.get(level.parent.level) : undefined));

/** The engine's definition of each level, top down. */
export const LEVEL_RESOURCES: readonly ResourceDef[] = [...resources.values()];
