import { LEVELS, LOCATIONS_CHANGED, LOCATIONS_PAGE, parentNameField, type LevelDef } from '../../modules/locations';
import {
  ADMINS,
  ANY_USER,
  arrayOf,
  body,
  bool,
  type ConditionalWrite,
  E403,
  E404,
  errorResponse,
  int,
  nullable,
  obj,
  operation,
  paging,
  pathId,
  query,
  queryBool,
  ref,
  str,
  success,
  timestamp,
  type Param,
  type Schema,
} from '../builders';
import { paged } from '../paging';
import { capitalized } from '../../lib/text';
import { pagination, times } from '../examples';

/**
 * /api/locations: four groups (countries, divisions, districts, thanas) with the same operations,
 * built from the level definitions the router is built from (docs/api.md, Locations).
 */

const tags = ['Locations'];
const WRITE = 'locations.write';

/** The writes of a record compare the locations' version that its GET's ETag names (docs/api.md, Conditional requests). */
const asRead = (path: string): ConditionalWrite => ({
  tag: `the ETag of GET ${path} (it names the version of all locations: stale once any country, division, district or thana changed)`,
  message: LOCATIONS_CHANGED,
});

const isActive = int({ enum: [1, 0], description: '1 active, 0 soft-deleted' });
const positiveId = (description: string) => int({ minimum: 1, description: `${description}; a JSON number or a string of digits` });
/** `true`/`false`/`1`/`0`, as JSON or as text */
const boolInput = { anyOf: [bool(), { enum: [1, 0, '1', '0', 'true', 'false'] }], description: '1 reactivates, 0 deactivates' };

/** A level's record: id, the parent's id and name (not on countries), name, code, is_active as 1/0, timestamps. */
function recordSchema(level: LevelDef): Schema {
  const parent: Record<string, Schema> = level.parent
    ? { [level.parent.key]: int(), [parentNameField(level)!]: str({ description: `the ${level.parent.level.singular}'s name` }) }
    : {};
  return obj({
    id: int(),
    ...parent,
    name: str(),
    code: nullable(str()),
    is_active: isActive,
    created_at: timestamp(),
    updated_at: timestamp(),
  });
}

const levelCounts = obj({ total: int({ minimum: 0 }), active: int({ minimum: 0 }) });

/** The example place of each level, one inside the other (seeds/data): Kaliakair, Gazipur, Dhaka, Bangladesh. */
const SAMPLES: Record<string, { id: number; name: string; code: string; records: number }> = {
  Country: { id: 1, name: 'Bangladesh', code: 'BD', records: 1 },
  Division: { id: 6, name: 'Dhaka', code: '30', records: 8 },
  District: { id: 18, name: 'Gazipur', code: '33', records: 64 },
  Thana: { id: 140, name: 'Kaliakair', code: '3332', records: 495 },
};
const sampleOf = (level: LevelDef) => {
  const sample = SAMPLES[level.label];
  if (!sample) throw new Error(`no example ${level.singular}`);
  return sample;
};
/** The level's example record, as a read answers it. */
function recordExample(level: LevelDef): Record<string, unknown> {
  const { id, name, code } = sampleOf(level);
  const parent = level.parent ? { [level.parent.key]: sampleOf(level.parent.level).id, [parentNameField(level)!]: sampleOf(level.parent.level).name } : {};
  return { id, ...parent, name, code, is_active: 1, ...times };
}

export const locationSchemas: Record<string, Schema> = {
  ...Object.fromEntries(LEVELS.map((level) => [level.label, recordSchema(level)])),
  LocationStatistics: obj(Object.fromEntries(LEVELS.map((level) => [level.plural, levelCounts]))),
};

const statisticsExample = {
  statistics: Object.fromEntries(LEVELS.map((level) => [level.plural, { total: sampleOf(level).records, active: sampleOf(level).records }])),
};

/** Create (everything the level requires) or update (any of the fields, and is_active). */
function levelBody(level: LevelDef, creating: boolean): Schema {
  const parent = level.parent ? { [level.parent.key]: positiveId(`an existing, active ${level.parent.level.singular}`) } : {};
  return body(
    {
      ...parent,
      name: str({ minLength: 1, maxLength: 100, description: 'trimmed; stored as given (no case folding)' }),
      code: nullable(str({ maxLength: 20, description: 'an empty string is stored as null' })),
      ...(creating ? {} : { is_active: boolInput }),
    },
    creating ? [...(level.parent ? [level.parent.key] : []), 'name'] : [],
  );
}

