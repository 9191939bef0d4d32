import { CHANGE_TYPES, CHANGES_GONE, CHANGES_PAGE, CURSOR_AHEAD } from '../../modules/contacts';
import { ANY_USER, arrayOf, bool, errorResponse, int, nullable, obj, operation, query, ref, str, success, timestamp } from '../builders';
import { NOW } from '../examples';
import { paged } from '../paging';
import { READ, tags } from './contacts.parts';
import { contactExample, headContact } from './contacts.examples';

/** The change feed (docs/changes.md): GET /api/contacts/changes, and the cursor the list gives for it. */

const cursor = str({ pattern: '^[A-Za-z0-9_-]+$', description: 'opaque: a place in the feed, as the service gave it' });

/** X-Changes-Cursor of GET /api/contacts: where the feed goes on from what the list shows. */
export const CHANGES_CURSOR_HEADER = {
  'X-Changes-Cursor': {
    description:
      'the change feed\'s cursor after every change of the directory version this read started from: follow GET /api/contacts/changes from it to see every later change (some perhaps twice, none missed)',
    schema: cursor,
  },
};

export const changeSchemas = {
  ContactChange: obj({
    cursor: { ...cursor, description: 'the place after this change: a poll from it sees the changes after this one' },
    at: timestamp(),
    type: str({ enum: [...CHANGE_TYPES], description: '`restored` is reserved: no endpoint reactivates a contact yet' }),
    contact_id: int(),
    contact: nullable({ ...ref('ContactFlat'), description: 'the contact as a listing shows it now (not as it was then); null once deactivated' }),
  }),
};

/** Cursors of the example, as the service spells them: base64url of `<version>.<contact_id>`. */
const cursorOf = (version: number, contactId: number) => Buffer.from(`${version}.${contactId}`).toString('base64url');

export const changePaths = {
  '/api/contacts/changes': {
    get: operation({
      id: 'listContactChanges',
      tags,
      summary: 'The change feed: every change of a contact, in commit order',
      description: [
        'One entry per contact per change (created, updated, moved, deleted; restored is reserved), oldest first, in the order the changes committed: a client that stores `next_cursor` and polls sees every committed change exactly once, whatever the number of concurrent writers. A bulk change and an import give one entry per contact.',
        'Without `cursor`: from the oldest change kept (CHANGES_RETENTION_DAYS, 30 days by default). To start from what a list shows, take the `X-Changes-Cursor` header of GET /api/contacts. An empty page gives back a cursor to poll from again.',
        '410: the cursor is older than what is kept (or of another database): read the list again, then follow the feed from its `X-Changes-Cursor`. See docs/changes.md.',
      ].join('\n\n'),
      roles: ANY_USER,
      permission: READ,
      params: [
        query('cursor', cursor, 'where to go on from: a change\'s `cursor`, `next_cursor`, or X-Changes-Cursor; without it, the oldest change kept'),
        query('limit', int({ minimum: 1, maximum: CHANGES_PAGE.maxLimit, default: CHANGES_PAGE.defaultLimit }), 'changes per page'),
      ],
      responses: {
        200: paged(success(
          'Contact changes retrieved successfully',
          obj({
            changes: arrayOf(ref('ContactChange')),
            next_cursor: { ...cursor, deprecated: true, description: 'deprecated: `pagination.next_cursor`, the same value (where the next poll goes on from: the last change\'s cursor, or further when nothing lies between)' },
            has_more: bool({ deprecated: true, description: 'deprecated: `pagination.has_more`, the same value (true: more changes follow now; ask again at once)' }),
            pagination: ref('CursorPagination'),
          }),
          {
            changes: [
              { cursor: cursorOf(1208, 42), at: NOW, type: 'moved', contact_id: 42, contact: { ...contactExample, level: 1 } },
              { cursor: cursorOf(1209, 17), at: NOW, type: 'updated', contact_id: 17, contact: { ...headContact, level: 0 } },
              { cursor: cursorOf(1210, 51), at: NOW, type: 'deleted', contact_id: 51, contact: null },
            ],
            next_cursor: cursorOf(1210, 51),
            has_more: false,
            pagination: { limit: CHANGES_PAGE.defaultLimit, has_more: false, next_cursor: cursorOf(1210, 51) },
          },
        )),
        410: errorResponse('Gone: the cursor is before the changes kept, or ahead of this directory', [CHANGES_GONE, CURSOR_AHEAD]),
      },
    }),
  },
};
