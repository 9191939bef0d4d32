import type { Db } from '../../lib/db';
import { afterVersion, type ChangeFeed, type ChangePosition, type PlacedChange } from '../contacts';
import { advanceFanOut, fanOutCursor, pruneDeliveries, resumeIfActive, type FannedOut } from './deliveries.queries';
import { allHooks, type HookRow } from './webhooks.queries';
import { eventBody, subscribes } from './webhook.events';
import { WebhookDelivery } from './webhook.delivery';
import type { WebhookSettings } from './webhook.settings';

/** Changes fanned out per transaction. */
const FAN_OUT_BATCH = 500;

const HOUR_MS = 60 * 60 * 1000;
/** How long a commit's nudge waits, so that the commits after it go in the same round (nudge). */
const NUDGE_MS = 50;

const isBefore = (a: ChangePosition, b: ChangePosition) => a.version < b.version || (a.version === b.version && a.contactId < b.contactId);

/** The `webhook-id` of a change's event for a hook: the same on every retry, and unique. */
export const eventIdOf = (cursor: string, hookId: number) => `msg_${cursor}_${hookId}`;

/**
 * The deliveries of a page of changes: one per change per hook that subscribes to it, an
 * inactive hook's parked (they wait for PATCH active: true, then go in order).
 */
export function deliveriesForChanges(changes: readonly PlacedChange[], hooks: readonly HookRow[]): FannedOut[] {
  const rows: FannedOut[] = [];
  for (const { change, position, organizationId } of changes) {
    const type = `contact.${change.type}`;
    let body: string | null = null;
    for (const hook of hooks) {
      if (position.version <= hook.after_version) continue;
      if (hook.organization_id !== null && hook.organization_id !== organizationId) continue;
      if (!subscribes(hook.events, type)) continue;
      body ??= eventBody(type, change.at, change);
      rows.push({ webhook_id: hook.id, event_id: eventIdOf(change.cursor, hook.id), type, payload: body, parked: !hook.active });
    }
  }
  return rows;
}

/**
 * The webhooks' dispatcher (docs/changes.md, Webhooks). The outbox is the change feed: every
 * change's rows are written in its own transaction, in commit order, with no gaps. The
 * dispatcher follows the feed from its cursor (webhook_state) and writes one delivery per
 * change per subscribed hook, moving the cursor in the same transaction: nothing is added to
 * the write path, nothing committed is missed, and a restart goes on from the cursor. Then it
 * sends the deliveries due (WebhookDelivery). It polls every WEBHOOK_POLL_MS, for the changes of
 * other instances too; a commit of this process nudges it to look at once (`listen`).
 */
export class WebhookDispatcher {
  private readonly db: Db;
  private readonly feed: ChangeFeed;
  private readonly settings: WebhookSettings;
  private readonly onError: (err: unknown) => void;
  private readonly onBehind: (info: { cursorVersion: number; prunedThrough: number }) => void;
  readonly delivery: WebhookDelivery;
  private timer: NodeJS.Timeout | null = null;
  /** when the round `timer` is set for will run (Date.now() ms) */
  private dueAt = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private started = false;
  private prunedAt = 0;
  private readonly listen: ((nudge: () => void) => () => void) | null;
  private unlisten: (() => void) | null = null;

  constructor(deps: {
    db: Db;
    feed: ChangeFeed;
    settings: WebhookSettings;
    onError?: (err: unknown) => void;
    /** the feed was pruned past the cursor (the dispatcher was stopped longer than CHANGES_RETENTION_DAYS) */
    onBehind?: (info: { cursorVersion: number; prunedThrough: number }) => void;
    /** subscribes nudge() to this process's commits (contacts' onDirectoryCommit); returns the unsubscribe */
    listen?: (nudge: () => void) => () => void;
  }) {
    this.db = deps.db;
    this.feed = deps.feed;
    this.settings = deps.settings;
    this.onError = deps.onError ?? (() => undefined);
    this.onBehind = deps.onBehind ?? (() => undefined);
    this.delivery = new WebhookDelivery(deps.db, deps.settings, this.onError);
    this.listen = deps.listen ?? null;
  }