function levelPaths(level: LevelDef): Record<string, Record<string, unknown>> {
  const base = `/api/locations/${level.plural}`;
  const record = ref(level.label);
  const example = recordExample(level);
  const one = (message: string, schema: Schema = record, value: unknown = example) => success(message, obj({ [level.singular]: schema }), { [level.singular]: value });
  const fields = { name: example.name, code: example.code };
  const Plural = capitalized(level.plural);
  const notFound = E404(`${level.label} not found`);
  const duplicate = errorResponse('The name is taken under the same parent (inactive records count too)', level.duplicateMessage);
  const listed = `${capitalized(level.plural)} retrieved successfully`;
  const parentCheck = level.parent
    ? ` The ${level.parent.level.singular} must exist and be active: otherwise 400 on \`${level.parent.key}\`.`
    : '';
  const params: Param[] = [
    ...paging(LOCATIONS_PAGE.defaultLimit, LOCATIONS_PAGE.maxLimit),
    query('search', str({ maxLength: 100 }), 'case-insensitive substring of name or code (trimmed; every character literal)'),
    queryBool('include_inactive', 'include soft-deleted records'),
    ...(level.parent ? [query(level.parent.key, int({ minimum: 1 }), `only the ${level.plural} of this ${level.parent.level.singular}`)] : []),
  ];

  const paths: Record<string, Record<string, unknown>> = {
    [base]: {
      get: operation({
        id: `list${Plural}`,
        tags,
        summary: `List ${level.plural}`,
        conditional: 'read',
        description: 'Ordered by name (binary order), then id. A page past the end is empty, with the real total.',
        roles: ANY_USER,
        params,
        responses: {
          200: paged(success(listed, obj({ [level.plural]: arrayOf(record), pagination: ref('Pagination') }), {
            [level.plural]: [example],
            pagination: pagination(1, LOCATIONS_PAGE.defaultLimit),
          })),
        },
      }),
      post: operation({
        id: `create${level.label}`,
        tags,
        summary: `Create a ${level.singular}`,
        description: `The name is unique${level.parent ? ` within the ${level.parent.level.singular}` : ''}.${parentCheck}`,
        roles: ADMINS,
        permission: WRITE,
        requestBody: levelBody(level, true),
        requestExample: { ...(level.parent ? { [level.parent.key]: example[level.parent.key] } : {}), ...fields },
        responses: { 201: one(`${level.label} created successfully`), 403: E403, 409: duplicate },
      }),
    },
    [`${base}/{id}`]: {
      get: operation({
        id: `get${level.label}`,
        tags,
        summary: `One ${level.singular} (inactive ones too)`,
        conditional: 'read',
        roles: ANY_USER,
        params: [pathId()],
        responses: { 200: one(`${level.label} retrieved successfully`), 404: notFound },
      }),
      put: operation({
        id: `update${level.label}`,
        tags,
        summary: `Update a ${level.singular}`,
        conditional: asRead(`${base}/{id}`),
        description: `Any of the fields; an empty body changes only \`updated_at\`.${level.parent ? ` The ${level.parent.level.singular} is checked only when it changes.` : ''}`,
        roles: ADMINS,
        permission: WRITE,
        params: [pathId()],
        requestBody: levelBody(level, false),
        requestExample: fields,
        responses: { 200: one(`${level.label} updated successfully`), 403: E403, 404: notFound, 409: duplicate },
      }),
      delete: operation({
        id: `delete${level.label}`,
        tags,
        summary: `Soft-delete a ${level.singular} (is_active 0; its children are unchanged)`,
        conditional: asRead(`${base}/{id}`),
        description: 'Deleting an inactive record answers 200 again.',
        roles: ADMINS,
        permission: WRITE,
        params: [pathId()],
        responses: {
          200: one(`${level.label} deleted successfully`, { allOf: [record, { properties: { is_active: { const: 0 } } }] }, { ...example, is_active: 0 }),
          403: E403,
          404: notFound,
        },
      }),
    },
  };

  if (level.parent) {
    const { key, level: parentLevel } = level.parent;
    paths[`${base}/${parentLevel.singular}/{${key}}`] = {
      get: operation({
        id: `list${Plural}Of${parentLevel.label}`,
        tags,
        summary: `Every active ${level.singular} of a ${parentLevel.singular}, by name (not paged)`,
        conditional: 'read',
        description: `An inactive ${parentLevel.singular} is still known: its active ${level.plural} are listed.`,
        roles: ANY_USER,
        params: [pathId(key)],
        responses: {
          200: success(listed, obj({ [key]: int(), [level.plural]: arrayOf(record), total: int({ minimum: 0 }) }), {
            [key]: example[key],
            [level.plural]: [example],
            total: 1,
          }),
          404: E404(`${parentLevel.label} not found`),
        },
      }),
    };
  }
  return paths;
}

export const locationPaths: Record<string, Record<string, unknown>> = {
  '/api/locations/statistics': {
    get: operation({
      id: 'getLocationStatistics',
      tags,
      summary: 'Total and active records per level',
      conditional: 'read',
      roles: ANY_USER,
      responses: { 200: success('Location statistics retrieved successfully', obj({ statistics: ref('LocationStatistics') }), statisticsExample) },
    }),
  },
  ...Object.assign({}, ...LEVELS.map(levelPaths)),
};
