import { createHash, randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Db } from '../../lib/db';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import { permissionList, ROLE_ID, type AuthContext } from '../access';
import { tokenByHash, touchToken, type ApiTokenRecord } from './api-tokens.queries';

/** What every secret starts with, so that a leaked one is recognised (secret scanners, logs). */
export const TOKEN_PREFIX = 'dst_';

/**
 * A new secret: 32 random bytes, base64url. Only its SHA-256 is stored: with 256 bits of
 * randomness nobody can find a secret from its hash, so a fast hash is right here, where a
 * password (chosen by a person, guessable) needs a slow one such as bcrypt.
 */
export function newSecret(): { secret: string; hash: string; prefix: string } {
  const secret = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { secret, hash: hashOf(secret), prefix: secret.slice(0, 12) };
}

export const hashOf = (secret: string) => createHash('sha256').update(secret, 'utf8').digest('hex');

/** The caller an API token is: an Admin of its organization, userId 0, named by apiTokenId. */
function contextOf(token: ApiTokenRecord, roleName: string, permissionNames: unknown): AuthContext {
  return {
    userId: 0,
    roleId: ROLE_ID.admin,
    roleName,
    organizationId: token.organization_id,
    email: '',
    serviceNo: '',
    permissions: new Set(permissionList(permissionNames)),
    apiTokenId: token.id,
    versions: { directory: 0, search: 0, account: 0, reference: 0, locations: 0 },
  };
}

/**
 * Requires `Authorization: Bearer dst_...`, a live token holding `scope`: 401 otherwise (403 for
 * a live token without the scope). Looked up by hash on every request, with no cache: a revoked
 * or expired token is refused at its next use, on every instance. Sets req.auth and
 * res.locals.apiToken.
 */
export function apiTokenAuth(db: Db, scope: string, unauthorized: (message: string) => Error = (m) => new UnauthorizedError(m)) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match || !match[1].startsWith(TOKEN_PREFIX)) throw unauthorized('API token is required');
    const found = await tokenByHash(db, hashOf(match[1]), ROLE_ID.admin);
    if (!found) throw unauthorized('Invalid, expired or revoked API token');
    if (!found.token.scopes.includes(scope)) throw new ForbiddenError(`This API token lacks the ${scope} scope`);
    const now = new Date();
    if (!found.token.last_used_at || now.getTime() - Date.parse(found.token.last_used_at) >= 60_000) await touchToken(db, found.token.id, now);
    req.auth = contextOf(found.token, found.roleName, found.permissionNames);
    res.locals.apiToken = found.token;
    next();
  };
}
