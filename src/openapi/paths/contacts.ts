import { CONTACT_PAGE, FORMATS, ROLE_FILTERS, SEARCH_LIMIT } from '../../modules/contacts';
import { ADMINS, ANY_USER, arrayOf, body, E403, E403_BULK, E404, int, nullable, obj, operation, paging, pathId, query, queryBool, ref, str, SUPER_ADMIN, success } from '../builders';
import { contactItemPaths } from './contact-item';
import { contactAndTree, contactBody, contactIds, notFound, parentId, READ, setParams, tags } from './contacts.parts';
import {
  contactAndTreeExample,
  contactExample,
  contactStatistics,
  contactTree,
  createContactExample,
  hierarchyExample,
  listExample,
} from './contacts.examples';
import { contactSchemas as recordSchemas } from './contacts.schemas';
import { CHANGES_CURSOR_HEADER, changePaths, changeSchemas } from './contacts.changes';

export const contactSchemas = { ...recordSchemas, ...changeSchemas };

/** The list's answers (200, and 304 for the same read) carry the change feed's cursor beside the ETag. */
function withChangesCursor<T extends { responses: Record<string, unknown> }>(op: T): T {
  for (const status of ['200', '304']) {
    const response = op.responses[status] as { headers?: Record<string, unknown> };
    op.responses[status] = { ...response, headers: { ...response.headers, ...CHANGES_CURSOR_HEADER } };
  }
  return op;
}

