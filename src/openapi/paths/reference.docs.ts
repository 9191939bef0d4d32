import type { ResourceSpec } from '../../modules/reference';
import { int, nullable, query, str, timestamp, type Param, type Schema } from '../builders';
import { times as exampleTimes } from '../examples';

/**
 * What the reference resource definitions (modules/reference) do not say in a form the document
 * can use: the record, the body, the list filters, and an example record.
 */

const times = { created_at: timestamp(), updated_at: timestamp() };
export const code = nullable(str({ maxLength: 30, description: 'an empty string is stored as null' }));

export interface ResourceDoc {
  record: Record<string, Schema>;
  nameMax: number;
  fields?: Record<string, Schema>;
  requiredFields?: string[];
  filters?: Param[];
  description?: string;
  /** the record as a read answers it; a write's example body is its name, code and `fields` */
  example: Record<string, unknown>;
}

const DOCS: Record<string, ResourceDoc> = {
  units: {
    record: { id: int(), name: str(), code, parent_id: nullable(int()), parent_name: nullable(str()), description: nullable(str()), ...times },
    nameMax: 150,
    fields: {
      parent_id: nullable(int({ minimum: 1, description: 'an existing unit, not this one nor one of its sub-units; null for a top-level unit' })),
      description: nullable(str({ maxLength: 500 })),
    },
    filters: [
      query('parent_id', { anyOf: [int({ minimum: 1 }), { type: 'string', const: 'null' }] }, 'the sub-units of this unit; `null` for the top-level units'),
      query('code', str({ maxLength: 30 }), 'exact code'),
    ],
    description: 'Name and code are each unique.',
    example: {
      id: 3,
      name: 'Dhaka Regional Office',
      code: 'DHK-RO',
      parent_id: 2,
      parent_name: 'Operations Directorate',
      description: 'The field offices of Dhaka division',
      ...exampleTimes,
    },
  },
  departments: {
    record: { id: int(), unit_id: int(), unit_name: str(), name: str(), code, ...times },
    nameMax: 150,
    fields: { unit_id: int({ minimum: 1, description: 'an existing unit; a department with contacts keeps its unit' }) },
    requiredFields: ['unit_id'],
    filters: [query('unit_id', int({ minimum: 1 }), 'the departments of this unit')],
    description: 'The name is unique within the unit.',
    example: { id: 9, unit_id: 3, unit_name: 'Dhaka Regional Office', name: 'Field Operations', code: 'DHK-FO', ...exampleTimes },
  },
  designations: {
    record: { id: int(), name: str(), code, ...times },
    nameMax: 150,
    description: 'Name and code are each unique.',
    example: { id: 6, name: 'Staff Officer', code: 'SO', ...exampleTimes },
  },
  ranks: {
    record: { id: int(), name: str(), code, level: int({ minimum: 1, description: 'seniority, 1 the most senior' }), ...times },
    nameMax: 100,
    fields: { level: int({ minimum: 1, maximum: 1000, description: 'seniority, 1 the most senior' }) },
    requiredFields: ['level'],
    description: 'Listed by level, then name. Name and code are each unique.',
    example: { id: 7, name: 'Major', code: 'MAJ', level: 7, ...exampleTimes },
  },
  organizations: {
    record: { id: int(), name: str(), code, ...times },
    nameMax: 150,
    description:
      'Name and code are each unique. A caller without `organizations.manage` sees only the own organization (another one is 404).',
    example: { id: 2, name: 'Coastal Liaison Office', code: 'CLO', ...exampleTimes },
  },
};

export const docOf = (spec: ResourceSpec): ResourceDoc => {
  const doc = DOCS[spec.def.plural];
  if (!doc) throw new Error(`no OpenAPI description of the reference resource ${spec.def.plural}`);
  return doc;
};

/** The example body of a create or an update: the example record's writable fields. */
export const writeExample = (doc: ResourceDoc): Record<string, unknown> =>
  Object.fromEntries(['name', 'code', ...Object.keys(doc.fields ?? {})].map((key) => [key, doc.example[key]]));
