import { arrayOf, body, E403_BULK, int, nullable, obj, operation, SUPER_ADMIN, success } from '../builders';
import { contactIds, parentId, READ, tags } from './contacts.parts';

/**
 * POST /api/contacts/bulk-delete and bulk-move. The specification's camelCase names
 * (`contactIds`, `deletedCount`, `movedCount`) stay, deprecated, for at least the next release
 * beside their snake_case twins (docs/api.md, Paging): a request names the ids either way (both
 * with different ids: 400), and an answer carries both.
 */

const deprecatedIds = { ...contactIds, deprecated: true, description: 'deprecated: `contact_ids`' };
const ids = { contactIds: deprecatedIds, contact_ids: contactIds };
/** one of the two names is required */
const someIds = { anyOf: [{ required: ['contact_ids'] }, { required: ['contactIds'] }] };
const deprecatedCount = (name: string) => int({ minimum: 0, deprecated: true, description: `deprecated: \`${name}\`` });
const answeredIds = { contactIds: arrayOf(int(), { deprecated: true, description: 'deprecated: `contact_ids`' }), contact_ids: arrayOf(int()) };

export const bulkPaths = {
  '/api/contacts/bulk-delete': {
    post: operation({
      id: 'bulkDeleteContacts',
      tags,
      summary: 'Deactivate many contacts',
      description: 'Unknown and already inactive ids are skipped; children of removed contacts become roots unless removed in the same call.',
      roles: SUPER_ADMIN,
      permission: `${READ} + contacts.delete + contacts.bulk`,
      requestBody: { ...body(ids), ...someIds },
      requestExample: { contact_ids: [42, 43] },
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts deleted successfully$', examples: ['2 contacts deleted successfully'] },
          obj({ deletedCount: deprecatedCount('deleted_count'), deleted_count: int({ minimum: 0 }), ...answeredIds }),
          { deletedCount: 2, contactIds: [42, 43], deleted_count: 2, contact_ids: [42, 43] },
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
      requestBody: { ...body({ ...ids, parent_id: parentId }, ['parent_id']), ...someIds },
      requestExample: { contact_ids: [42, 43], parent_id: 17 },
      responses: {
        200: success(
          { type: 'string', pattern: '^\\d+ contacts moved successfully$', examples: ['2 contacts moved successfully'] },
          obj({ movedCount: deprecatedCount('moved_count'), moved_count: int({ minimum: 0 }), ...answeredIds, new_parent_id: nullable(int()) }),
          { movedCount: 2, contactIds: [42, 43], moved_count: 2, contact_ids: [42, 43], new_parent_id: 17 },
        ),
        403: E403_BULK,
      },
    }),
  },
};