export const contactPaths = {
  '/api/contacts': {
    get: withChangesCursor(operation({
      id: 'listContacts',
      tags,
      summary: 'List contacts',
      conditional: 'read',
      description:
        'The filtered set in the directory\'s depth-first order (roots and siblings by name, then id); `page` and `limit` page over it. In tree format a contact whose parent is not on the page stands at the top level. `parent_id` lists the subtree below that contact. `tree=false` means flat unless `format` says otherwise.',
      roles: ANY_USER,
      permission: READ,
      params: [
        ...paging(CONTACT_PAGE.defaultLimit, CONTACT_PAGE.maxLimit),
        ...setParams,
        query('parent_id', int({ minimum: 1 }), 'list the subtree below this contact'),
        query('unit_id', int({ minimum: 1 })),
        queryBool('tree', 'false: flat format', true),
      ],
      responses: {
        200: success(
          'Contacts retrieved successfully',
          obj({
            contacts: ref('ContactList'),
            statistics: ref('ContactStatistics'),
            pagination: obj({ page: int(), limit: int(), total: int(), format: str({ enum: [...FORMATS] }) }),
            filters: obj({
              search: str(),
              parent_id: nullable(str()),
              unit_id: nullable(str()),
              department_id: nullable(str()),
              tree: { type: 'boolean' },
              include_inactive: { type: 'boolean' },
              role_filter: str({ enum: [...ROLE_FILTERS] }),
            }),
          }),
          listExample,
        ),
        404: notFound,
      },
    })),
    post: operation({
      id: 'createContact',
      tags,
      summary: 'Create a contact',
      roles: ADMINS,
      permission: `${READ} + contacts.create`,
      requestBody: contactBody(true),
      requestExample: createContactExample,
      responses: { 201: success('Contact created successfully', contactAndTree, contactAndTreeExample), 403: E403 },
    }),
  },
  '/api/contacts/search': {
    get: operation({
      id: 'searchContacts',
      tags,
      summary: 'Search active contacts',
      conditional: 'read',
      description:
        'Case-insensitive substring of name, e-mail, service number, phone or mobile (every character literal). Exact service number or e-mail first, then names starting with `q`, then the rest by name. `total` counts every match.',
      roles: ANY_USER,
      permission: READ,
      params: [
        { name: 'q', in: 'query', required: true, schema: str({ minLength: 2, maxLength: 100 }) },
        query('unit_id', int({ minimum: 1 })),
        query('department_id', int({ minimum: 1 })),
        query('limit', int({ minimum: 1, maximum: SEARCH_LIMIT.maxLimit, default: SEARCH_LIMIT.defaultLimit })),
      ],
      responses: {
        200: success(
          'Search completed successfully',
          obj({
            contacts: arrayOf(ref('Contact')),
            searchTerm: str(),
            filters: obj({ unit_id: nullable(str()), department_id: nullable(str()) }),
            total: int({ minimum: 0 }),
          }),
          { contacts: [contactExample], searchTerm: 'ayesha', filters: { unit_id: null, department_id: null }, total: 1 },
        ),
      },
    }),
  },
  '/api/contacts/statistics': {
    get: operation({
      id: 'getContactStatistics',
      tags,
      summary: 'Counters over the active directory',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      responses: {
        200: success('Statistics retrieved successfully', obj({ statistics: ref('DirectoryStatistics') }), {
          statistics: { ...contactStatistics, total_units: 12, total_departments: 31 },
        }),
      },
    }),
  },
  '/api/contacts/organizational-hierarchy': {
    get: operation({
      id: 'getOrganizationalHierarchy',
      tags,
      summary: 'Units as a tree, with departments and head counts',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      responses: {
        200: success('Organizational hierarchy retrieved successfully', obj({ hierarchy: obj({ units: arrayOf(ref('HierarchyUnit')) }) }), {
          hierarchy: hierarchyExample,
        }),
      },
    }),
  },
  '/api/contacts/unit/{unitId}': {
    get: operation({
      id: 'getUnitContacts',
      tags,
      summary: 'The whole tree of a unit, unpaged',
      description:
        'Large (6.6 MB of JSON for 10,000 contacts): sent gzipped (`Content-Encoding: gzip`) when `Accept-Encoding` allows it, as every browser asks. Each process keeps the last four built, so an unchanged tree is not built again.',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      params: [pathId('unitId'), ...setParams],
      responses: {
        200: success(
          'Unit contacts retrieved successfully',
          obj({
            unit_id: int(),
            contacts: ref('ContactList'),
            statistics: ref('ContactStatistics'),
            filters: obj({
              search: str(),
              department_id: nullable(str()),
              format: str({ enum: [...FORMATS] }),
              include_inactive: { type: 'boolean' },
              role_filter: str({ enum: [...ROLE_FILTERS] }),
            }),
          }),
          {
            unit_id: 3,
            contacts: contactTree,
            statistics: contactStatistics,
            filters: { search: '', department_id: null, format: 'tree', include_inactive: false, role_filter: 'all' },
          },
        ),
        404: E404('Unit not found'),
      },
    }),
  },
  '/api/contacts/bulk-delete': {
    post: operation({
      id: 'bulkDeleteContacts',
      tags,
      summary: 'Deactivate many contacts',
      description: 'Unknown and already inactive ids are skipped; children of removed contacts become roots unless removed in the same call.',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.delete + contacts.bulk`,
      requestBody: body({ contactIds }, ['contactIds']),
      requestExample: { contactIds: [42, 43] },
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts deleted successfully$', examples: ['2 contacts deleted successfully'] },
          obj({ deletedCount: int({ minimum: 0 }), contactIds: arrayOf(int()) }),
          { deletedCount: 2, contactIds: [42, 43] },
        ),
        403: E403_BULK,
      },
    }),
  },
  '/api/contacts/bulk-move': {
    post: operation({
      id: 'bulkMoveContacts',
      tags,
      summary: 'Move many contacts under one parent (all or nothing)',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.move + contacts.bulk`,
      requestBody: body({ contactIds, parent_id: parentId }, ['contactIds', 'parent_id']),
      requestExample: { contactIds: [42, 43], parent_id: 17 },
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts moved successfully$', examples: ['2 contacts moved successfully'] },
          obj({ movedCount: int({ minimum: 0 }), contactIds: arrayOf(int()), new_parent_id: nullable(int()) }),
          { movedCount: 2, contactIds: [42, 43], new_parent_id: 17 },
        ),
        403: E403_BULK,
      },
    }),
  },
  ...changePaths,
  ...contactItemPaths,
};
