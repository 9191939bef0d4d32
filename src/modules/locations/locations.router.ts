import { Router, type Request, type RequestHandler } from 'express';
import { crudRouter } from '../../lib/crud';
import { versionPreconditions } from '../../lib/http/conditional';
import { sendSuccess } from '../../lib/http/respond';
import { actorOf } from '../audit';
import { authOf, conditionalRead, requirePermission } from '../access';
import { LEVEL_RESOURCES } from './locations.levels';
import type { LocationsService } from './locations.service';

/**
 * Reads answer an ETag from the locations' version (`l<version>`), and 304 to a matching
 * If-None-Match; a write's If-Match and If-None-Match are checked against the version it changes
 * (docs/api.md, Conditional requests).
 */
const TAG = 'l';

/**
 * /api/locations (docs/api.md, Locations): every signed-in user reads, `locations.write` changes.
 * Each level's routes (list, the children of a parent, get, create, update, soft delete) are the
 * engine's (lib/crud).
 */
export function locationsRouter(service: LocationsService, requireAuth: RequestHandler): Router {
  const router = Router();
  router.use(requireAuth);
  const read = conditionalRead((req) => `${TAG}${authOf(req).versions.locations}`);
  router.get('/statistics', read, async (_req, res) => {
    sendSuccess(res, 200, 'Location statistics retrieved successfully', { statistics: await service.statistics() });
  });
  const routes = { read, write: requirePermission('locations.write'), conditionOf: (req: Request) => versionPreconditions(req, TAG), actorOf };
  for (const def of LEVEL_RESOURCES) router.use(`/${def.plural}`, crudRouter(service, def, routes));
  return router;
}
