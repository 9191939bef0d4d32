import { Router, type RequestHandler } from 'express';
import { sendPage } from '../../lib/http/paging';
import { inputOf, validate } from '../../lib/http/validate';
import { authOf, requirePermission } from '../access';
import { scopeOf } from './audit.queries';
import type { AuditListInput, AuditLog } from './audit.service';
import { auditListRules, historyRules } from './audit.validators';

/**
 * GET /api/audit-events and GET /api/contacts/:id/history (docs/audit.md). Mounted on /api
 * before the contacts router, so each route authenticates on its own. There is no route that
 * changes or deletes an entry.
 */
export function auditRouter(log: AuditLog, requireAuth: RequestHandler): Router {
  const router = Router();
  // refused before the query is checked: a caller who may read no audit learns nothing from a 400
  const canRead: RequestHandler = (req, _res, next) => {
    scopeOf(authOf(req));
    next();
  };

  router.get('/audit-events', requireAuth, canRead, ...auditListRules, validate, async (req, res) => {
    const { organization_id: organizationId, ...input } = inputOf<AuditListInput & { organization_id?: number }>(req);
    const events = await log.list(scopeOf(authOf(req), organizationId), input);
    sendPage(res, 'Audit events retrieved successfully', events);
  });
  router.get('/contacts/:id/history', requireAuth, requirePermission('contacts.read'), canRead, ...historyRules, validate, async (req, res) => {
    const { id, ...input } = inputOf<AuditListInput & { id: number }>(req);
    const history = await log.contactHistory(scopeOf(authOf(req)), id, input);
    sendPage(res, 'Contact history retrieved successfully', history);
  });
  return router;
}
