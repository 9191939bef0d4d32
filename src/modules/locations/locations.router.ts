import { Router, type RequestHandler } from 'express';
import { actorOf } from '../audit';
import { versionPreconditions } from '../../lib/http/conditional';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { authOf, conditionalRead, requirePermission } from '../access';
import { LEVELS, type LevelDef } from './locations.levels';
import type { ListInput, LocationsService, LocationValues } from './locations.service';
import { createRules, idRules, listRules, parentParamRules, updateRules } from './locations.validators';
import { capitalized } from '../../lib/text';

/**
 * Reads answer an ETag from the locations' version (`l<version>`), and 304 to a matching
 * If-None-Match; a write's If-Match and If-None-Match are checked against the version it changes
 * (docs/api.md, Conditional requests).
 */
const TAG = 'l';

/** One level's routes: list, get, create, update, soft delete, and the lookup by parent. */
function levelRouter(service: LocationsService, level: LevelDef, canWrite: RequestHandler, fresh: RequestHandler): Router {
  const listed = `${capitalized(level.plural)} retrieved successfully`;
  const router = Router();

  router.get('/', fresh, ...listRules(level), validate, async (req, res) => {
    sendSuccess(res, 200, listed, await service.list(level, inputOf<ListInput>(req)));
  });
  if (level.parent) {
    const { key } = level.parent;
    router.get(`/${level.parent.level.singular}/:${key}`, fresh, ...parentParamRules(level), validate, async (req, res) => {
      const parentId = inputOf<Record<string, number>>(req)[key];
      sendSuccess(res, 200, listed, await service.childrenOf(level, parentId));
    });
  }
  router.get('/:id', fresh, ...idRules, validate, async (req, res) => {
    const record = await service.get(level, inputOf<{ id: number }>(req).id);
    sendSuccess(res, 200, `${level.label} retrieved successfully`, { [level.singular]: record });
  });
  router.post('/', canWrite, ...createRules(level), validate, async (req, res) => {
    const record = await service.create(level, inputOf<LocationValues>(req), actorOf(req));
    sendSuccess(res, 201, `${level.label} created successfully`, { [level.singular]: record });
  });
  router.put('/:id', canWrite, ...updateRules(level), validate, async (req, res) => {
    const { id, ...changes } = inputOf<LocationValues & { id: number }>(req);
    const record = await service.update(level, id, changes, actorOf(req), versionPreconditions(req, TAG));
    sendSuccess(res, 200, `${level.label} updated successfully`, { [level.singular]: record });
  });
  router.delete('/:id', canWrite, ...idRules, validate, async (req, res) => {
    const record = await service.remove(level, inputOf<{ id: number }>(req).id, actorOf(req), versionPreconditions(req, TAG));
    sendSuccess(res, 200, `${level.label} deleted successfully`, { [level.singular]: record });
  });
  return router;
}

/** /api/locations (docs/api.md, Locations): every signed-in user reads, `locations.write` changes. */
export function locationsRouter(service: LocationsService, requireAuth: RequestHandler): Router {
  const canWrite = requirePermission('locations.write');
  const router = Router();
  router.use(requireAuth);
  const fresh = conditionalRead((req) => `${TAG}${authOf(req).versions.locations}`);
  router.get('/statistics', fresh, async (_req, res) => {
    sendSuccess(res, 200, 'Location statistics retrieved successfully', { statistics: await service.statistics() });
  });
  for (const level of LEVELS) router.use(`/${level.plural}`, levelRouter(service, level, canWrite, fresh));
  return router;
}
