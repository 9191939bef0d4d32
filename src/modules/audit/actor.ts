import type { Request } from 'express';
import { authOf, type AuthContext } from '../access';
import { clientOf, type ClientInfo } from '../../lib/http/client';

/**
 * Who makes a change, and from where: the signed-in caller with the request it came in. Every
 * service method that changes something takes one, so the audit trail can say who did it.
 */
export interface Actor extends AuthContext {
  /** the request's X-Request-Id */
  requestId: string | null;
  client: ClientInfo;
}

export function actorOf(req: Request): Actor {
  return { ...authOf(req), requestId: req.id ?? null, client: clientOf(req) };
}
