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

/** Deliveries claimed per round, and sent at once by one instance (webhook.delivery.ts). */
export const CLAIM_BATCH = 100;
export const CONCURRENCY = 16;

/** What an attempt may take beyond its time-out (timers, the signature, the event loop's other work). */
const ATTEMPT_SLACK_MS = 1000;

/** What recording a round's outcomes may take (one transaction). */
const RECORD_MS = 30_000;

/**
 * How long a claim of `count` deliveries holds them: the time the round may really take. Each of
 * the CONCURRENCY senders sends its share one after another, each attempt (DNS lookup
 * included) bounded by `timeoutMs`, then the outcomes are recorded: with the defaults, 7 waves
 * of at most 11 s and 30 s to record, about 107 s. Only a crash (or a stall past all of that)
 * lets a claim lapse; an outcome recorded after its claim lapsed is dropped
 * (deliveries.queries.ts, recordAttempts), never written over another instance's.
 */
export function leaseMs(settings: Pick<WebhookSettings, 'timeoutMs'>, count = CLAIM_BATCH): number {
  const waves = Math.ceil(Math.max(1, count) / CONCURRENCY);
  return waves * (settings.timeoutMs + ATTEMPT_SLACK_MS) + RECORD_MS;
}
