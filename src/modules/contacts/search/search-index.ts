import type { Db } from '../../../lib/db';
import type { DirectoryVersions } from '../data/tree/lock';
import { SEPARATOR } from './matching';
import { ChangedContacts, REBUILD_AFTER } from './overlay';
import { loadSnapshot } from './columns';
import type { SearchSnapshot } from './snapshot';
import { SearchView } from './view';
import type { Walkers } from './walkers';

/**
 * What each build reports (for the service's metrics): whether it succeeded, and when the build
 * of the snapshot that answers now began (its age), null while there is none.
 */
export interface IndexBuild {
  ok: boolean;
  indexBuiltAt: number | null;
}

/**
 * The search snapshot of one service process, and the contacts changed since its build.
 *
 * A search first reads the directory's versions with its session. The snapshot answers alone
 * when it has reached them: the search version (every change of what a search shows bumps it; a
 * move does not) for the search endpoint, the directory version (which a move bumps too) for a
 * listing, whose order and ranges come from the tree. Otherwise the contacts changed since the
 * build are read (overlay.ts: one indexed read of those changed since the last such read, shared
 * by the searches waiting for it), and the snapshot with them answers (view.ts): an answer never
 * misses a committed change. Once `rebuildAfter` contacts changed since the build and `refreshMs`
 * has passed since the last one (longer while writes keep outdating the builds: `pace`), or at
 * once when more than MAX_CHANGED changed, a new snapshot is built in the background; SQL
 * answers only before the first build, after one failed, or while too many contacts changed. With `refreshMs` 0 a search waits for a build
 * instead (tests). A build that fails is reported to `onError` and leaves the searches to SQL.
 * Every build, either way, is reported to `onBuild` when one is given.
 */
export class SearchIndex {
  private snapshot: SearchSnapshot | null = null;
  /** the contacts changed since the snapshot's build, as far as read */
  private changed: ChangedContacts | null = null;
  /** the read of changed contacts under way: one at a time, shared by the searches that wait for it */
  private catchingUp: Promise<void> | null = null;
  private building: Promise<SearchSnapshot | null> | null = null;
  private lastBuild = Number.NEGATIVE_INFINITY;
  /** the newest versions asked for since the running build began: if it ends older, it came too late */
  private newestAsked = { version: 0, treeVersion: 0 };
  /** the time between background builds: refreshMs, doubled after each build that came too late */
  private intervalMs: number;
  /** when the build of `snapshot` began: what it reflects is at least that old */
  private snapshotBuiltAt: number | null = null;

  private readonly db: Db;
  private readonly refreshMs: number;
  private readonly rebuildAfter: number;
  private readonly onError: (err: unknown) => void;
  private readonly onBuild: (build: IndexBuild) => void;
  private readonly now: () => number;
  private readonly walkers: Walkers | undefined;

  constructor(deps: {
    db: Db;
    refreshMs: number;
    /** how many changed contacts make a background build worth it (REBUILD_AFTER; 0: any time) */
    rebuildAfter?: number;
    onError: (err: unknown) => void;
    onBuild?: (build: IndexBuild) => void;
    now?: () => number;
    /** where a term's walks run (none: in this thread) */
    walkers?: Walkers;
  }) {
    this.db = deps.db;
    this.refreshMs = deps.refreshMs;
    this.rebuildAfter = deps.rebuildAfter ?? REBUILD_AFTER;
    this.onError = deps.onError;
    this.onBuild = deps.onBuild ?? (() => undefined);
    this.now = deps.now ?? Date.now;
    this.intervalMs = this.refreshMs;
    this.walkers = deps.walkers;
  }

  /**
   * A view of the directory at least as new as the request's `versions` (the search version
   * alone, unless `tree`: a listing needs the tree as it is too), or null when the caller should
   * search in SQL. The versions only grow; a database restored to older ones needs the service
   * restarted.
   */
  async at(versions: DirectoryVersions, needle: string, tree = false): Promise<SearchView | null> {
    if (needle.includes(SEPARATOR) || Array.from(needle).length < 2) return null;
    return this.view(versions, tree);
  }

