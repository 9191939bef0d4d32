import type { NextFunction, Request, Response } from 'express';
import { ForbiddenError, UnauthorizedError } from '../../lib/errors';
import { permissionList } from './grants';
import type { TokenService } from './tokens';
import type { AuthContext } from './auth-context';

/** What a session needs of its user: the row of the users table with its role's name and permissions. */
export interface SessionRecord {
  id: unknown;
  role_id: unknown;
  organization_id: unknown;
  email: unknown;
  service_no: unknown;
  is_active: unknown;
  token_version: unknown;
  role_name: unknown;
  permission_names: unknown;
  /** the read versions, selected with the session's row */
  directory_version: unknown;
  search_version: unknown;
  account_version: unknown;
  reference_version: unknown;
  locations_version: unknown;
}

/** Reads a user for a session, as none or one row (the contacts module, which owns the user row, provides it). */
export type SessionSource = (userId: number) => Promise<SessionRecord[]>;

/** The session of a token's user and version; null unless the user exists, is active and still has that token_version. */
export type SessionLoader = (userId: number, version: number) => Promise<AuthContext | null>;

export function sessionLoader(source: SessionSource): SessionLoader {
  return async (userId, version) => toSession((await source(userId))[0], version);
}

function toSession(row: SessionRecord | undefined, version: number): AuthContext | null {
  if (!row || !Number(row.is_active) || Number(row.token_version) !== version) return null;
  return {
    userId: Number(row.id),
    roleId: Number(row.role_id),
    roleName: String(row.role_name),
    organizationId: Number(row.organization_id),
    email: String(row.email),
    serviceNo: String(row.service_no),
    permissions: new Set(permissionList(row.permission_names)),
    versions: {
      directory: Number(row.directory_version),
      search: Number(row.search_version),
      account: Number(row.account_version),
      reference: Number(row.reference_version),
      locations: Number(row.locations_version),
    },
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
