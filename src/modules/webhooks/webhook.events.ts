import { CHANGE_TYPES } from '../contacts';

/** The events a contact's change is sent as: `contact.<type>` of the change feed (docs/changes.md). */
export const EVENT_TYPES = CHANGE_TYPES.map((type) => `contact.${type}` as const);

/** What a webhook may subscribe to: an event type, or `contact.*` for all of them. */
export const EVENT_PATTERNS: readonly string[] = [...EVENT_TYPES, 'contact.*'];

/** The event POST /api/webhooks/:id/test sends: never one of the feed's, so a receiver can tell it apart. */
export const TEST_EVENT = 'webhook.test';

/** Whether a hook subscribed to `patterns` gets events of `type`. */
export function subscribes(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
}

/** The body of an event, Standard Webhooks' shape: `type`, `timestamp`, `data` (the fan-out's and the test event's). */
export function eventBody(type: string, timestamp: string, data: unknown): string {
  return JSON.stringify({ type, timestamp, data });
}
