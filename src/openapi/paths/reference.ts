import { organizations, REFERENCE_CHANGED, REFERENCE_PAGE, REFERENCE_RESOURCES, type ResourceSpec } from '../../modules/reference';
import {
  ADMINS,
  ANY_USER,
  arrayOf,
  body,
  type ConditionalWrite,
  E403,
  E404,
  E409,
  int,
  nullable,
  obj,
  operation,
  paging,
  pathId,
  query,
  ref,
  str,
  SUPER_ADMIN,
  success,
  timestamp,
  type Param,
  type Schema,
} from '../builders';
import { capitalized } from '../../lib/text';

/**
 * Units, departments, designations, ranks and organizations (one generic router, built from the
 * resource definitions) and roles (docs/api.md, Reference data and roles).
 */

const tags = ['Reference data'];

/** The writes of a record compare the reference data's version that its GET's ETag names (docs/api.md, Conditional requests). */
const asRead = (path: string): ConditionalWrite => ({
  tag: `the ETag of GET ${path} (it names the version of all reference data: stale once any unit, department, designation, rank, organization or role changed)`,
  message: REFERENCE_CHANGED,
});
const times = { created_at: timestamp(), updated_at: timestamp() };
const code = nullable(str({ maxLength: 30, description: 'an empty string is stored as null' }));
const name = (max: number) => str({ minLength: 2, maxLength: max, description: 'trimmed; unique case-insensitively' });

/** What the resource definitions do not say in a form the document can use: the record, the body, the list filters. */
interface ResourceDoc {
  record: Record<string, Schema>;
  nameMax: number;
  fields?: Record<string, Schema>;
  requiredFields?: string[];
  filters?: Param[];
  description?: string;
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
  },
  departments: {
    record: { id: int(), unit_id: int(), unit_name: str(), name: str(), code, ...times },
    nameMax: 150,
    fields: { unit_id: int({ minimum: 1, description: 'an existing unit; a department with contacts keeps its unit' }) },
    requiredFields: ['unit_id'],
    filters: [query('unit_id', int({ minimum: 1 }), 'the departments of this unit')],
    description: 'The name is unique within the unit.',
  },
  designations: { record: { id: int(), name: str(), code, ...times }, nameMax: 150, description: 'Name and code are each unique.' },
  ranks: {
    record: { id: int(), name: str(), code, level: int({ minimum: 1, description: 'seniority, 1 the most senior' }), ...times },
    nameMax: 100,
    fields: { level: int({ minimum: 1, maximum: 1000, description: 'seniority, 1 the most senior' }) },
    requiredFields: ['level'],
    description: 'Listed by level, then name. Name and code are each unique.',
  },
  organizations: {
    record: { id: int(), name: str(), code, ...times },
    nameMax: 150,
    description:
      'Name and code are each unique. A caller without `organizations.manage` sees only the own organization (another one is 404).',
  },
};

const docOf = (spec: ResourceSpec): ResourceDoc => {
  const doc = DOCS[spec.def.plural];
  if (!doc) throw new Error(`no OpenAPI description of the reference resource ${spec.def.plural}`);
  return doc;
};

const RESOURCES = [...REFERENCE_RESOURCES, organizations];

export const referenceSchemas: Record<string, Schema> = {
  ...Object.fromEntries(RESOURCES.map((spec) => [spec.def.label, obj(docOf(spec).record)])),
  Role: obj({
    id: int(),
    name: str(),
    description: nullable(str()),
    permissions: arrayOf(str(), { description: 'permission names, sorted' }),
    ...times,
  }),
  Permission: obj({ id: int(), name: str(), description: nullable(str()) }),
};

