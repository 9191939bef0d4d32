/**
 * A place in the change feed (docs/changes.md): after the change of `contactId` in directory
 * version `version`. The feed is ordered by (version, contact_id), so a place names exactly
 * which changes are behind it. `AFTER_VERSION` as the contact names the place after every
 * change of the version: where a read of the directory at that version continues from
 * (X-Changes-Cursor), and where the feed starts after a pruning.
 */
export interface ChangePosition {
  version: number;
  contactId: number;
}

/** Above every contact id (users.id is an unsigned INT): the place after all changes of a version. */
export const AFTER_VERSION = 4_294_967_295;

export const TYPES = ['created', 'updated', 'moved', 'deleted', 'restored'] as const;
export type ChangeType = (typeof TYPES)[number];

/**
 * Which type a contact's row keeps when one version changes it more than once: the change that
 * says most about it. A contact created (or deleted) in a version was created (or deleted)
 * whatever else that version did to it; a move says more than an update.
 */
const WEIGHT: Record<ChangeType, number> = { updated: 1, moved: 2, restored: 3, created: 4, deleted: 5 };

export function strongerType(a: ChangeType, b: ChangeType): ChangeType {
  return WEIGHT[b] > WEIGHT[a] ? b : a;
}

/** The place after every change of `version`. */
export const afterVersion = (version: number): ChangePosition => ({ version, contactId: AFTER_VERSION });

/** The cursor of a place: base64url of `<version>.<contact_id>`, opaque to clients. */
export function encodeCursor(p: ChangePosition): string {
  return Buffer.from(`${p.version}.${p.contactId}`, 'utf8').toString('base64url');
}

const POSITION = /^(0|[1-9]\d{0,15})\.(0|[1-9]\d{0,9})$/;

/**
 * The place a cursor names, or null for anything this service did not give: only the exact
 * text encodeCursor makes (no padding, no other spelling of the same bytes, no leading zeros),
 * so two cursors of one place are always the same string.
 */
export function decodeCursor(cursor: string): ChangePosition | null {
  if (!/^[A-Za-z0-9_-]{1,40}$/.test(cursor)) return null;
  const match = POSITION.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  const position = { version: Number(match[1]), contactId: Number(match[2]) };
  if (!Number.isSafeInteger(position.version) || position.contactId > AFTER_VERSION) return null;
  return encodeCursor(position) === cursor ? position : null;
}

/** Whether `a` lies before `b` in the feed's order. */
export function isBefore(a: ChangePosition, b: ChangePosition): boolean {
  return a.version < b.version || (a.version === b.version && a.contactId < b.contactId);
}
