import type { Request, RequestHandler } from 'express';
import { UnauthorizedError } from '../../lib/errors';
import { conditional } from '../../lib/http/conditional';

/** Who is calling: read from the database on every authenticated request (authenticate.ts). */
export interface AuthContext {
  userId: number;
  roleId: number;
  roleName: string;
  organizationId: number;
  email: string;
  serviceNo: string;
  permissions: ReadonlySet<string>;
  /**
   * Set when the caller is an API token rather than a signed-in user (the api-tokens module):
   * it acts as an Admin of its organization, userId is 0, and the audit trail names the token.
   */
  apiTokenId?: number;
  /**
   * The versions of what reads show, read with the session (one round trip): what a
   * conditional read's ETag is made of (conditionalRead). Read before the request's own reads,
   * so an ETag may be older than the body it comes with, never newer.
   */
  versions: ReadVersions;
}

/** directory_state's two versions and the read_versions rows (read-versions.ts; migrations: create_read_versions). */
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

/**
 * Conditional reads (lib/http/conditional.ts) for a signed-in caller: the ETag is the versions
 * of what the read shows (`versionsOf`, from the session's versions), the caller's role and
 * organization (what a read shows may differ by them) and a digest of the URL.
 */
export function conditionalRead(versionsOf: (req: Request) => string): RequestHandler {
  return conditional((req) => `${versionsOf(req)}-${req.auth ? `${req.auth.roleId}.${req.auth.organizationId}` : '0'}`);
}
