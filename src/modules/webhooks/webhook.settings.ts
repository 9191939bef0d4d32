/** The webhooks' settings (src/config.ts reads them: WEBHOOK_*, WEBHOOKS_ALLOW_PRIVATE). */
export interface WebhookSettings {
  /** seconds to wait after each failed attempt; once all are used, the delivery has failed */
  retrySchedule: readonly number[];
  /** a hook whose deliveries keep failing this many days is disabled; 0: never */
  disableAfterDays: number;
  /** allow private, loopback and link-local targets, and http (tests, closed networks) */
  allowPrivate: boolean;
  /** how often the dispatcher looks for changes to fan out and deliveries due (ms) */
  pollMs: number;
  /** the time-out of one attempt (ms): the whole exchange */
  timeoutMs: number;
  /** finished deliveries are kept this many days, as the change feed keeps changes (CHANGES_RETENTION_DAYS); 0: forever */
  keepDays: number;
}

/**
 * The Standard Webhooks schedule (https://www.standardwebhooks.com/, "Retry schedule"): after
 * an immediate first attempt, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h: eight attempts over
 * 27 h 35 min, more than the 24 hours the service promises.
 */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];

/** Each wait is drawn between 80% and 120% of the schedule's (jitter), so hooks failing together do not retry in step. */
export const JITTER = 0.2;

/** When the attempt after `attempts` failed ones is due, or null once the schedule is used up. */
export function nextAttemptAt(schedule: readonly number[], attempts: number, now: Date, random = Math.random): Date | null {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * random();
  return new Date(now.getTime() + Math.round(wait * 1000 * factor));
}

/** How long a claim holds a delivery: longer than an attempt can last, so only a crash lets it lapse. */
export const leaseMs = (settings: Pick<WebhookSettings, 'timeoutMs'>) => Math.max(1000, 3 * settings.timeoutMs);
