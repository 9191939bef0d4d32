import { CHILDREN_PAGE, CONTACT_PAGE, FORMATS, ROLE_FILTERS, SEARCH_LIMIT, STATUSES } from '../../modules/contacts';
import { contactSchemas } from './contacts.schemas';
import {
  ADMINS,
  ANY_USER,
  arrayOf,
  body,
  E403,
  E404,
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
  SUPER_ADMIN,
  success,
  type Param,
} from '../builders';

export { contactSchemas };

const tags = ['Contacts'];
/** every contacts route checks it (a custom role may lack it: 403); writes check theirs too */
const READ = 'contacts.read';

const setParams: Param[] = [
  query('search', str({ maxLength: 100 }), 'case-insensitive substring of name, e-mail, service number or phone'),
  query('department_id', int({ minimum: 1 })),
  query('format', str({ enum: [...FORMATS], default: 'tree' })),
  queryBool('include_inactive', 'include deactivated contacts'),
  query('role_filter', str({ enum: [...ROLE_FILTERS], default: 'all' })),
];

const contactBody = (creating: boolean) =>
  body(
    {
      name: str({ minLength: 2, maxLength: 255 }),
      service_no: str({ minLength: 1, maxLength: 50 }),
      unit_id: int({ minimum: 1 }),
      designation_id: int({ minimum: 1 }),
      phone: str({ minLength: 1, maxLength: 20 }),
      email: str({ format: 'email', maxLength: 255 }),
      rank_id: nullable(int({ minimum: 1 })),
      department_id: nullable(int({ minimum: 1 })),
      mobile: nullable(str({ maxLength: 20 })),
      alternative_mobile: nullable(str({ maxLength: 20 })),
      parent_id: nullable(int({ minimum: 1 })),
      role_id: int({ minimum: 1, default: 3 }),
      status: str({ enum: [...STATUSES], default: 'offline' }),
      avatar: nullable(str({ maxLength: 500, format: 'uri' })),
      ...(creating ? { password: str({ minLength: 6, description: 'optional initial password (the password rule; at most 72 bytes)' }) } : {}),
    },
    creating ? ['name', 'service_no', 'unit_id', 'designation_id', 'phone', 'email'] : [],
  );

const contactIds = arrayOf(int({ minimum: 1 }), { minItems: 1, maxItems: 1000, uniqueItems: true });
const parentId = nullable(int({ minimum: 1 }));
const contactAndTree = obj({ contact: ref('Contact'), tree: arrayOf(ref('UnitTreeNode')) });
const notFound = E404('Contact not found');
const idParam = pathId();

export const contactPaths = {
  '/api/contacts': {
    get: operation({
      tags,
      summary: 'List contacts',
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
      roles: ANY_USER,
      permission: READ,
      responses: { 200: success('Statistics retrieved successfully', obj({ statistics: ref('DirectoryStatistics') })) },
    }),
  },
  '/api/contacts/organizational-hierarchy': {
    get: operation({
      tags,
      summary: 'Units as a tree, with departments and head counts',
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
        403: E403,
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
        403: E403,
      },
    }),
  },
  '/api/contacts/{id}': {
    get: operation({
      tags,
      summary: 'One contact (inactive ones too)',
      roles: ANY_USER,
      permission: READ,
      params: [idParam],
      responses: { 200: success('Contact retrieved successfully', obj({ contact: ref('Contact') })), 404: notFound },
    }),
    put: operation({
      tags,
      summary: 'Update a contact',
      description: 'Any subset of the create fields (no password). A unit change is refused while the contact has active children or stays under a parent in the old unit.',
      roles: ADMINS,
      permission: `${READ} + contacts.update`,
      params: [idParam],
      requestBody: contactBody(false),
      responses: { 200: success('Contact updated successfully', obj({ contact: ref('Contact') })), 403: E403, 404: notFound },
    }),
    delete: operation({
      tags,
      summary: 'Deactivate a contact (its children become roots)',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.delete`,
      params: [idParam],
      responses: { 200: success('Contact deleted successfully'), 403: E403, 404: notFound },
    }),
  },
  '/api/contacts/{id}/children': {
    get: operation({
      tags,
      summary: 'Direct children of a contact, by name',
      roles: ANY_USER,
      permission: READ,
      params: [idParam, ...paging(CHILDREN_PAGE.defaultLimit, CHILDREN_PAGE.maxLimit), queryBool('include_inactive', 'include deactivated children')],
      responses: {
        200: success(
          'Child contacts retrieved successfully',
          obj({
            parent_id: int(),
            children: arrayOf(ref('Contact')),
            total: int({ minimum: 0 }),
            pagination: obj({ page: int(), limit: int(), total: int() }),
          }),
        ),
        404: notFound,
      },
    }),
  },
  '/api/contacts/{id}/move': {
    put: operation({
      tags,
      summary: 'Move a contact (and its subtree) under another parent, or to the top level',
      roles: ADMINS,
      permission: `${READ} + contacts.move`,
      params: [idParam],
      requestBody: body({ parent_id: parentId }, ['parent_id']),
      responses: { 200: success('Contact moved successfully', contactAndTree), 403: E403, 404: notFound },
    }),
  },
  '/api/contacts/{id}/password': {
    put: operation({
      tags,
      summary: "Reset a contact's password",
      description: 'Records an admin_reset and revokes the contact\'s tokens.',
      roles: ADMINS,
      permission: `${READ} + contacts.reset_password`,
      params: [idParam],
      requestBody: body({ newPassword: str({ minLength: 6 }) }, ['newPassword']),
      responses: { 200: success('Password reset successfully'), 403: E403, 404: notFound },
    }),
  },
};
