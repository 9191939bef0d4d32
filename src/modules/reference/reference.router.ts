import { Router, type Request, type RequestHandler } from 'express';
import { crudRouter, type CrudRoutes } from '../../lib/crud';
import { versionPreconditions } from '../../lib/http/conditional';
import { sendSuccess } from '../../lib/http/respond';
import { inputOf, validate } from '../../lib/http/validate';
import { actorOf, type Actor } from '../audit';
import { authOf, conditionalRead, reachesEveryOrganization, requirePermission } from '../access';
import { organizations, REFERENCE_RESOURCES, type ResourceSpec } from './reference.resources';
import type { RoleInput, RolesService } from './reference.roles';
import type { ReferenceService } from './reference.service';
import { idRules, roleRules } from './reference.validators';

/**
 * Reads answer an ETag from the reference data's version (`r<version>`), and 304 to a matching
 * If-None-Match; a write's If-Match and If-None-Match are checked against the version it changes
 * (docs/api.md, Conditional requests).
 */
const TAG = 'r';
const referenceTag = (req: Request) => `${TAG}${authOf(req).versions.reference}`;
const ifAsRead = (req: Request) => versionPreconditions(req, TAG);

function rolesRouter(roles: RolesService, requireAuth: RequestHandler, fresh: RequestHandler): Router {
  const canWrite = requirePermission('reference.write');
  const router = Router();
  router.use(requireAuth);
  router.get('/', fresh, async (_req, res) => {
    const [list, permissions] = await Promise.all([roles.list(), roles.permissions()]);
    sendSuccess(res, 200, 'Roles retrieved successfully', { roles: list, permissions });
  });
  router.get('/:id', fresh, ...idRules, validate, async (req, res) => {
    sendSuccess(res, 200, 'Role retrieved successfully', { role: await roles.get(inputOf<{ id: number }>(req).id) });
  });
  router.post('/', canWrite, ...roleRules(true), validate, async (req, res) => {
    const role = await roles.create(inputOf<RoleInput & { name: string }>(req), actorOf(req));
    sendSuccess(res, 201, 'Role created successfully', { role });
  });
  router.put('/:id', canWrite, ...idRules, ...roleRules(false), validate, async (req, res) => {
    const { id, ...input } = inputOf<RoleInput & { id: number }>(req);
    sendSuccess(res, 200, 'Role updated successfully', { role: await roles.update(id, input, actorOf(req), ifAsRead(req)) });
  });
  router.delete('/:id', canWrite, ...idRules, validate, async (req, res) => {
    await roles.remove(inputOf<{ id: number }>(req).id, actorOf(req), ifAsRead(req));
    sendSuccess(res, 200, 'Role deleted successfully');
  });
  return router;
}

export interface ReferenceServices {
  reference: ReferenceService;
  roles: RolesService;
}

/** A caller who does not manage organizations reads only the own one. */
function ownOrganization(req: Request): number | null {
  const auth = authOf(req);
  return reachesEveryOrganization(auth) ? null : auth.organizationId;
}

/**
 * The lists a frontend fills its forms from (docs/api.md, Reference data and roles): every
 * signed-in user reads; each resource's `writePermission` creates, updates and deletes. The
 * resources' routes are the engine's (lib/crud).
 */
export function referenceRouter(services: ReferenceServices, requireAuth: RequestHandler): Router {
  const { reference, roles } = services;
  const read = conditionalRead(referenceTag);
  const routes = (spec: ResourceSpec): CrudRoutes<Actor> => ({
    read,
    write: requirePermission(spec.writePermission),
    conditionOf: ifAsRead,
    actorOf,
    scope: spec === organizations ? ownOrganization : undefined,
  });
  const router = Router();
  for (const spec of [...REFERENCE_RESOURCES, organizations]) {
    router.use(`/${spec.def.plural}`, requireAuth, crudRouter(reference, spec.def, routes(spec)));
  }
  router.use('/roles', rolesRouter(roles, requireAuth, read));
  return router;
}
