import { CONTACT_PAGE, FORMATS, ROLE_FILTERS, SEARCH_LIMIT } from '../../modules/contacts';
import { ADMINS, ANY_USER, arrayOf, E403, E404, int, nullable, obj, operation, paging, pathId, query, queryBool, ref, str, success } from '../builders';
import { contactItemPaths } from './contact-item';
import { contactAndTree, contactBody, notFound, READ, setParams, tags, treeScopeParam } from './contacts.parts';
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
import { bulkPaths } from './contacts.bulk';
import { LIST_PAGINATION_OPTIONAL, listCursorParam, listPaginationFields, paged } from '../paging';
import { pagination } from '../examples';

export const contactSchemas = { ...recordSchemas, ...changeSchemas };

/** The list's answers (200, and 304 for the same read) carry the change feed's cursor beside the ETag; an error answer carries neither. */
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
        'The filtered set in the directory\'s depth-first order (roots and siblings by name, then id); `page` and `limit` page over it, or `cursor` and `limit` (docs/api.md, Paging: a page number reaches the first and the last LIST_PAGE_DEPTH rows, 100,000 by default; deeper, a 400 points to the cursor). In tree format a contact whose parent is not on the page stands at the top level. `parent_id` lists the subtree below that contact. `tree=false` means flat unless `format` says otherwise.',
      roles: ANY_USER,
      permission: READ,
      params: [
        ...paging(CONTACT_PAGE.defaultLimit, CONTACT_PAGE.maxLimit),
        listCursorParam(),
        ...setParams,
        query('parent_id', int({ minimum: 1 }), 'list the subtree below this contact'),
        query('unit_id', int({ minimum: 1 })),
        queryBool('tree', 'false: flat format', true),
      ],
      responses: {
        200: paged(success(
          'Contacts retrieved successfully',
          obj({
            contacts: ref('ContactList'),
            statistics: ref('ContactStatistics'),
            // the contacts' lists' pagination (by number or cursor), and the format the specification shows in it
            pagination: obj({ ...listPaginationFields, format: str({ enum: [...FORMATS] }) }, LIST_PAGINATION_OPTIONAL),
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
        )),
        404: notFound,
      },
    })),
    post: operation({
      id: 'createContact',
      tags,
      summary: 'Create a contact',
      roles: ADMINS,
      permission: `${READ} + contacts.create`,
      params: [treeScopeParam],
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
        'Case-insensitive substring of name, e-mail, service number, phone or mobile (every character literal). Exact service number or e-mail first, then names starting with the term, then the rest by name. `total` counts every match; `page` and `limit` page over them. The term is `search` (as on the list) or `q`, the specification\'s name, deprecated and kept for at least the next release; both with different values: 400.',
      roles: ANY_USER,
      permission: READ,
      params: [
        query('search', str({ minLength: 2, maxLength: 100 }), 'the term (required, as `search` or `q`)'),
        { ...query('q', str({ minLength: 2, maxLength: 100 }), 'deprecated: `search`'), deprecated: true },
        query('unit_id', int({ minimum: 1 })),
        query('department_id', int({ minimum: 1 })),
        ...paging(SEARCH_LIMIT.defaultLimit, SEARCH_LIMIT.maxLimit),
      ],
      responses: {
        200: paged(success(
          'Search completed successfully',
          obj({
            contacts: arrayOf(ref('Contact')),
            searchTerm: str({ deprecated: true, description: 'deprecated: `search_term`' }),
            search_term: str(),
            filters: obj({ unit_id: nullable(str()), department_id: nullable(str()) }),
            total: int({ minimum: 0, description: 'every match (= pagination.total)' }),
            pagination: ref('Pagination'),
          }),
          {
            contacts: [contactExample],
            searchTerm: 'ayesha',
            search_term: 'ayesha',
            filters: { unit_id: null, department_id: null },
            total: 1,
            pagination: pagination(1, SEARCH_LIMIT.defaultLimit),
          },
        )),
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
        'Large (6.6 MB of JSON for 10,000 contacts): sent gzipped (`Content-Encoding: gzip`) when `Accept-Encoding` allows it, as every browser asks. Each process keeps the last four built, so an unchanged tree is not built again. A unit of UNIT_TREE_STREAM_FROM contacts or more (20,000 by default) is streamed instead: the same JSON, chunked (no Content-Length), its first byte at once; an error after that first byte cuts the connection (the body stops short), as the status has already left (docs/api.md, "The tree of a unit").',
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
  ...bulkPaths,
  ...changePaths,
  ...contactItemPaths,
};
