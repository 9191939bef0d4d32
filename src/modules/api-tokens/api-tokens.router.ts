import { Router, type RequestHandler } from 'express';
import { sendPage } from '../../lib/http/paging';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { requirePermission } from '../access';
import { actorOf } from '../audit';
import type { ApiTokens, CreateTokenInput } from './api-tokens.service';
import { createTokenRules, listTokenRules, tokenIdRules } from './api-tokens.validators';

/**
 * /api/api-tokens: who may create, change and delete contacts may hold a token that does the
 * same (an Admin, a Super_admin); a User is 403.
 */
export function apiTokensRouter(service: ApiTokens, requireAuth: RequestHandler): Router {
  const router = Router();
  const admins = requirePermission('contacts.create', 'contacts.update');
  router.post('/api-tokens', requireAuth, admins, ...createTokenRules, validate, async (req, res) => {
    sendSuccess(res, 201, 'API token created; its secret is shown only now', await service.create(inputOf<CreateTokenInput>(req), actorOf(req)));
  });
  router.get('/api-tokens', requireAuth, admins, ...listTokenRules, validate, async (req, res) => {
    sendPage(res, 'API tokens retrieved successfully', await service.list(actorOf(req), inputOf<{ organization_id?: number; page?: number; limit?: number }>(req)));
  });
  router.delete('/api-tokens/:id', requireAuth, admins, ...tokenIdRules, validate, async (req, res) => {
    await service.revoke(inputOf<{ id: number }>(req).id, actorOf(req));
    sendSuccess(res, 200, 'API token revoked');
  });
  return router;
}
