import { Router, type Request, type RequestHandler } from 'express';
import { NotFoundError } from '../errors';
import type { VersionCondition } from '../http/conditional';
import { sendPage } from '../http/paging';
import { sendSuccess } from '../http/respond';
import { inputOf, validate } from '../http/validate';
import { capitalized } from '../text';
import type { ResourceDef, Values } from './resource';
import type { CrudService, ListInput } from './service';
import { idRules, listRules, parentParamRules } from './validators';

/** What a module puts around a resource's routes. */
export interface CrudRoutes<Actor> {
  /** in front of every read (a conditional read, say) */
  read: RequestHandler;
  /** in front of every write (a permission check, say) */
  write: RequestHandler;
  /** the request's If-Match and If-None-Match, as the service checks them (ChangeRunner) */
  conditionOf(req: Request): VersionCondition | undefined;
  actorOf(req: Request): Actor;
  /** the one record a caller may read (another one is 404), or null for every one */
  scope?(req: Request): number | null;
}

/**
 * A resource's routes: list, the children of a parent (ParentRelation.byParent), get, create,
 * update, delete, each answering `<Label> <done> successfully` with the record under its
 * singular name (a hard delete answers no data).
 */
export function crudRouter<Actor>(service: CrudService<Actor>, def: ResourceDef, routes: CrudRoutes<Actor>): Router {
  const { read, write, conditionOf, actorOf } = routes;
  const listed = `${capitalized(def.plural)} retrieved successfully`;
  const one = (record: Values) => ({ [def.singular]: record });
  const router = Router();

  router.get('/', read, ...listRules(def), validate, async (req, res) => {
    sendPage(res, listed, await service.list(def, inputOf<ListInput>(req), routes.scope?.(req) ?? null));
  });
  if (def.parent?.byParent) {
    const { key, resource } = def.parent;
    router.get(`/${resource.singular}/:${key}`, read, ...parentParamRules(key), validate, async (req, res) => {
      sendSuccess(res, 200, listed, await service.childrenOf(def, inputOf<Record<string, number>>(req)[key]));
    });
  }
  router.get('/:id', read, ...idRules, validate, async (req, res) => {
    const { id } = inputOf<{ id: number }>(req);
    const only = routes.scope?.(req);
    if (only != null && only !== id) throw new NotFoundError(`${def.label} not found`);
    sendSuccess(res, 200, `${def.label} retrieved successfully`, one(await service.get(def, id)));
  });
  router.post('/', write, ...def.rules.create, validate, async (req, res) => {
    const record = await service.create(def, inputOf<Values>(req), actorOf(req));
    sendSuccess(res, 201, `${def.label} created successfully`, one(record));
  });
  router.put('/:id', write, ...idRules, ...def.rules.update, validate, async (req, res) => {
    const { id, ...changes } = inputOf<Values & { id: number }>(req);
    const record = await service.update(def, id, changes, actorOf(req), conditionOf(req));
    sendSuccess(res, 200, `${def.label} updated successfully`, one(record));
  });
  router.delete('/:id', write, ...idRules, validate, async (req, res) => {
    const record = await service.remove(def, inputOf<{ id: number }>(req).id, actorOf(req), conditionOf(req));
    sendSuccess(res, 200, `${def.label} deleted successfully`, record ? one(record) : undefined);
  });
  return router;
}
