/** A nullable id column as a number or null (drivers give numbers, strings or bigints). */
export const nullableId = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A nullable text column as a string or null. */
export const nullableText = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
