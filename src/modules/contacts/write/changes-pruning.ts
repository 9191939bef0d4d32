import type { Db } from '../../../lib/db';
import { pruneChanges } from '../data/changes.writer';

const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;

/** The change feed's rows kept: those of the last `retentionDays` days (0: all). */
export function changesCutoff(retentionDays: number, now = Date.now()): Date | null {
  return retentionDays > 0 ? new Date(now - retentionDays * DAY_MS) : null;
}

/**
 * Prunes the change feed in the background of a serving process (docs/changes.md, Retention):
 * a minute after it starts, then once an hour; the timer never keeps the process alive on its
 * own. Several processes may prune at once: a pruning deletes only what is older than the
 * retention, and raises the pruned-through version only upwards.
 */
export class ChangesPruning {
  private readonly db: Db;
  private readonly retentionDays: number;
  private readonly onPruned: (result: { removed: number; prunedThrough: number }) => void;
  private readonly onError: (err: unknown) => void;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(deps: {
    db: Db;
    retentionDays: number;
    onPruned: (result: { removed: number; prunedThrough: number }) => void;
    onError: (err: unknown) => void;
  }) {
    this.db = deps.db;
    this.retentionDays = deps.retentionDays;
    this.onPruned = deps.onPruned;
    this.onError = deps.onError;
  }

  /** Starts the timer (nothing to do when every change is kept). */
  start(firstAfterMs = 60_000): this {
    if (this.retentionDays > 0 && !this.timer) this.schedule(firstAfterMs);
    return this;
  }

  /** Stops the timer, and resolves once a pruning under way has ended. */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.running = this.prune().finally(() => {
        this.running = null;
      });
      void this.running.then(() => {
        // stopped meanwhile: no next round
        if (this.timer) this.schedule(HOUR_MS);
      });
    }, ms).unref();
  }

  private async prune(): Promise<void> {
    const before = changesCutoff(this.retentionDays);
    if (!before) return;
    try {
      this.onPruned(await pruneChanges(this.db, before));
    } catch (err) {
      this.onError(err);
    }
  }
}
