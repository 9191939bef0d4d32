import type { Request } from 'express';

/** Where a request came from, for the security records and the audit trail. */
export interface ClientInfo {
  ip: string | null;
  userAgent: string | null;
}

export function clientOf(req: Request): ClientInfo {
  const ip = req.ip ? req.ip.slice(0, 45) : null;
  const agent = req.get('user-agent');
  return { ip, userAgent: agent ? agent.slice(0, 1000) : null };
}
