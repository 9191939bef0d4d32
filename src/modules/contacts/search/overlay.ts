import type { Db } from '../../../lib/db';
import { nullableId } from '../../../lib/rows';
import type { FilteredColumns } from '../domain/filters';
import { directoryVersions } from '../data/tree/lock';
import { indexedRowsChangedSince } from '../data/index.queries';
import { indexedTextOf, type IndexedText } from './matching';
import type { SearchSnapshot } from './snapshot';

/** A contact as it is now, read because it changed since the snapshot's build. */
export interface ChangedContact extends IndexedText {
  id: number;
  /** what the filters test (domain/filters.ts) */
  columns: FilteredColumns;
}

/**
 * The changed contacts at one moment, and the snapshot's slots of them, ascending: what a walk
 * skips (snapshot.ts) and its view adds (view.ts). Taken together, so that the two agree even
 * when the walk runs in another thread while more changed contacts are read.
 */
export interface ChangedState {
  skip: Int32Array;
  contacts: readonly ChangedContact[];
}

/**
 * At most this many changed contacts are kept beside a snapshot. Each search walks all of them,
 * so past this a new snapshot is built, and SQL answers until it is (a move that relabels a
 * large unit can change more at once).
 */
export const MAX_CHANGED = 5000;

/**
 * A new snapshot is built in the background once this many contacts changed since the last
 * build (and SEARCH_INDEX_REFRESH_MS has passed): below it, adding the changed contacts to each
 * answer costs a search a few microseconds a contact, where a build of 100,000 contacts costs
 * about a second of CPU (docs/performance.md, "A mixed load").
 */
export const REBUILD_AFTER = 1000;

/**
 * The contacts changed since a snapshot's build, each as it is now: with them the snapshot
 * answers at a newer directory version than its own, instead of leaving every search to SQL
 * until the next build (docs/performance.md, "A mixed load").
 *
 * Every write of what the index holds stamps the row with its transaction's directory version
 * (data/tree/lock.ts changeStamp), under the directory lock. So once the directory's version V is
 * read, every change up to V has committed, and one indexed read of the rows stamped after the
 * last version caught up to (`change_version > ?`) brings every one of them: `version` then
 * becomes V. A snapshot's walks skip its slots of the changed contacts (`shadowed`), and the
 * view (view.ts) adds the contacts as they are now.
 */
export class ChangedContacts {
  readonly contacts = new Map<number, ChangedContact>();
  /** 1 at the snapshot's slot of each changed contact: a listing's walk in the pre-order tests it (snapshot.ts listedRanks) */
  readonly shadowed: Uint8Array;
  /** the slots set in `shadowed`, each once, in the order set */
  private readonly shadowedSlots: number[] = [];
  /** every change up to this directory version is in `contacts` */
  version: number;
  /** more than MAX_CHANGED: of no more use */
  overflowed = false;
  /** current()'s answer until a read brings rows */
  private state: ChangedState | null = null;

  constructor(readonly snapshot: SearchSnapshot) {
    this.shadowed = new Uint8Array(snapshot.size);
    this.version = snapshot.treeVersion;
  }

  /** The changed contacts as they are now, with the slots they shadow (ChangedState). */
  current(): ChangedState {
    this.state ??= { skip: Int32Array.from(this.shadowedSlots).sort(), contacts: [...this.contacts.values()] };
    return this.state;
  }

  /** Reads the contacts changed since `version` (rows changed again are read again) and brings `version` to the directory's. */
  async catchUp(db: Db): Promise<void> {
    const { version } = await directoryVersions(db);
    const rows = await indexedRowsChangedSince(db, this.version, MAX_CHANGED + 1);
    if (rows.length > 0) this.state = null;
    for (const row of rows) {
      const id = Number(row.id);
      const text = indexedTextOf(row);
      this.contacts.set(id, {
        id,
        ...text,
        columns: {
          is_active: Boolean(Number(row.is_active)),
          unit_id: Number(row.unit_id),
          department_id: nullableId(row.department_id),
          role_id: Number(row.role_id),
          parent_id: nullableId(row.parent_id),
          tree_ord: Number(row.tree_ord),
        },
      });
      const slot = this.snapshot.slotOf(id);
      if (slot >= 0 && this.shadowed[slot] === 0) {
        this.shadowed[slot] = 1;
        this.shadowedSlots.push(slot);
      }
    }
    if (rows.length > MAX_CHANGED || this.contacts.size > MAX_CHANGED) this.overflowed = true;
    this.version = Math.max(this.version, version);
  }
}
