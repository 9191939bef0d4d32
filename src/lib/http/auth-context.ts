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
  /**
   * The versions of what reads show, read with the session (one round trip): what a
   * conditional read's ETag is made of (lib/http/conditional.ts). Read before the request's
   * own reads, so an ETag may be older than the body it comes with, never newer.
   */
  versions: ReadVersions;
}

/** directory_state's two versions and the read_versions rows (migrations: create_read_versions). */
export interface ReadVersions {
  directory: number;
  search: number;
  account: number;
  reference: number;
  locations: number;
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