function resourcePaths(spec: ResourceSpec): Record<string, Record<string, unknown>> {
  const { def } = spec;
  const doc = docOf(spec);
  const managesOrganizations = spec === organizations;
  const writers = managesOrganizations
    ? { roles: SUPER_ADMIN, permission: 'organizations.manage' }
    : { roles: ADMINS, permission: 'reference.write' };
  const record = ref(def.label);
  const one = (message: string) => success(message, obj({ [def.singular]: record }));
  const notFound = E404(`${def.label} not found`);
  const writeBody = (creating: boolean) =>
    body({ name: name(doc.nameMax), code, ...doc.fields }, creating ? ['name', ...(doc.requiredFields ?? [])] : []);
  const base = `/api/${def.plural}`;
  const inUse = managesOrganizations ? 'while users belong to it, and the default organization never' : 'while other records use it';

  return {
    [base]: {
      get: operation({
        tags,
        summary: `List ${def.plural}`,
        conditional: 'read',
        description: doc.description,
        roles: ANY_USER,
        params: [
          ...paging(REFERENCE_PAGE.defaultLimit, REFERENCE_PAGE.maxLimit),
          query('search', str({ maxLength: 100 }), 'case-insensitive substring of name or code'),
          ...(doc.filters ?? []),
        ],
        responses: { 200: success(`${capitalized(def.plural)} retrieved successfully`, obj({ [def.plural]: arrayOf(record), pagination: ref('Pagination') })) },
      }),
      post: operation({
        tags,
        summary: `Create a ${def.singular}`,
        description: doc.description,
        ...writers,
        requestBody: writeBody(true),
        responses: { 201: one(`${def.label} created successfully`), 403: E403, 409: E409 },
      }),
    },
    [`${base}/{id}`]: {
      get: operation({
        tags,
        summary: `One ${def.singular}`,
        conditional: 'read',
        roles: ANY_USER,
        params: [pathId()],
        responses: { 200: one(`${def.label} retrieved successfully`), 404: notFound },
      }),
      put: operation({
        tags,
        summary: `Update a ${def.singular}`,
        conditional: asRead(`${base}/{id}`),
        description: 'Any of the fields.',
        ...writers,
        params: [pathId()],
        requestBody: writeBody(false),
        responses: { 200: one(`${def.label} updated successfully`), 403: E403, 404: notFound, 409: E409 },
      }),
      delete: operation({
        tags,
        summary: `Delete a ${def.singular}`,
        conditional: asRead(`${base}/{id}`),
        description: `Removes the row; refused (409) ${inUse}.`,
        ...writers,
        params: [pathId()],
        responses: { 200: success(`${def.label} deleted successfully`), 403: E403, 404: notFound, 409: E409 },
      }),
    },
  };
}

const roleBody = (creating: boolean) =>
  body(
    {
      name: str({ minLength: 2, maxLength: 50, description: 'trimmed; unique case-insensitively' }),
      description: nullable(str({ maxLength: 255 })),
      permissions: arrayOf(str({ maxLength: 100 }), {
        maxItems: 100,
        description: 'permission names (replacing the role\'s grants on update); only ones the caller holds',
      }),
    },
    creating ? ['name'] : [],
  );
const roleWriters = { roles: ADMINS, permission: 'reference.write' };
const roleNotFound = E404('Role not found');
const role = success('Role updated successfully', obj({ role: ref('Role') }));

export const referencePaths: Record<string, Record<string, unknown>> = {
  ...Object.assign({}, ...RESOURCES.map(resourcePaths)),
  '/api/roles': {
    get: operation({
      tags,
      summary: 'Every role with its permissions, and every permission',
      conditional: 'read',
      roles: ANY_USER,
      responses: {
        200: success('Roles retrieved successfully', obj({ roles: arrayOf(ref('Role')), permissions: arrayOf(ref('Permission')) })),
      },
    }),
    post: operation({
      tags,
      summary: 'Create a role',
      description: 'Nobody grants a permission they lack (403).',
      ...roleWriters,
      requestBody: roleBody(true),
      responses: { 201: success('Role created successfully', obj({ role: ref('Role') })), 403: E403, 409: E409 },
    }),
  },
  '/api/roles/{id}': {
    get: operation({
      tags,
      summary: 'One role with its permissions',
      conditional: 'read',
      roles: ANY_USER,
      params: [pathId()],
      responses: { 200: success('Role retrieved successfully', obj({ role: ref('Role') })), 404: roleNotFound },
    }),
    put: operation({
      tags,
      summary: 'Update a role',
      conditional: asRead('/api/roles/{id}'),
      description:
        'Built-in roles (1-3) are not changed (409). Nobody changes a role holding, or grants, a permission they lack (403). New permissions revoke the tokens of the role\'s holders.',
      ...roleWriters,
      params: [pathId()],
      requestBody: roleBody(false),
      responses: { 200: role, 403: E403, 404: roleNotFound, 409: E409 },
    }),
    delete: operation({
      tags,
      summary: 'Delete a role',
      conditional: asRead('/api/roles/{id}'),
      description: 'Refused (409) for built-in roles and while users hold the role; 403 for a role holding a permission the caller lacks.',
      ...roleWriters,
      params: [pathId()],
      responses: { 200: success('Role deleted successfully'), 403: E403, 404: roleNotFound, 409: E409 },
    }),
  },
};
