import { Router, type Request, type RequestHandler } from 'express';
import { body, param, query } from 'express-validator';
import { NotFoundError } from '../../lib/errors';
import { actorOf } from '../audit';
import { versionPreconditions } from '../../lib/http/conditional';
import { sendSuccess } from '../../lib/http/respond';
import { idParamRule, inputOf, paginationRules, stringRule, validate } from '../../lib/http/validate';
import { authOf, conditionalRead, reachesEveryOrganization, requirePermission } from '../access';
import { organizations, REFERENCE_RESOURCES, type ResourceSpec } from './reference.resources';
import { REFERENCE_PAGE, type ListInput, type ReferenceService, type Values } from './reference.service';
import type { RoleInput, RolesService } from './roles.service';
import { capitalized } from '../../lib/text';

const idRules = [idParamRule(param('id'), 'id')];

/**
 * Reads answer an ETag from the reference data's version (`r<version>`), and 304 to a matching
 * If-None-Match; a write's If-Match and If-None-Match are checked against the version it changes
 * (docs/api.md, Conditional requests).
 */
const TAG = 'r';
const referenceTag = (req: Request) => `${TAG}${authOf(req).versions.reference}`;
const ifAsRead = (req: Request) => versionPreconditions(req, TAG);
const listRules = (spec: ResourceSpec) => [
  ...paginationRules(REFERENCE_PAGE.maxLimit),
  stringRule(query('search'), 'search', { max: 100 }),
  ...spec.listRules,
];

/**
 * The lists a frontend fills its forms from (docs/api.md, Reference data and roles): every signed-in user reads;
 * `writePermission` creates, updates and deletes. `scope` narrows what a caller may read.
 */
function resourceRouter(
  service: ReferenceService,
  spec: ResourceSpec,
  requireAuth: RequestHandler,
  writePermission: string,
  scope?: (req: Parameters<RequestHandler>[0]) => number | null,
): Router {
  const { def } = spec;
  const plural = capitalized(def.plural);
  const canWrite = requirePermission(writePermission);
  const router = Router();
  router.use(requireAuth);
  const fresh = conditionalRead(referenceTag);

  router.get('/', fresh, ...listRules(spec), validate, async (req, res) => {
    const input = inputOf<ListInput>(req);
    const only = scope?.(req);
    const data = await service.list(def, only == null ? input : { ...input, id: only });
    sendSuccess(res, 200, `${plural} retrieved successfully`, data);
  });
  router.get('/:id', fresh, ...idRules, validate, async (req, res) => {
    const { id } = inputOf<{ id: number }>(req);
    const only = scope?.(req);
    if (only != null && only !== id) throw new NotFoundError(`${def.label} not found`);
    sendSuccess(res, 200, `${def.label} retrieved successfully`, { [def.singular]: await service.get(def, id) });
  });
  router.post('/', canWrite, ...spec.createRules, validate, async (req, res) => {
    const record = await service.create(def, inputOf<Values>(req), actorOf(req));
    sendSuccess(res, 201, `${def.label} created successfully`, { [def.singular]: record });
  });
  router.put('/:id', canWrite, ...idRules, ...spec.updateRules, validate, async (req, res) => {
    const { id, ...changes } = inputOf<Values & { id: number }>(req);
    const record = await service.update(def, id, changes, actorOf(req), ifAsRead(req));
    sendSuccess(res, 200, `${def.label} updated successfully`, { [def.singular]: record });
  });
  router.delete('/:id', canWrite, ...idRules, validate, async (req, res) => {
    await service.remove(def, inputOf<{ id: number }>(req).id, actorOf(req), ifAsRead(req));
    sendSuccess(res, 200, `${def.label} deleted successfully`);
  });
  return router;
}

const roleRules = (required: boolean) => [
  stringRule(body('name'), 'Name', { required, min: 2, max: 50 }),
  stringRule(body('description'), 'Description', { max: 255, nullable: true }),
  body('permissions')
    .optional()
    .custom((v) => Array.isArray(v) && v.length <= 100 && v.every((p) => typeof p === 'string' && p.length <= 100))
    .withMessage('permissions must be an array of permission names'),
];

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

export function referenceRouter(services: ReferenceServices, requireAuth: RequestHandler): Router {
  const { reference: service, roles } = services;
  const router = Router();
  for (const spec of REFERENCE_RESOURCES) {
    router.use(`/${spec.def.plural}`, resourceRouter(service, spec, requireAuth, 'reference.write'));
  }
  // a caller who does not manage organizations sees only the own one
  const ownOrganization = (req: Parameters<RequestHandler>[0]) => {
    const auth = authOf(req);
    return reachesEveryOrganization(auth) ? null : auth.organizationId;
  };
  router.use('/organizations', resourceRouter(service, organizations, requireAuth, 'organizations.manage', ownOrganization));
  router.use('/roles', rolesRouter(roles, requireAuth, conditionalRead(referenceTag)));
  return router;
}
