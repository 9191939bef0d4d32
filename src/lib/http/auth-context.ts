import type { Request } from 'express';
import { UnauthorizedError } from '../errors';

/** Who is calling: read from the database on every authenticated request. */
export interface AuthContext {
  userId: number;
  roleId: number;
  roleName: string;
  organizationId: number;
  email: string;
  serviceNo: string;
  permissions: ReadonlySet<string>;
}

export function authOf(req: Request): AuthContext {
  if (!req.auth) throw new UnauthorizedError('Access token is required');
  return req.auth;
}

/** Where a request came from, for the security records. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export function clientOf(req: Request): ClientInfo {
  const ip = req.ip ? req.ip.slice(0, 45) : null;
  const agent = req.get('user-agent');
  return { ip, userAgent: agent ? agent.slice(0, 1000) : null };
}
