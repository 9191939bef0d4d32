import { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { actorOf } from '../../audit';
import { extendETag, preconditionsOf } from '../../../lib/http/conditional';
import { sendPage } from '../../../lib/http/paging';
import { sendKeptJson, sendStreamedJson, sendSuccess } from '../../../lib/http/respond';
import { inputOf, validate } from '../../../lib/http/validate';
import { authOf, conditionalRead, requirePermission as can } from '../../access';
import type { ContactReads } from '../read/contact-reads.service';
import { ChangeFeed } from '../read/change-feed.service';
import type { ChangePosition } from '../domain/change-cursor';
import { contactRowTag } from '../domain/contact.record';
import type { ListInput } from '../read/list-input';
import type { TreeScope } from '../read/formats';
import type { UnitTrees } from '../read/unit-tree.service';
import type { PageRequest } from '../read/list-paging';
import { directoryTagOf } from '../data/tree/lock';
import type { ContactSearch, SearchInput } from '../search/contact-search.service';
import type { ContactWrites, CreateContactInput } from '../write/contact-writes.service';
import type { ContactChanges } from '../data/contact.writer';
import {
  bulkDeleteRules,
  bulkMoveRules,
  changesRules,
  childrenRules,
  createRules,
  idRules,
  listRules,
  moveRules,
  resetPasswordRules,
  searchRules,
  unitTreeRules,
  updateRules,
} from './contacts.validators';

type Id = { id: number };

export interface ContactServices {
  reads: ContactReads;
  unitTrees: UnitTrees;
  search: ContactSearch;
  writes: ContactWrites;
  changes: ChangeFeed;
}

/** /api/contacts (docs/api.md, Contacts). Fixed paths come before /:id. */
export function contactsRouter(services: ContactServices, requireAuth: RequestHandler): Router {
  const { reads, unitTrees, search, writes, changes } = services;
  const router = Router();
  router.use(requireAuth, can('contacts.read'));
  // reads answer an ETag from the directory's versions, and 304 to a matching If-None-Match
  const versionsOf = (req: Request) => authOf(req).versions;
  // a contacts' list's page and the page numbers it answers (list-paging.ts): the Link header links no other
  const numbered = <T extends { pagination: { limit: number; total: number } }>(data: T): [T, (page: number) => boolean] => [
    data,
    (page) => reads.reachable(page, data.pagination.limit, data.pagination.total),
  ];
  const fresh = conditionalRead((req) => directoryTagOf(versionsOf(req)));
  // where the change feed goes on from what a read of the directory at the session's version
  // shows (docs/changes.md): on a 304 too, which stands for the same read
  const changesCursor: RequestHandler = (req, res, next) => {
    res.setHeader('X-Changes-Cursor', ChangeFeed.cursorOf(versionsOf(req)));
    next();
  };
  // ... and only there: an error answer (a 400 for a bad query, a 503) showed nothing to follow
  // on from, as it carries no ETag (lib/http/errors.ts); this router's last middleware
  const noChangesCursorOnError: ErrorRequestHandler = (err, _req, res, next) => {
    if (!res.headersSent) res.removeHeader('X-Changes-Cursor');
    next(err);
  };

  router.get('/', changesCursor, fresh, ...listRules, validate, async (req, res) => {
    sendPage(res, 'Contacts retrieved successfully', ...numbered(await reads.list(inputOf<ListInput>(req), versionsOf(req))));
  });
  router.get('/changes', ...changesRules, validate, async (req, res) => {
    const input = inputOf<{ cursor?: ChangePosition; limit?: number }>(req);
    sendPage(res, 'Contact changes retrieved successfully', await changes.page(input, versionsOf(req)));
  });
  router.get('/search', fresh, ...searchRules, validate, async (req, res) => {
    sendPage(res, 'Search completed successfully', await search.search(inputOf<SearchInput>(req), versionsOf(req)));
  });
  router.get('/statistics', fresh, async (req, res) => {
    sendSuccess(res, 200, 'Statistics retrieved successfully', { statistics: await reads.statistics(versionsOf(req)) });
  });
  router.get('/organizational-hierarchy', fresh, async (req, res) => {
    const hierarchy = await reads.organizationalHierarchy(versionsOf(req));
    sendSuccess(res, 200, 'Organizational hierarchy retrieved successfully', { hierarchy });
  });
  router.get('/unit/:unitId', fresh, ...unitTreeRules, validate, async (req, res) => {
    const { unitId, ...input } = inputOf<ListInput & { unitId: number }>(req);
    const message = 'Unit contacts retrieved successfully';
    const tree = await unitTrees.unitTree(unitId, input, versionsOf(req), message);
    await ('kept' in tree ? sendKeptJson(res, 200, message, tree.kept) : sendStreamedJson(res, 200, tree.streamed));
  });
  router.post('/bulk-delete', can('contacts.delete', 'contacts.bulk'), ...bulkDeleteRules, validate, async (req, res) => {
    const result = await writes.bulkDelete(inputOf<{ contactIds: number[] }>(req).contactIds, actorOf(req));
    // the specification's camelCase names, and their snake_case twins (docs/api.md, Paging)
    const data = { ...result, deleted_count: result.deletedCount, contact_ids: result.contactIds };
    sendSuccess(res, 200, `${result.deletedCount} contacts deleted successfully`, data);
  });
  router.post('/bulk-move', can('contacts.move', 'contacts.bulk'), ...bulkMoveRules, validate, async (req, res) => {
    const { contactIds, parent_id } = inputOf<{ contactIds: number[]; parent_id: number | null }>(req);
    const result = await writes.bulkMove(contactIds, parent_id, actorOf(req));
    const data = { ...result, moved_count: result.movedCount, contact_ids: result.contactIds };
    sendSuccess(res, 200, `${result.movedCount} contacts moved successfully`, data);
  });

  router.post('/', can('contacts.create'), ...createRules, validate, async (req, res) => {
    const { tree_scope, ...input } = inputOf<CreateContactInput & { tree_scope?: TreeScope }>(req);
    const result = await writes.create(input, actorOf(req), tree_scope);
    sendSuccess(res, 201, 'Contact created successfully', result);
  });
  router.get('/:id', fresh, ...idRules, validate, async (req, res) => {
    const contact = await reads.get(inputOf<Id>(req).id);
    // the row as read: what the If-Match and If-None-Match of the writes of /:id are checked against
    extendETag(res, contactRowTag(contact.id, contact.updated_at));
    sendSuccess(res, 200, 'Contact retrieved successfully', { contact });
  });
  router.put('/:id', can('contacts.update'), ...updateRules, validate, async (req, res) => {
    const { id, ...changes } = inputOf<ContactChanges & Id>(req);
    sendSuccess(res, 200, 'Contact updated successfully', { contact: await writes.update(id, changes, actorOf(req), preconditionsOf(req)) });
  });
  router.delete('/:id', can('contacts.delete'), ...idRules, validate, async (req, res) => {
    await writes.remove(inputOf<Id>(req).id, actorOf(req), preconditionsOf(req));
    sendSuccess(res, 200, 'Contact deleted successfully');
  });
  router.get('/:id/children', fresh, ...childrenRules, validate, async (req, res) => {
    const { id, ...input } = inputOf<Id & PageRequest & { include_inactive?: boolean }>(req);
    sendPage(res, 'Child contacts retrieved successfully', ...numbered(await reads.children(id, input, versionsOf(req))));
  });
  router.put('/:id/move', can('contacts.move'), ...moveRules, validate, async (req, res) => {
    const { id, parent_id, tree_scope } = inputOf<Id & { parent_id: number | null; tree_scope?: TreeScope }>(req);
    sendSuccess(res, 200, 'Contact moved successfully', await writes.move(id, parent_id, actorOf(req), preconditionsOf(req), tree_scope));
  });
  router.put('/:id/password', can('contacts.reset_password'), ...resetPasswordRules, validate, async (req, res) => {
    const { id, newPassword } = inputOf<Id & { newPassword: string }>(req);
    await writes.resetPassword(id, newPassword, actorOf(req), preconditionsOf(req));
    sendSuccess(res, 200, 'Password reset successfully');
  });
  router.use(noChangesCursorOnError);
  return router;
}
