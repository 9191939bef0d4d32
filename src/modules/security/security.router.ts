import { Router, type Request, type RequestHandler } from 'express';
import { sendPage } from '../../lib/http/paging';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import type { FailedLoginFilters, PasswordChangeFilters } from './security.queries';
import { scopeOf } from './security.scope';
import type { PageInput, SecurityService } from './security.service';
import { failedLoginRules, passwordChangeRules, recentEventsRules } from './security.validators';
import { authOf } from '../access';

interface ScopedInput {
  organization_id?: number | null;
}

/** The validated input, and the caller's scope with `organization_id` taken out of it. */
function scopedInput<T>(req: Request) {
  const { organization_id: organizationId, ...input } = inputOf<T & ScopedInput>(req);
  return { scope: scopeOf(authOf(req), organizationId), input };
}

/** /api/security (docs/api.md, Security records): any signed-in user, each within the own scope. */
export function securityRouter(service: SecurityService, requireAuth: RequestHandler): Router {
  const router = Router();
  router.use(requireAuth);

  router.get('/failed-logins', ...failedLoginRules, validate, async (req, res) => {
    const { scope, input } = scopedInput<FailedLoginFilters & PageInput>(req);
    sendPage(res, 'Failed login attempts retrieved successfully', await service.listFailedLogins(scope, input));
  });
  router.get('/password-changes', ...passwordChangeRules, validate, async (req, res) => {
    const { scope, input } = scopedInput<PasswordChangeFilters & PageInput>(req);
    sendPage(res, 'Password changes retrieved successfully', await service.listPasswordChanges(scope, input));
  });
  router.get('/recent-events', ...recentEventsRules, validate, async (req, res) => {
    const { scope, input } = scopedInput<{ limit?: number }>(req);
    sendSuccess(res, 200, 'Recent security events retrieved successfully', await service.recentEvents(scope, input));
  });
  return router;
}
