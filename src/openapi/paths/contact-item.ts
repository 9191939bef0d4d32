import { CHILDREN_PAGE } from '../../modules/contacts';
import { ADMINS, ANY_USER, arrayOf, body, type ConditionalWrite, E403, int, obj, operation, paging, queryBool, ref, str, SUPER_ADMIN, success } from '../builders';
import { pagination } from '../examples';
import { listCursorParam, paged } from '../paging';
import { contactAndTree, contactBody, idParam, notFound, parentId, READ, tags, treeScopeParam } from './contacts.parts';
import { contactAndTreeExample, contactExample } from './contacts.examples';

/** The writes of one contact compare the row that GET /api/contacts/{id} read (docs/api.md, Conditional requests). */
const asRead: ConditionalWrite = {
  tag: 'the ETag of GET /api/contacts/{id} (it names the contact\'s row: stale once the contact changed, not when another one did)',
  message: 'Contact was changed by someone else',
};

/** The paths of one contact: /api/contacts/{id} and below. */
export const contactItemPaths = {
  '/api/contacts/{id}': {
    get: operation({
      id: 'getContact',
      tags,
      summary: 'One contact (inactive ones too)',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      params: [idParam],
      responses: { 200: success('Contact retrieved successfully', obj({ contact: ref('Contact') }), { contact: contactExample }), 404: notFound },
    }),
    put: operation({
      id: 'updateContact',
      tags,
      summary: 'Update a contact',
      conditional: asRead,
      description: 'Any subset of the create fields (no password). A unit change is refused while the contact has active children or stays under a parent in the old unit.',
      roles: ADMINS,
      permission: `${READ} + contacts.update`,
      params: [idParam],
      requestBody: contactBody(false),
      requestExample: { mobile: '01711000099', status: 'busy' },
      responses: {
        200: success('Contact updated successfully', obj({ contact: ref('Contact') }), {
          contact: { ...contactExample, mobile: '01711000099', status: 'busy' },
        }),
        403: E403,
        404: notFound,
      },
    }),
    delete: operation({
      id: 'deleteContact',
      tags,
      summary: 'Deactivate a contact (its children become roots)',
      conditional: asRead,
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.delete`,
      params: [idParam],
      responses: { 200: success('Contact deleted successfully'), 403: E403, 404: notFound },
    }),
  },
  '/api/contacts/{id}/children': {
    get: operation({
      id: 'listContactChildren',
      tags,
      summary: 'Direct children of a contact, by name',
      conditional: 'read',
      roles: ANY_USER,
      permission: READ,
      params: [idParam, ...paging(CHILDREN_PAGE.defaultLimit, CHILDREN_PAGE.maxLimit), listCursorParam(), queryBool('include_inactive', 'include deactivated children')],
      responses: {
        200: paged(success(
          'Child contacts retrieved successfully',
          obj({
            parent_id: int(),
            children: arrayOf(ref('Contact')),
            total: int({ minimum: 0, description: 'the children counted (= pagination.total)' }),
            pagination: ref('ListPagination'),
          }),
          { parent_id: 17, children: [contactExample], total: 1, pagination: pagination(1, CHILDREN_PAGE.defaultLimit) },
        )),
        404: notFound,
      },
    }),
  },
  '/api/contacts/{id}/move': {
    put: operation({
      id: 'moveContact',
      tags,
      summary: 'Move a contact (and its subtree) under another parent, or to the top level',
      conditional: asRead,
      roles: ADMINS,
      permission: `${READ} + contacts.move`,
      params: [idParam, treeScopeParam],
      requestBody: body({ parent_id: parentId }, ['parent_id']),
      requestExample: { parent_id: 17 },
      responses: { 200: success('Contact moved successfully', contactAndTree, contactAndTreeExample), 403: E403, 404: notFound },
    }),
  },
  '/api/contacts/{id}/password': {
    put: operation({
      id: 'resetContactPassword',
      tags,
      summary: "Reset a contact's password",
      conditional: asRead,
      description: 'Records an admin_reset and revokes the contact\'s tokens.',
      roles: ADMINS,
      permission: `${READ} + contacts.reset_password`,
      params: [idParam],
      requestBody: body({ newPassword: str({ minLength: 6 }) }, ['newPassword']),
      requestExample: { newPassword: 'Reset2026b' },
      responses: { 200: success('Password reset successfully'), 403: E403, 404: notFound },
    }),
  },
};
