import { CONTACT_PAGE, FORMATS, ROLE_FILTERS, SEARCH_LIMIT } from '../../modules/contacts';
import { ADMINS, ANY_USER, arrayOf, body, E403, E403_BULK, E404, int, nullable, obj, operation, paging, pathId, query, queryBool, ref, str, SUPER_ADMIN, success } from '../builders';
import { contactItemPaths } from './contact-item';
import { contactAndTree, contactBody, contactIds, notFound, parentId, READ, setParams, tags } from './contacts.parts';
import { contactSchemas } from './contacts.schemas';

export { contactSchemas };

export const contactPaths = {
  '/api/contacts': {
    get: operation({
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
        ),
        404: notFound,
      },
    }),
    post: operation({
      tags,
      summary: 'Create a contact',
      roles: ADMINS,
      permission: `${READ} + contacts.create`,
      requestBody: contactBody(true),
      responses: { 201: success('Contact created successfully', contactAndTree), 403: E403 },
    }),
  },
  '/api/contacts/search': {
    get: operation({
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
        ),
      },
    }),
  },
  '/api/contacts/statistics': {
    get: operation({
      tags,
      summary: 'Counters over the active directory',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      responses: { 200: success('Statistics retrieved successfully', obj({ statistics: ref('DirectoryStatistics') })) },
    }),
  },
  '/api/contacts/organizational-hierarchy': {
    get: operation({
      tags,
      summary: 'Units as a tree, with departments and head counts',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      responses: {
        200: success('Organizational hierarchy retrieved successfully', obj({ hierarchy: obj({ units: arrayOf(ref('HierarchyUnit')) }) })),
      },
    }),
  },
  '/api/contacts/unit/{unitId}': {
    get: operation({
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
        ),
        404: E404('Unit not found'),
      },
    }),
  },
  '/api/contacts/bulk-delete': {
    post: operation({
      tags,
      summary: 'Deactivate many contacts',
      description: 'Unknown and already inactive ids are skipped; children of removed contacts become roots unless removed in the same call.',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.delete + contacts.bulk`,
      requestBody: body({ contactIds }, ['contactIds']),
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts deleted successfully$' },
          obj({ deletedCount: int({ minimum: 0 }), contactIds: arrayOf(int()) }),
        ),
        403: E403_BULK,
      },
    }),
  },
  '/api/contacts/bulk-move': {
    post: operation({
      tags,
      summary: 'Move many contacts under one parent (all or nothing)',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.move + contacts.bulk`,
      requestBody: body({ contactIds, parent_id: parentId }, ['contactIds', 'parent_id']),
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts moved successfully$' },
          obj({ movedCount: int({ minimum: 0 }), contactIds: arrayOf(int()), new_parent_id: nullable(int()) }),
        ),
        403: E403_BULK,
      },
    }),
  },
  ...contactItemPaths,
};
