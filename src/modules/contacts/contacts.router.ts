import { Router, type RequestHandler } from 'express';
import { authOf, clientOf } from '../../lib/http/auth-context';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { requirePermission as can } from '../auth/session';
import type { ContactsQueryService, ListInput } from './contacts.query.service';
import type { ContactsService, CreateContactInput } from './contacts.service';
import {
  bulkDeleteRules,
  bulkMoveRules,
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
import type { ContactChanges } from './contacts.writer';

type Id = { id: number };

/** /api/contacts (spec 4.2, DECISIONS 5). Fixed paths come before /:id. */
export function contactsRouter(reads: ContactsQueryService, writes: ContactsService, requireAuth: RequestHandler): Router {
  const router = Router();
  router.use(requireAuth, can('contacts.read'));

  router.get('/', ...listRules, validate, async (req, res) => {
    sendSuccess(res, 200, 'Contacts retrieved successfully', await reads.list(inputOf<ListInput>(req)));
  });
  router.get('/search', ...searchRules, validate, async (req, res) => {
    const result = await reads.search(inputOf<{ q: string; unit_id?: number; department_id?: number; limit?: number }>(req));
    sendSuccess(res, 200, 'Search completed successfully', result);
  });
  router.get('/statistics', async (_req, res) => {
    sendSuccess(res, 200, 'Statistics retrieved successfully', { statistics: await reads.statistics() });
  });
  router.get('/organizational-hierarchy', async (_req, res) => {
    const hierarchy = await reads.organizationalHierarchy();
    sendSuccess(res, 200, 'Organizational hierarchy retrieved successfully', { hierarchy });
  });
  router.get('/unit/:unitId', ...unitTreeRules, validate, async (req, res) => {
    const { unitId, ...input } = inputOf<ListInput & { unitId: number }>(req);
    sendSuccess(res, 200, 'Unit contacts retrieved successfully', await reads.unitTree(unitId, input));
  });
  router.post('/bulk-delete', can('contacts.delete', 'contacts.bulk'), ...bulkDeleteRules, validate, async (req, res) => {
    const result = await writes.bulkDelete(inputOf<{ contactIds: number[] }>(req).contactIds, authOf(req));
    sendSuccess(res, 200, `${result.deletedCount} contacts deleted successfully`, result);
  });
  router.post('/bulk-move', can('contacts.move', 'contacts.bulk'), ...bulkMoveRules, validate, async (req, res) => {
    const { contactIds, parent_id } = inputOf<{ contactIds: number[]; parent_id: number | null }>(req);
    const result = await writes.bulkMove(contactIds, parent_id);
    sendSuccess(res, 200, `${result.movedCount} contacts moved successfully`, result);
  });

  router.post('/', can('contacts.create'), ...createRules, validate, async (req, res) => {
    const result = await writes.create(inputOf<CreateContactInput>(req), authOf(req));
    sendSuccess(res, 201, 'Contact created successfully', result);
  });
  router.get('/:id', ...idRules, validate, async (req, res) => {
    sendSuccess(res, 200, 'Contact retrieved successfully', { contact: await reads.get(inputOf<Id>(req).id) });
  });
  router.put('/:id', can('contacts.update'), ...updateRules, validate, async (req, res) => {
    const { id, ...changes } = inputOf<ContactChanges & Id>(req);
    sendSuccess(res, 200, 'Contact updated successfully', { contact: await writes.update(id, changes, authOf(req)) });
  });
  router.delete('/:id', can('contacts.delete'), ...idRules, validate, async (req, res) => {
    await writes.remove(inputOf<Id>(req).id, authOf(req));
    sendSuccess(res, 200, 'Contact deleted successfully');
  });
  router.get('/:id/children', ...childrenRules, validate, async (req, res) => {
    const { id, ...input } = inputOf<Id & { page?: number; limit?: number; include_inactive?: boolean }>(req);
    sendSuccess(res, 200, 'Child contacts retrieved successfully', await reads.children(id, input));
  });
  router.put('/:id/move', can('contacts.move'), ...moveRules, validate, async (req, res) => {
    const { id, parent_id } = inputOf<Id & { parent_id: number | null }>(req);
    sendSuccess(res, 200, 'Contact moved successfully', await writes.move(id, parent_id, authOf(req)));
  });
  router.put('/:id/password', can('contacts.reset_password'), ...resetPasswordRules, validate, async (req, res) => {
    const { id, newPassword } = inputOf<Id & { newPassword: string }>(req);
    await writes.resetPassword(id, newPassword, authOf(req), clientOf(req));
    sendSuccess(res, 200, 'Password reset successfully');
  });
  return router;
}