  /** at() for an answer that searches no term (the counters of the whole directory, say). */
  async view(versions: DirectoryVersions, tree = false): Promise<SearchView | null> {
    const current = (s: SearchSnapshot | null): s is SearchSnapshot => s !== null && (s.treeVersion >= versions.directory || (!tree && s.version >= versions.search));
    if (current(this.snapshot)) return new SearchView(this.snapshot, null, this.walkers);
    this.newestAsked = {
      version: Math.max(this.newestAsked.version, versions.search),
      treeVersion: Math.max(this.newestAsked.treeVersion, versions.directory),
    };
    if (this.refreshMs === 0) {
      while (!current(this.snapshot)) {
        if (!(await this.build())) return null;
      }
      return new SearchView(this.snapshot, null, this.walkers);
    }
    // a build when the interval has passed and enough contacts changed (or there is no snapshot
    // to add them to): checked before the read of the changed contacts, which it may overlap,
    // and after, which may have brought enough
    const buildIfDue = () => {
      const due = !this.building && this.now() - this.lastBuild >= this.intervalMs;
      if (due && (this.changed?.contacts.size ?? this.rebuildAfter) >= this.rebuildAfter) void this.build();
    };
    buildIfDue();
    const changed = await this.changedUpTo(versions.directory);
    if (changed) {
      buildIfDue();
      return new SearchView(changed.snapshot, changed, this.walkers);
    }
    // too many changes to add to each answer: a new snapshot, now
    if (this.changed?.overflowed && !this.building) void this.build();
    return null;
  }

  /**
   * The changed contacts of the newest snapshot, read up to the directory `version` at least;
   * null when there is no snapshot, too many changed, or the read failed. A read that began
   * before the caller read its version may end short of it: a second read, begun after, cannot
   * (unless the database went back to older versions: null then, too).
   */
  private async changedUpTo(version: number): Promise<ChangedContacts | null> {
    for (let reads = 0; ; reads++) {
      const changed = this.changed;
      if (!changed || changed.overflowed || (reads === 2 && changed.version < version)) return null;
      if (changed.version >= version) return changed;
      this.catchingUp ??= changed
        .catchUp(this.db)
        .catch((err: unknown) => {
          this.onError(err);
          throw err;
        })
        .finally(() => {
          this.catchingUp = null;
        });
      try {
        await this.catchingUp;
      } catch {
        return null; // reported once, by the read's own handler
      }
    }
  }

  /**
   * Starts a build now when there is no snapshot yet (server.ts, at start): the first searches
   * after a start then find the index built, instead of running in SQL while it builds.
   */
  warm(): void {
    if (!this.snapshot) void this.build();
  }

  /** Whether a snapshot answers (`built`, whatever its age), the first is being built, or none is (`none`: not asked for yet, or failed). */
  state(): 'built' | 'building' | 'none' {
    if (this.snapshot) return 'built';
    return this.building ? 'building' : 'none';
  }

  /**
   * Under a steady stream of writes a build is out of date before it ends, and answers nothing:
   * it only takes the CPU (a build of 100,000 contacts is about a second of it) and the database
   * from the requests. So each build that ends older than a search asked for while it ran doubles
   * the time until the next one (up to 8 times SEARCH_INDEX_REFRESH_MS: 40 s by default);
   * meanwhile the snapshot answers with the contacts changed since its build, and a build that
   * ends current brings the time back to SEARCH_INDEX_REFRESH_MS.
   */
  private pace(built: SearchSnapshot): void {
    const late = built.version < this.newestAsked.version || built.treeVersion < this.newestAsked.treeVersion;
    this.intervalMs = late ? Math.min(this.intervalMs * 2, this.refreshMs * 8) : this.refreshMs;
  }

  /** One build at a time; a failed build leaves the last snapshot in place (and SQL answers). */
  private build(): Promise<SearchSnapshot | null> {
    if (!this.building) {
      const startedAt = this.now();
      this.lastBuild = startedAt;
      this.newestAsked = { version: 0, treeVersion: 0 };
      this.building = loadSnapshot(this.db)
        .then((built) => {
          // the directory version grows with every change of either kind: the newer build wins
          if (!this.snapshot || built.treeVersion >= this.snapshot.treeVersion) {
            this.snapshot = built;
            this.changed = new ChangedContacts(built);
            this.snapshotBuiltAt = startedAt;
          }
          this.pace(built);
          this.onBuild({ ok: true, indexBuiltAt: this.snapshotBuiltAt });
          return built;
        })
        .catch((err: unknown) => {
          this.onError(err);
          this.onBuild({ ok: false, indexBuiltAt: this.snapshotBuiltAt });
          return null;
        })
        .finally(() => {
          this.building = null;
        });
    }
    return this.building;
  }
}
