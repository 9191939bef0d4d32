import type { Queryable } from '../../lib/db';
import { toIso } from '../../lib/time';
import { ATTEMPTS, DELIVERIES } from './deliveries.queries';

/** A page of a hook's deliveries, newest first, each with its attempts oldest first. */
export async function deliveryPage(db: Queryable, webhookId: number, page: { limit: number; offset: number; status?: string }) {
  const base = () => {
    const q = db(DELIVERIES).where({ webhook_id: webhookId });
    return page.status ? q.where({ status: page.status }) : q;
  };
  const [{ n }] = await base().count({ n: '*' });
  const rows = await base().orderBy('id', 'desc').limit(page.limit).offset(page.offset).select('id', 'event_id', 'type', 'status', 'attempts', 'next_attempt_at', 'created_at');
  const ids = rows.map((r) => Number(r.id));
  const attempts = ids.length === 0 ? [] : await db(ATTEMPTS).whereIn('delivery_id', ids).orderBy('id').select('*');
  const byDelivery = new Map<number, unknown[]>();
  for (const a of attempts) {
    const list = byDelivery.get(Number(a.delivery_id)) ?? [];
    list.push({
      attempted_at: toIso(a.attempted_at),
      status: String(a.status),
      response_code: a.response_code === null ? null : Number(a.response_code),
      duration_ms: Number(a.duration_ms),
      error: (a.error as string | null) ?? null,
    });
    byDelivery.set(Number(a.delivery_id), list);
  }
  const deliveries = rows.map((r) => ({
    id: Number(r.id),
    event_id: String(r.event_id),
    type: String(r.type),
    status: String(r.status),
    attempts: Number(r.attempts),
    next_attempt_at: toIso(r.next_attempt_at),
    created_at: toIso(r.created_at),
    attempt_log: byDelivery.get(Number(r.id)) ?? [],
  }));
  return { deliveries, total: Number(n) };
}
