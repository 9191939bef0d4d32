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
  type Schema,
} from '../builders';
import { paged } from '../paging';
import { capitalized } from '../../lib/text';
import { pagination, times as exampleTimes } from '../examples';
import { code, docOf, writeExample } from './reference.docs';

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
const name = (max: number) => str({ minLength: 2, maxLength: max, description: 'trimmed; unique case-insensitively' });

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
  // the documented writers follow the permission the router requires (reference.router.ts)
  const managesOrganizations = spec.writePermission === 'organizations.manage';
  const writers = { roles: managesOrganizations ? SUPER_ADMIN : ADMINS, permission: spec.writePermission };
  const record = ref(def.label);
  const one = (message: string) => success(message, obj({ [def.singular]: record }), { [def.singular]: doc.example });
  const Plural = capitalized(def.plural);
  const notFound = E404(`${def.label} not found`);
  const writeBody = (creating: boolean) =>
    body({ name: name(doc.nameMax), code, ...doc.fields }, creating ? ['name', ...(doc.requiredFields ?? [])] : []);
  const base = `/api/${def.plural}`;
  const inUse = managesOrganizations ? 'while users belong to it, and the default organization never' : 'while other records use it';

  return {
    [base]: {
      get: operation({
        id: `list${Plural}`,
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
        responses: {
          200: paged(success(`${Plural} retrieved successfully`, obj({ [def.plural]: arrayOf(record), pagination: ref('Pagination') }), {
            [def.plural]: [doc.example],
            pagination: pagination(1, REFERENCE_PAGE.defaultLimit),
          })),
        },
      }),
      post: operation({
        id: `create${def.label}`,
        tags,
        summary: `Create a ${def.singular}`,
        description: doc.description,
        ...writers,
        requestBody: writeBody(true),
        requestExample: writeExample(doc),
        responses: { 201: one(`${def.label} created successfully`), 403: E403, 409: E409 },
      }),
    },
    [`${base}/{id}`]: {
      get: operation({
        id: `get${def.label}`,
        tags,
        summary: `One ${def.singular}`,
        conditional: 'read',
        roles: ANY_USER,
        params: [pathId()],
        responses: { 200: one(`${def.label} retrieved successfully`), 404: notFound },
      }),
      put: operation({
        id: `update${def.label}`,
        tags,
        summary: `Update a ${def.singular}`,
        conditional: asRead(`${base}/{id}`),
        description: 'Any of the fields.',
        ...writers,
        params: [pathId()],
        requestBody: writeBody(false),
        requestExample: writeExample(doc),
        responses: { 200: one(`${def.label} updated successfully`), 403: E403, 404: notFound, 409: E409 },
      }),
      delete: operation({
        id: `delete${def.label}`,
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
const roleExample = {
  id: 4,
  name: 'Auditor',
  description: 'Reads the directory and its audit trail',
  permissions: ['audit.read_organization', 'contacts.read'],
  ...exampleTimes,
};
const roleBodyExample = { name: roleExample.name, description: roleExample.description, permissions: roleExample.permissions };
const oneRole = (message: string) => success(message, obj({ role: ref('Role') }), { role: roleExample });

export const referencePaths: Record<string, Record<string, unknown>> = {
  ...Object.assign({}, ...RESOURCES.map(resourcePaths)),
  '/api/roles': {
    get: operation({
      id: 'listRoles',
      tags,
      summary: 'Every role with its permissions, and every permission',
      conditional: 'read',
      roles: ANY_USER,
      responses: {
        200: success('Roles retrieved successfully', obj({ roles: arrayOf(ref('Role')), permissions: arrayOf(ref('Permission')) }), {
          roles: [roleExample],
          permissions: [
            { id: 1, name: 'contacts.read', description: 'Read the contact directory' },
            { id: 15, name: 'audit.read_organization', description: "Read the audit trail of the caller's organization" },
          ],
        }),
      },
    }),
    post: operation({
      id: 'createRole',
      tags,
      summary: 'Create a role',
      description: 'Nobody grants a permission they lack (403).',
      ...roleWriters,
      requestBody: roleBody(true),
      requestExample: roleBodyExample,
      responses: { 201: oneRole('Role created successfully'), 403: E403, 409: E409 },
    }),
  },
  '/api/roles/{id}': {
    get: operation({
      id: 'getRole',
      tags,
      summary: 'One role with its permissions',
      conditional: 'read',
      roles: ANY_USER,
      params: [pathId()],
      responses: { 200: oneRole('Role retrieved successfully'), 404: roleNotFound },
    }),
    put: operation({
      id: 'updateRole',
      tags,
      summary: 'Update a role',
      conditional: asRead('/api/roles/{id}'),
      description:
        'Built-in roles (1-3) are not changed (409). Nobody changes a role holding, or grants, a permission they lack (403). New permissions revoke the tokens of the role\'s holders.',
      ...roleWriters,
      params: [pathId()],
      requestBody: roleBody(false),
      requestExample: { permissions: roleExample.permissions },
      responses: { 200: oneRole('Role updated successfully'), 403: E403, 404: roleNotFound, 409: E409 },
    }),
    delete: operation({
      id: 'deleteRole',
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
