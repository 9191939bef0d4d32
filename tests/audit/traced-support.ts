import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, createOrganization, createUser, unique } from '../helpers/factory';
import type { AuditEvent } from './audit-support';

/** ISO 8601 UTC with milliseconds (DECISIONS 1). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A signed-in caller whose entries a test expects: who, with which role, from which organization. */
export interface Caller {
  id: number;
  token: string;
  role: 'Super_admin' | 'Admin';
  organization_id: number;
}

/** An Admin of a new organization of the test's own, so "filed under the actor's" is not organization 1 by chance. */
export async function adminOfNewOrganization(ctx: TestContext): Promise<Caller> {
  const organizationId = await createOrganization(ctx);
  const user = await createUser(ctx, { role: 'Admin', organization_id: organizationId });
  return { id: user.id, token: user.token, role: 'Admin', organization_id: organizationId };
}

export async function superAdmin(ctx: TestContext): Promise<Caller> {
  const user = await createUser(ctx, { role: 'Super_admin' });
  return { id: user.id, token: user.token, role: 'Super_admin', organization_id: user.organization_id };
}

/** A response with the request id and user agent it was sent with. */
/**
 * The callers of an audit test file, made before its tests: an Admin of an organization of its
 * own (who makes the changes) and a Super_admin (who reads the trail).
 */
export function auditCallers(ctx: TestContext): { readonly admin: Caller; readonly reader: Caller } {
  const callers = {} as { admin: Caller; reader: Caller };
  beforeAll(async () => {
    callers.admin = await adminOfNewOrganization(ctx);
    callers.reader = await superAdmin(ctx);
  });
  return callers;
}

export interface Traced {
  res: request.Response;
  requestId: string;
  userAgent: string;
}

/** Sends a change with its own X-Request-Id and User-Agent, for the entry to carry. */
export async function traced(
  ctx: TestContext,
  as: { token: string },
  method: 'post' | 'put' | 'delete',
  path: string,
  body?: object,
): Promise<Traced> {
  const requestId = unique('req-');
  const userAgent = `audit-test/1.0 (${unique()})`;
  const req = request(ctx.app)[method](path).set(bearer(as)).set('X-Request-Id', requestId).set('User-Agent', userAgent);
  const res = body === undefined ? await req : await req.send(body);
  return { res, requestId, userAgent };
}

/** The whole entry a traced change must leave, as GET /api/audit-events shows it. */
export function entryOf(
  call: Traced,
  entry: { action: string; target: { type: string; id: number }; actor: Caller; organization_id: number; changes: Record<string, unknown> },
): AuditEvent {
  return {
    id: expect.any(Number),
    at: expect.stringMatching(ISO_MS),
    actor_id: entry.actor.id,
    actor_role: entry.actor.role,
    actor_token_id: null,
    organization_id: entry.organization_id,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    changes: entry.changes as AuditEvent['changes'],
    details: null,
    request_id: call.requestId,
    ip_address: expect.stringMatching(/127\.0\.0\.1|::1/),
    user_agent: call.userAgent,
  };
}

/**
 * The ids of the entries with `action` made after `since` whose changes mention `text`: a
 * create that failed has no target id to look up. Filtered by what only this test wrote, as
 * other files write into the same table on MySQL.
 */
export async function entriesMentioning(ctx: TestContext, action: string, text: string, since: number): Promise<Array<{ id: number; target_id: number | null }>> {
  const rows = await ctx.db('audit_events')
    .where('action', action)
    .where('id', '>', since)
    .where('changes', 'like', `%${text}%`)
    .orderBy('id')
    .select('id', 'target_id');
  return rows.map((r) => ({ id: Number(r.id), target_id: r.target_id === null ? null : Number(r.target_id) }));
}