  start(): this {
    if (!this.started) {
      this.started = true;
      this.unlisten = this.listen?.(() => this.nudge()) ?? null;
      this.schedule(0);
    }
    return this;
  }

  /** Stops polling and resolves once the round under way (its sends included) has ended. */
  async stop(): Promise<void> {
    this.started = false;
    this.unlisten?.();
    this.unlisten = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /**
   * Look soon (a change committed in this process), or soon after the round under way ends. Soon,
   * not at once: a round costs a few statements whatever it carries, and under a stream of
   * writes a round per commit cost a move 12% of its rate (docs/performance.md, "Webhooks");
   * NUDGE_MS gathers the commits that follow into one round.
   */
  nudge(): void {
    if (!this.started) return;
    if (this.running) this.again = true;
    else this.schedule(NUDGE_MS);
  }

  /**
   * One round: fan out what is new, then send what is due, until nothing is left; hourly, prune.
   * With no hook at all, a round is one read: there is nothing to fan out for and no delivery
   * (they go with their hook), so neither the cursor nor a claim is written. The cursor moves on
   * once a hook exists (fanOut starts at the oldest hook's start).
   */
  async runOnce(): Promise<void> {
    if (Date.now() - this.prunedAt >= HOUR_MS) {
      this.prunedAt = Date.now();
      await this.prune();
    }
    for (let rounds = 0; rounds < 100; rounds++) {
      const hooks = await allHooks(this.db);
      if (hooks.length === 0) return;
      const fanned = await this.fanOut(hooks);
      const sent = await this.delivery.round();
      if (fanned < FAN_OUT_BATCH && sent === 0) return;
    }
  }

  /** Deletes the finished deliveries older than `keepDays` (nothing with 0); how many. */
  async prune(now = Date.now()): Promise<number> {
    if (this.settings.keepDays <= 0) return 0;
    return pruneDeliveries(this.db, new Date(now - this.settings.keepDays * 24 * HOUR_MS));
  }

  /**
   * Fans out one page of changes after the cursor for `hooks` (every hook, active or not); how
   * many changes it read. The page starts at the cursor, or after the oldest hook's
   * `after_version` when that is later: the changes before it are no hook's (the cursor stays
   * behind while no hook exists).
   */
  async fanOut(hooks?: readonly HookRow[]): Promise<number> {
    const all = hooks ?? (await allHooks(this.db));
    if (all.length === 0) return 0;
    const from = await fanOutCursor(this.db);
    const oldest = afterVersion(Math.min(...all.map((h) => h.after_version)));
    const start = isBefore(from, oldest) ? oldest : from;
    const { changes, prunedThrough } = await this.feed.since(start, FAN_OUT_BATCH);
    if (start.version < prunedThrough) {
      // stopped for longer than the feed keeps changes: what was pruned cannot be sent
      this.onBehind({ cursorVersion: start.version, prunedThrough });
      if (changes.length === 0) {
        await advanceFanOut(this.db, from, afterVersion(prunedThrough), []);
        return 0;
      }
    }
    if (changes.length === 0) {
      if (start !== from) await advanceFanOut(this.db, from, start, []);
      return 0;
    }
    const to = changes[changes.length - 1].position;
    const rows = deliveriesForChanges(changes, all);
    // false: another instance fanned these out first, or a hook read above was deleted since;
    // the next round reads the hooks and the cursor again
    if (await advanceFanOut(this.db, from, to, rows)) {
      // a hook made active since it was read would find these parked: resumed if so
      await resumeIfActive(this.db, [...new Set(rows.filter((r) => r.parked).map((r) => r.webhook_id))]);
    }
    return changes.length;
  }

  /** Runs a round in `ms`, unless one is set to run sooner (a stream of nudges does not put it off). */
  private schedule(ms: number): void {
    const at = Date.now() + ms;
    if (this.timer && this.dueAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.runOnce()
        .catch(this.onError)
        .finally(() => {
          this.running = null;
          if (!this.started) return;
          const now = this.again;
          this.again = false;
          this.schedule(now ? NUDGE_MS : this.settings.pollMs);
        });
    }, ms).unref();
  }
}
