import type Redis from 'ioredis';
import type { Logger } from '../logger';

/** How often a lasting Redis outage is logged (the database's outage lines keep the same pace). */
export const REDIS_OUTAGE_LOG_INTERVAL_MS = 10_000;
/** How long /ready and /metrics wait for Redis's PONG. */
const REDIS_PING_TIMEOUT_MS = 1000;

/**
 * The service's view of its Redis client: whether Redis answers (/ready, /metrics), and its
 * outages, logged as one `redis unavailable` line at most per interval while they last (with
 * the failed connection attempts and the requests let through uncounted since the line
 * before) and one `redis reachable again` line after, in place of ioredis's error at every
 * reconnection attempt (every 2 s) and the limiters' error per limiter and request.
 */
export class RedisWatch {
  private downSince: number | null = null;
  private reported = false;
  private lastLineAt = -Infinity;
  private failedAttempts = 0;
  private uncounted = 0;

  constructor(
    private readonly redis: Redis,
    private readonly logger: Logger,
    private readonly intervalMs = REDIS_OUTAGE_LOG_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {
    redis.on('error', (err: unknown) => {
      this.failedAttempts++;
      this.down(err);
    });
    redis.on('ready', () => this.up());
  }

  /** Whether Redis answers a PING now, within a second. */
  async reachable(): Promise<boolean> {
    if (this.redis.status !== 'ready') return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), REDIS_PING_TIMEOUT_MS);
    });
    try {
      return await Promise.race([this.redis.ping().then(() => true, () => false), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A limiter could not count a request, which went through: the store's error. */
  storeFailed(err: unknown): void {
    this.uncounted++;
    if (this.redis.status !== 'ready') this.down(err);
    // connected, yet the store failed: no outage, but not a line per request either
    else if (this.lineDue()) this.logger.error({ err, uncountedRequests: this.takeUncounted() }, 'rate limiter error: request not counted');
  }

  private down(err: unknown): void {
    this.downSince ??= this.now();
    if (!this.lineDue()) return;
    this.reported = true;
    const counts = { failedAttempts: this.failedAttempts, uncountedRequests: this.takeUncounted() };
    this.failedAttempts = 0;
    this.logger.warn({ err, downForMs: this.now() - this.downSince, ...counts }, 'redis unavailable: rate limits are not counted');
  }

  private up(): void {
    if (this.downSince === null) return;
    if (this.reported) {
      const counts = { failedAttempts: this.failedAttempts, uncountedRequests: this.takeUncounted() };
      this.logger.info({ downForMs: this.now() - this.downSince, ...counts }, 'redis reachable again: rate limits are counted');
    }
    this.downSince = null;
    this.reported = false;
    this.failedAttempts = 0;
  }

  private lineDue(): boolean {
    const now = this.now();
    if (now - this.lastLineAt < this.intervalMs) return false;
    this.lastLineAt = now;
    return true;
  }

  private takeUncounted(): number {
    const count = this.uncounted;
    this.uncounted = 0;
    return count;
  }
}

// one watch per client: server.ts makes it before connecting, the app's limiters and /ready find it
const watches = new WeakMap<Redis, RedisWatch>();

/** The watch of this client, made (and its listeners added) on the first call. */
export function watchRedis(redis: Redis, logger: Logger): RedisWatch {
  let watch = watches.get(redis);
  if (!watch) {
    watch = new RedisWatch(redis, logger);
    watches.set(redis, watch);
  }
  return watch;
}
