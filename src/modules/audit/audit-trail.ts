import type { Knex } from 'knex';
import { rowsLast, writeBehind, writeLast, writeRows } from '../../lib/db';
import type { Actor } from './actor';
import { changesOf, isSecretField, type Changes } from './changes';

export interface AuditEntry {
  /** what was done, `<target type>.<verb>`: `contact.move`, `role.update` */
  action: string;
  targetType: string;
  /** the one target; null for a change of many (their ids go in `targetIds`) */
  targetId: number | null;
  /** every target of a change of many, one entry for all of them */
  targetIds?: readonly number[];
  /**
   * The organization the target belongs to. Records that belong to none (locations, units,
   * roles, ...) are filed under the actor's, so an Admin sees what was changed from there.
   */
  organizationId?: number | null;
  changes?: Changes;
  /** what a change of many reports beyond its targets: an import's counts, say */
  details?: Record<string, unknown>;
}

/**
 * Records administrative changes (docs/audit.md). `record` runs inside the change's own
 * transaction, so an entry exists exactly when its change committed. It only ever inserts:
 * nothing in the application updates or deletes an entry (pruning by age is `npm run
 * audit:prune`, not a request path).
 */
/** An entry's targets written per statement (each a row object until written). */
const TARGETS_AT_ONCE = 10_000;
/** Up to this many, an entry's targets are written with the other entries' of the transaction (rowsLast). */
const FEW_TARGETS = 100;

export class AuditTrail {
  private readonly enabled: boolean;

  /** `enabled: false` is for the benchmark's comparison only (AUDIT_ENABLED). */
  constructor(options: { enabled: boolean }) {
    this.enabled = options.enabled;
  }

  /**
   * Writes the entry in `trx`. Where the transaction takes writes behind (lib/db/write-behind.ts:
   * a change of the directory), the entry is sent behind the change's next statements and its
   * targets, which need its id, are written last: nothing reads an entry back before the commit.
   */
  async record(trx: Knex.Transaction, actor: Actor, entry: AuditEntry): Promise<void> {
    if (!this.enabled) return;
    const changes = Object.fromEntries(Object.entries(entry.changes ?? {}).filter(([field]) => !isSecretField(field)));
    // taken now: the caller goes on before they are written
    const targets = entry.targetId !== null ? [entry.targetId] : [...(entry.targetIds ?? [])];
    const { targetType } = entry;
    const inserted = Promise.resolve(
      trx('audit_events').insert({
        at: new Date(),
        // an API token is an actor of its own kind: no user made the change
        actor_id: actor.apiTokenId === undefined ? actor.userId : null,
        actor_token_id: actor.apiTokenId ?? null,
        actor_role: actor.roleName,
        organization_id: entry.organizationId === undefined ? actor.organizationId : entry.organizationId,
        action: entry.action,
        target_type: targetType,
        target_id: entry.targetId,
        changes: JSON.stringify(changes),
        details: entry.details ? JSON.stringify(entry.details) : null,
        request_id: actor.requestId,
        ip_address: actor.client.ip,
        user_agent: actor.client.userAgent,
      }),
    );
    await writeBehind(trx, () => inserted);
    if (targets.length === 0) return;
    const rowsOf = (id: unknown, some: readonly number[]) => some.map((targetId) => ({ event_id: Number(id), target_type: targetType, target_id: targetId }));
    // a few targets (a change of one contact, most often) go in with those of the other changes of the group
    if (targets.length <= FEW_TARGETS) return rowsLast(trx, 'audit_event_targets', async () => rowsOf((await inserted)[0], targets));
    await writeLast(trx, async () => {
      const [id] = await inserted;
      // an import's 100,000 targets in a few LOAD DATA on MySQL (writeRows), not 200 INSERTs,
      // their rows made TARGETS_AT_ONCE at a time
      for (let at = 0; at < targets.length; at += TARGETS_AT_ONCE) {
        await writeRows(trx, 'audit_event_targets', rowsOf(id, targets.slice(at, at + TARGETS_AT_ONCE)));
      }
    });
  }

  /** One entry for a change of one record, its fields from `before` to `after`; none when nothing changed. */
  async recordChange(trx: Knex.Transaction, actor: Actor, entry: Omit<AuditEntry, 'changes'>, before: Record<string, unknown> | null, after: Record<string, unknown>): Promise<void> {
    const changes = changesOf(before, after);
    if (Object.keys(changes).length > 0) await this.record(trx, actor, { ...entry, changes });
  }
}
