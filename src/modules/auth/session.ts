import type { NextFunction, Request, Response } from 'express';
import { preparedQuery, type Db } from '../../lib/db';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import type { AuthContext } from '../../lib/http/auth-context';
import { permissionList } from './privilege';
import type { TokenService } from './tokens';

/**
 * The caller's user, role and permissions in one query of two primary-key reads (the role row
 * carries its permission names), compiled once. A token is good only while its user exists, is
 * active and still has the token_version it was issued with.
 */
export function sessionLoader(db: Db) {
  const query = preparedQuery(
    db,
    (userId: number) =>
      db('users as u')
        .join('roles as r', 'r.id', 'u.role_id')
        .where('u.id', userId)
        .select(
          'u.id', 'u.role_id', 'u.organization_id', 'u.email', 'u.service_no', 'u.is_active', 'u.token_version',
          'r.name as role_name', 'r.permission_names',
        ),
    [0],
  );
  return async (userId: number, version: number) => toSession((await query(userId))[0], version);
}

export type SessionLoader = ReturnType<typeof sessionLoader>;

function toSession(row: Record<string, unknown> | undefined, version: number): AuthContext | null {
  if (!row || !Number(row.is_active) || Number(row.token_version) !== version) return null;
  return {
    userId: Number(row.id),
    roleId: Number(row.role_id),
    roleName: String(row.role_name),
    organizationId: Number(row.organization_id),
    email: String(row.email),
    serviceNo: String(row.service_no),
    permissions: new Set(permissionList(row.permission_names)),
  };
}

/** Requires `Authorization: Bearer <access token>` and sets req.auth. */
export function authenticate(loadSession: SessionLoader, tokens: TokenService) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new UnauthorizedError('Access token is required');
    const claims = tokens.verify(match[1], 'access');
    const session = claims && (await loadSession(claims.userId, claims.version));
    if (!session) throw new UnauthorizedError('Invalid or expired token');
    req.auth = session;
    next();
  };
}

/** 403 `Insufficient permissions` unless the caller's role holds every named permission. */
export function requirePermission(...names: string[]) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const granted = req.auth?.permissions;
    if (!granted || !names.every((name) => granted.has(name))) throw new ForbiddenError();
    next();
  };
}
