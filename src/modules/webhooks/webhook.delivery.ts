import type { Db } from '../../lib/db';
import { claimDue, parkClaimed, parkDeliveries, recordAttempts, type AttemptDone, type Claimed } from './deliveries.queries';
import { hooksByIds, signingSecrets, WEBHOOKS, type HookRow } from './webhooks.queries';
import { sendOnce, type Outcome } from './webhook.sender';
import { CLAIM_BATCH, CONCURRENCY, leaseMs, nextAttemptAt, type WebhookSettings } from './webhook.settings';

const DAY_MS = 24 * 60 * 60 * 1000;

interface Sent extends AttemptDone {
  hook: HookRow;
  outcome: Outcome;
}

/**
 * Sends due deliveries (docs/changes.md, Webhooks): claims them (each by one instance at a
 * time), sends each outside any transaction, records the round's attempts in one transaction,
 * each delivery then delivered, due again after the retry schedule's wait, or failed. A hook
 * failing without a success for WEBHOOK_DISABLE_AFTER_DAYS is disabled, with the reason shown
 * to its Admin. A claim lasts as long as the round may take (leaseMs); a crash before the record
 * leaves the claims to lapse and the deliveries are sent again (at least once). An outcome is
 * recorded only while its claim holds: one that lost it (lapsed, parked, or its hook deleted)
 * is dropped, and the others of the round are recorded all the same.
 */
export class WebhookDelivery {
  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Claims and sends one round of due deliveries; how many were claimed. */
  async round(): Promise<number> {
    const now = new Date();
    const claimed = await claimDue(this.db, now, new Date(now.getTime() + leaseMs(this.settings, CLAIM_BATCH)), CLAIM_BATCH);
    if (claimed.length === 0) return 0;
    const hooks = await hooksByIds(this.db, claimed.map((c) => c.webhook_id));
    const sent: Sent[] = [];
    const parked: Claimed[] = [];
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const delivery = claimed[next++];
        const hook = hooks.get(delivery.webhook_id);
        if (hook?.active) sent.push(await this.attempt(hook, delivery));
        else parked.push(delivery);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, claimed.length) }, worker));
    await this.record(sent);
    await parkClaimed(this.db, parked);
    return claimed.length;
  }

  /** One attempt of a claimed delivery, recorded with what follows it at once; its outcome (the test event). */
  async send(hook: HookRow, delivery: Claimed): Promise<Outcome> {
    const sent = await this.attempt(hook, delivery);
    await this.record([sent]);
    return sent.outcome;
  }

  private async attempt(hook: HookRow, delivery: Claimed): Promise<Sent> {
    const at = new Date();
    const outcome = await sendOnce(hook.url, delivery, signingSecrets(hook, at), this.settings);
    const nextAt = outcome.ok ? null : nextAttemptAt(this.settings.retrySchedule, delivery.attempts + 1, new Date());
    const attempt = { status: outcome.ok ? ('delivered' as const) : ('failed' as const), response_code: outcome.responseCode, duration_ms: outcome.durationMs, error: outcome.error };
    return { hook, outcome, delivery, attempt, at, nextAt };
  }

  private async record(sent: Sent[]): Promise<void> {
    try {
      const recorded = await recordAttempts(this.db, sent);
      const byHook = new Map<number, Sent[]>();
      for (const s of recorded) byHook.set(s.hook.id, [...(byHook.get(s.hook.id) ?? []), s]);
      for (const results of byHook.values()) await this.noteHealth(results);
    } catch (err) {
      // the claims lapse and the deliveries are sent again
      this.onError(err);
    }
  }

  /** A success ends a hook's failing streak; failures start one, or disable a hook failing for too long. */
  private async noteHealth(results: Sent[]): Promise<void> {
    const hook = results[0].hook;
    const success = results.find((r) => r.outcome.ok);
    if (success) {
      if (hook.failing_since) await this.db(WEBHOOKS).where({ id: hook.id }).whereNotNull('failing_since').update({ failing_since: null });
      return;
    }
    const last = results[results.length - 1];
    if (!hook.failing_since) {
      await this.db(WEBHOOKS).where({ id: hook.id }).whereNull('failing_since').update({ failing_since: last.at });
      return;
    }
    const days = this.settings.disableAfterDays;
    if (days > 0 && last.at.getTime() - hook.failing_since.getTime() >= days * DAY_MS) {
      const reason = `Deliveries failed for ${days} days without a success; last error: ${last.outcome.error ?? 'unknown'}`.slice(0, 255);
      await this.db(WEBHOOKS).where({ id: hook.id, active: true }).update({ active: false, disabled_reason: reason, disabled_at: last.at, updated_at: last.at });
      // its pending deliveries wait for it to be active again (PATCH active: true)
      await parkDeliveries(this.db, hook.id);
    }
  }
}
