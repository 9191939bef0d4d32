import type { Db } from '../../lib/db';

/**
 * Deletes the audit entries recorded before `before`, with their targets, a few thousand per
 * transaction so that no lock is held for long. For `npm run audit:prune` (ops), never a request
 * path: the trail is append-only for the API. Returns how many entries went.
 */
export async function pruneAuditTrail(db: Db, before: Date, batch = 5000): Promise<number> {
  let removed = 0;
  for (;;) {
    const gone = await db.transaction(async (trx) => {
      const ids = (await trx('audit_events').where('at', '<', before).orderBy('at').limit(batch).pluck('id')).map(Number);
      if (ids.length === 0) return 0;
      await trx('audit_event_targets').whereIn('event_id', ids).delete();
      await trx('audit_events').whereIn('id', ids).delete();
      return ids.length;
    });
    removed += gone;
    if (gone < batch) return removed;
  }
}
