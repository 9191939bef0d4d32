const MYSQL_DATETIME = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?$/;

/**
 * Timestamps leave the database as text (MySQL DATETIME(3), read in UTC as strings: turning
 * thousands of them into Date objects and back costs more than the query) or as epoch
 * milliseconds (SQLite, where knex binds a Date as its number). Both become ISO 8601 UTC
 * strings with milliseconds.
 */
export function toIso(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') {
    const m = MYSQL_DATETIME.exec(value);
    if (m) return `${m[1]}T${m[2]}.${(m[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  }
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'number' || typeof value === 'bigint') return new Date(Number(value)).toISOString();
  if (typeof value === 'string') {
    if (/^\d+$/.test(value)) return new Date(Number(value)).toISOString();
    // 'YYYY-MM-DD HH:MM:SS[.fff]' without a zone is UTC here
    const normal = /[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`;
    const date = new Date(normal);
    if (!Number.isNaN(date.getTime())) return date.toISOString();
  }
  throw new TypeError('Unrecognized timestamp value');
}

/** Like toIso, for columns that are never null. */
export function toIsoRequired(value: unknown): string {
  const iso = toIso(value);
  if (iso === null) throw new TypeError('Missing timestamp value');
  return iso;
}
