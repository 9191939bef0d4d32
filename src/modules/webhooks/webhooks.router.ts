import { Router, type RequestHandler } from 'express';
import { sendPage } from '../../lib/http/paging';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { requirePermission } from '../access';
import { actorOf } from '../audit';
import type { ChangeInput, CreateInput, WebhooksService } from './webhooks.service';
import { changeRules, createRules, deliveryRules, idRules, listRules } from './webhooks.validators';

/**
 * /api/webhooks (docs/changes.md, Webhooks): an Admin's hooks get their organization's changes,
 * a Super_admin's any organization's or every one. `webhooks.manage` (Admin, Super_admin): a
 * User is 403; a hook of another organization is 404, as if it did not exist.
 */
export function webhooksRouter(service: WebhooksService, requireAuth: RequestHandler, options: { allowPrivate: boolean }): Router {
  const router = Router();
  router.use(requireAuth, requirePermission('webhooks.manage'));

  router.get('/', ...listRules, validate, async (req, res) => {
    sendPage(res, 'Webhooks retrieved successfully', await service.list(actorOf(req), inputOf(req)));
  });
  router.post('/', ...createRules(options.allowPrivate), validate, async (req, res) => {
    sendSuccess(res, 201, 'Webhook created successfully', await service.create(actorOf(req), inputOf<CreateInput>(req)));
  });
  router.get('/:id', ...idRules, validate, async (req, res) => {
    const webhook = await service.get(actorOf(req), inputOf<{ id: number }>(req).id);
    sendSuccess(res, 200, 'Webhook retrieved successfully', { webhook });
  });
  router.patch('/:id', ...changeRules(options.allowPrivate), validate, async (req, res) => {
    const { id, ...input } = inputOf<ChangeInput & { id: number }>(req);
    sendSuccess(res, 200, 'Webhook updated successfully', { webhook: await service.change(actorOf(req), id, input) });
  });
  router.delete('/:id', ...idRules, validate, async (req, res) => {
    await service.remove(actorOf(req), inputOf<{ id: number }>(req).id);
    sendSuccess(res, 200, 'Webhook deleted successfully');
  });
  router.post('/:id/rotate-secret', ...idRules, validate, async (req, res) => {
    sendSuccess(res, 200, 'Webhook secret rotated successfully', await service.rotateSecret(actorOf(req), inputOf<{ id: number }>(req).id));
  });
  router.post('/:id/test', ...idRules, validate, async (req, res) => {
    sendSuccess(res, 200, 'Test event sent', { result: await service.test(actorOf(req), inputOf<{ id: number }>(req).id) });
  });
  router.get('/:id/deliveries', ...deliveryRules, validate, async (req, res) => {
    const { id, ...input } = inputOf<{ id: number; page?: number; limit?: number; status?: string }>(req);
    sendPage(res, 'Webhook deliveries retrieved successfully', await service.deliveries(actorOf(req), id, input));
  });
  return router;
}
