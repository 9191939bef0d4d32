/** What a database error is, told by its driver's code (never by its message text). */

function codeOf(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err ? String((err as { code: unknown }).code) : undefined;
}

export function isUniqueViolation(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const code = codeOf(err);
  return (
    code === 'ER_NO_REFERENCED_ROW_2' ||
    code === 'ER_ROW_IS_REFERENCED_2' ||
    code === 'ER_NO_REFERENCED_ROW' ||
    code === 'ER_ROW_IS_REFERENCED' ||
    code === 'SQLITE_CONSTRAINT_FOREIGNKEY'
  );
}

/** Errors after which the whole transaction may simply be run again. */
export function isRetryable(err: unknown): boolean {
  const code = codeOf(err);
  return code === 'ER_LOCK_DEADLOCK' || code === 'ER_LOCK_WAIT_TIMEOUT' || code === 'SQLITE_BUSY';
}

/** Driver codes of a database that cannot be reached now: down, refusing, silent, or too busy. */
const UNAVAILABLE = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE',
  'PROTOCOL_CONNECTION_LOST', 'PROTOCOL_SEQUENCE_TIMEOUT', 'ER_CON_COUNT_ERROR', 'ER_SERVER_SHUTDOWN',
  'SQLITE_BUSY', 'SQLITE_CANTOPEN',
]);

/**
 * Whether a request failed because the database cannot be reached now, so that it may succeed
 * later (503): a driver code above, or knex's own timeout waiting for a connection.
 */
export function isUnavailable(err: unknown): boolean {
  const code = codeOf(err);
  if (code !== undefined && UNAVAILABLE.has(code)) return true;
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'KnexTimeoutError';
}
