import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer } from '../helpers/factory';

/** An entry as GET /api/audit-events shows it. */
export interface AuditEvent {
  id: number;
  at: string;
  actor_id: number | null;
  actor_role: string | null;
  /** the API token that made the change (SCIM), else null */
  actor_token_id: number | null;
  organization_id: number | null;
  action: string;
  target_type: string;
  target_id: number | null;
  changes: Record<string, [unknown, unknown]>;
  details: Record<string, unknown> | null;
  request_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
}

/** The newest audit id now: entries made after it are the ones a test caused. */
export async function lastAuditId(ctx: TestContext): Promise<number> {
  const [{ id }] = await ctx.db('audit_events').max({ id: 'id' });
  return Number(id ?? 0);
}

/**
 * The entries about one target made after `since`, oldest first, read through the API as
 * `reader` (a Super_admin sees them all), so each test asserts what clients get.
 */
export async function entriesFor(
  ctx: TestContext,
  reader: { token: string },
  target: { type: string; id: number },
  since: number,
): Promise<AuditEvent[]> {
  const res = await request(ctx.app)
    .get('/api/audit-events')
    .set(bearer(reader))
    .query({ target_type: target.type, target_id: target.id, limit: 500 });
  if (res.status !== 200) throw new Error(`audit list failed: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.data.events as AuditEvent[]).filter((e) => e.id > since).reverse();
}

/** The raw text of the entries after `since`: nothing secret may appear in it. */
export async function rawEntriesSince(ctx: TestContext, since: number): Promise<string> {
  return JSON.stringify(await ctx.db('audit_events').where('id', '>', since).select('*'));
}
