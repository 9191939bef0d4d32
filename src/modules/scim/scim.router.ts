import express, { Router, type Request, type Response } from 'express';
import type { Db } from '../../lib/db';
import { listedTags, type Preconditions } from '../../lib/http/conditional';
import type { Logger } from '../../lib/logger';
import { apiTokenAuth, type ApiTokenRecord } from '../api-tokens';
import { actorOf } from '../audit';
import { SCIM_CONTENT_TYPE, ScimError, scimErrorHandler } from './scim.errors';
import type { ScimCall, ScimUsers } from './scim.service';
import { resourceTypes, schemas, serviceProviderConfig } from './scim.schemas';

function send(res: Response, status: number, body: unknown): void {
  res.status(status).type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}

function callOf(req: Request, res: Response): ScimCall {
  return { actor: actorOf(req), token: res.locals.apiToken as ApiTokenRecord, base: `${req.protocol}://${req.get('host')}${req.baseUrl}` };
}

/** SCIM's If-Match carries weak tags (meta.version): compared by their opaque value, as RFC 7644 3.14 does. */
function preconditionsOf(req: Request): Preconditions {
  return { ifMatch: listedTags(req.get('if-match')).map((t) => t.replace(/^W\//, '')), ifNoneMatch: [] };
}

function idOf(req: Request): number {
  const id = String(req.params.id);
  if (!/^[1-9]\d{0,15}$/.test(id)) throw new ScimError(404, undefined, 'User not found');
  return Number(id);
}

function intParam(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^-?\d{1,9}$/.test(value)) throw new ScimError(400, 'invalidValue', `${name} must be an integer`);
  return Number(value);
}

/**
 * /scim/v2 (RFC 7644; docs/scim.md): an API token with the `scim` scope, acting as an Admin of
 * its organization. Bodies in and out are application/scim+json (application/json accepted);
 * every error is in the SCIM error schema.
 */
export function scimRouter(deps: { db: Db; users: ScimUsers; logger: Logger; bodyLimit: string }): Router {
  const { users } = deps;
  const router = Router();
  router.use(apiTokenAuth(deps.db, 'scim'));
  router.use(express.json({ limit: deps.bodyLimit, type: ['application/scim+json', 'application/json'] }));
  router.use((req, _res, next) => {
    if (['POST', 'PUT', 'PATCH'].includes(req.method) && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) {
      throw new ScimError(400, 'invalidSyntax', 'The body must be a JSON object (Content-Type: application/scim+json)');
    }
    next();
  });

  router.get('/ServiceProviderConfig', (req, res) => send(res, 200, serviceProviderConfig(callOf(req, res).base)));
  router.get('/ResourceTypes', (req, res) => {
    const list = resourceTypes(callOf(req, res).base);
    send(res, 200, { schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: list.length, startIndex: 1, itemsPerPage: list.length, Resources: list });
  });
  router.get('/Schemas', (req, res) => {
    const list = schemas(callOf(req, res).base);
    send(res, 200, { schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: list.length, startIndex: 1, itemsPerPage: list.length, Resources: list });
  });
  // each document by its id, where its meta.location points (RFC 7644 4): 404 for another
  const one = (kind: string, list: Array<{ id: string }>, id: string) => {
    const found = list.find((d) => d.id === id);
    if (!found) throw new ScimError(404, undefined, `${kind} ${id} not found`);
    return found;
  };
  router.get('/ResourceTypes/:id', (req, res) => send(res, 200, one('ResourceType', resourceTypes(callOf(req, res).base), String(req.params.id))));
  router.get('/Schemas/:id', (req, res) => send(res, 200, one('Schema', schemas(callOf(req, res).base), String(req.params.id))));

  const sendUser = (res: Response, status: number, user: Record<string, unknown>) => {
    const meta = user.meta as { version: string; location: string };
    res.set('ETag', meta.version);
    if (status === 201) res.set('Location', meta.location);
    send(res, status, user);
  };
  router.get('/Users', async (req, res) => {
    const q = req.query;
    if (q.filter !== undefined && typeof q.filter !== 'string') throw new ScimError(400, 'invalidFilter', 'filter must be given once');
    send(res, 200, await users.list(callOf(req, res), { filter: q.filter, startIndex: intParam(q.startIndex, 'startIndex'), count: intParam(q.count, 'count') }));
  });
  router.post('/Users', async (req, res) => sendUser(res, 201, await users.create(callOf(req, res), req.body)));
  router.get('/Users/:id', async (req, res) => sendUser(res, 200, await users.get(callOf(req, res), idOf(req))));
  router.put('/Users/:id', async (req, res) => sendUser(res, 200, await users.replace(callOf(req, res), idOf(req), req.body, preconditionsOf(req))));
  router.patch('/Users/:id', async (req, res) => sendUser(res, 200, await users.patch(callOf(req, res), idOf(req), req.body, preconditionsOf(req))));
  router.delete('/Users/:id', async (req, res) => {
    await users.remove(callOf(req, res), idOf(req), preconditionsOf(req));
    res.status(204).end();
  });
  router.use(() => {
    throw new ScimError(404, undefined, 'No such SCIM endpoint');
  });
  router.use(scimErrorHandler(deps.logger));
  return router;
}
