import { Router, type RequestHandler } from 'express';
import type { Db } from '../../lib/db';

/** /api/locations (spec 4.3, DECISIONS section 7). */
export function locationsRouter(_db: Db, requireAuth: RequestHandler): Router {
  const router = Router();
  router.use(requireAuth);
  return router;
}
