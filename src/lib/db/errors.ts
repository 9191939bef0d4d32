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
