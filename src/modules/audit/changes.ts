/** `{field: [before, after]}` for the fields that changed. */
export type Changes = Record<string, [unknown, unknown]>;

/**
 * Fields that never reach the audit trail, whatever a caller passes: a password, its hash, a
 * token or its version, a secret. Matched by name, so a field added later is covered too.
 */
const SECRET = /password|token|secret/i;

export const isSecretField = (field: string) => SECRET.test(field);

/** A value as the trail stores it: dates as ISO text, database booleans (1/0) as they are. */
function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return Number(value);
  return value === undefined ? null : value;
}

/** Two stored values are the same change-wise: `3` and `'3'` (a MySQL BIGINT) are. */
function same(a: unknown, b: unknown): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a !== null && b !== null && Number(a) === Number(b);
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * What `after` changes of `before`: each field of `after` that is given (not undefined), is no
 * secret and differs, with its value before and after. Fields `after` leaves out did not change.
 */
export function changesOf(before: Record<string, unknown> | null, after: Record<string, unknown>): Changes {
  const changes: Changes = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined || isSecretField(field)) continue;
    const old = plain(before?.[field]);
    const now = plain(value);
    if (!same(old, now)) changes[field] = [old, now];
  }
  return changes;
}
