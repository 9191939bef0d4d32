import { Router, type RequestHandler } from 'express';
import type { Db } from '../../lib/db';

/** /api/security (spec 4.4, DECISIONS section 6). */
export function securityRouter(_db: Db, requireAuth: RequestHandler): Router {
  const router = Router();
  router.use(requireAuth);
  return router;
}
