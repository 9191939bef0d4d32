import type { Db } from '../../../lib/db';
import { AppError } from '../../../lib/errors';
import { cursorPagination } from '../../../lib/http/paging';
import { AFTER_VERSION, afterVersion, encodeCursor, isBefore, type ChangePosition, type ChangeType } from '../domain/change-cursor';
import type { Contact } from '../domain/contact.record';
import { changesAfter, changesPrunedThrough, type ChangeRow } from '../data/changes.queries';
import { contactsByIdsReader } from '../data/users.queries';
import type { DirectoryVersions } from '../data/tree/lock';

export const CHANGES_PAGE = { defaultLimit: 100, maxLimit: 1000 };

/** What to do after a 410: the same words for a cursor too old and one from elsewhere. */
const START_AGAIN = 'read the list again (GET /api/contacts), then follow the changes from the cursor in its X-Changes-Cursor header';

export const CHANGES_GONE = `Changes before this cursor are no longer kept: ${START_AGAIN}`;
export const CURSOR_AHEAD = `This cursor is ahead of the directory (a cursor of another database?): ${START_AGAIN}`;

/** One change as the feed shows it. */
export interface FeedChange {
  /** the place after this change: a poll from it sees the changes after this one */
  cursor: string;
  at: string;
  type: ChangeType;
  contact_id: number;
  /** the contact as a listing shows it now; null once it is deactivated */
  contact: (Contact & { level: number }) | null;
}

/** A change with its place in the feed and the organization of its contact. */
export interface PlacedChange {
  position: ChangePosition;
  organizationId: number;
  change: FeedChange;
}

/**
 * The change feed of the directory (docs/changes.md): pages of the contact_changes rows in
 * (version, contact_id) order, which is commit order, each with the contact as it is now.
 * Everyone who may list the contacts may follow it, and sees every change: the list shows
 * every organization's contacts to every reader (docs/api.md, "Who may write what").
 */
export class ChangeFeed {
  private readonly db: Db;
  private readonly contactsByIds: ReturnType<typeof contactsByIdsReader>;

  constructor(deps: { db: Db }) {
    this.db = deps.db;
    this.contactsByIds = contactsByIdsReader(deps.db);
  }

  /**
   * The changes after `after`, as the feed shows each, with its place and its contact's
   * organization: what the webhooks' dispatcher fans out. `prunedThrough`: how far the feed is
   * pruned, so a caller behind it knows that it missed changes.
   */
  async since(after: ChangePosition, limit: number): Promise<{ changes: PlacedChange[]; prunedThrough: number }> {
    const read = await changesAfter(this.db, after, limit);
    return { changes: await this.shape(read.rows), prunedThrough: read.prunedThrough };
  }

  /** Rows as the feed shows them, with the contacts as they are now. */
  private async shape(rows: ChangeRow[]): Promise<PlacedChange[]> {
    const contacts = new Map<number, Contact & { level: number }>();
    for (const c of await this.contactsByIds([...new Set(rows.map((r) => r.contact_id))])) contacts.set(c.id, c);
    return rows.map((r) => {
      const contact = contacts.get(r.contact_id);
      const position = { version: r.version, contactId: r.contact_id };
      return {
        position,
        organizationId: r.organization_id,
        change: {
          cursor: encodeCursor(position),
          at: r.at,
          type: r.type,
          contact_id: r.contact_id,
          contact: contact && contact.is_active ? contact : null,
        },
      };
    });
  }

  /** The cursor that a read of the directory at these versions continues from (X-Changes-Cursor). */
  static cursorOf(versions: DirectoryVersions): string {
    return encodeCursor(afterVersion(versions.directory));
  }

  /**
   * The page after `cursor` (validated: a position), or from the start of what is kept. 410 for
   * a cursor before what is kept (pruned: CHANGES_RETENTION_DAYS) or after the directory's
   * version, which the session read before this (a cursor this database never gave).
   */
  async page(input: { cursor?: ChangePosition; limit?: number }, versions: DirectoryVersions) {
    const limit = input.limit ?? CHANGES_PAGE.defaultLimit;
    const given = input.cursor ?? null;
    if (given && given.version > versions.directory) throw new AppError(410, CURSOR_AHEAD);
    // A poll at rest (after every change of the directory's version, which the session has just
    // read) has nothing new as of that read, and nothing pruned ahead of it: answered without a
    // query, so a quiet directory's pollers cost what a 304 costs.
    if (given && given.version === versions.directory && given.contactId === AFTER_VERSION) {
      const cursor = encodeCursor(given);
      return { changes: [], next_cursor: cursor, has_more: false, pagination: cursorPagination(limit, false, cursor) };
    }
    let after = given ?? afterVersion(await changesPrunedThrough(this.db));
    let read: { rows: ChangeRow[]; prunedThrough: number };
    for (;;) {
      read = await changesAfter(this.db, after, limit + 1);
      if (!isBefore(after, afterVersion(read.prunedThrough))) break;
      if (given) throw new AppError(410, CHANGES_GONE);
      // a pruning between the two reads of a start: start after it
      after = afterVersion(read.prunedThrough);
    }
    const rows = read.rows.slice(0, limit);
    const changes = (await this.shape(rows)).map((c) => c.change);
    const hasMore = read.rows.length > limit;
    const last = rows[rows.length - 1];
    let next = last ? { version: last.version, contactId: last.contact_id } : after;
    // At the end of the feed, the place after the directory's version that the session read:
    // this read saw every change up to it (it ran after the session's read, and versions commit
    // in order), so nothing lies between. A cursor at rest then follows the directory, not its
    // last change, and a quiet directory's changes pruned behind it do not make it 410.
    const rest = afterVersion(versions.directory);
    if (!hasMore && isBefore(next, rest)) next = rest;
    const cursor = encodeCursor(next);
    return { changes, next_cursor: cursor, has_more: hasMore, pagination: cursorPagination(limit, hasMore, cursor) };
  }
}
