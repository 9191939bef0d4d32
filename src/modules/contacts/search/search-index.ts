import type { Db } from '../../../lib/db';
import { SEPARATOR, SearchSnapshot } from './snapshot';

/**
 * What each build reports (for the service's metrics): whether it succeeded, and when the build
 * of the snapshot that answers now began (its age), null while there is none.
 */
export interface IndexBuild {
  ok: boolean;
  indexBuiltAt: number | null;
}

/**
 * The search snapshot of one service process. A search first reads the directory's search
 * version (every change of what a search sees bumps it in its own transaction; a move does not): only a snapshot of that version
 * or a newer one answers it, so an answer never misses a committed change. A listing's search
 * also reads the directory version (which a move bumps too) and needs that one reached as well
 * (list-search.ts). Otherwise the search runs in SQL and, once `refreshMs` has passed since the
 * last build (longer while writes keep outdating the builds: `pace`), a new snapshot is built in
 * the background. With `refreshMs` 0 the search waits for that build instead.
 * A build that fails is reported to `onError` and leaves the searches to SQL. Every build,
 * either way, is reported to `onBuild` when one is given.
 */
export class SearchIndex {
  private snapshot: SearchSnapshot | null = null;
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
  private readonly onError: (err: unknown) => void;
  private readonly onBuild: (build: IndexBuild) => void;
  private readonly now: () => number;

  constructor(deps: {
    db: Db;
    refreshMs: number;
    onError: (err: unknown) => void;
    onBuild?: (build: IndexBuild) => void;
    now?: () => number;
  }) {
    this.db = deps.db;
    this.refreshMs = deps.refreshMs;
    this.onError = deps.onError;
    this.onBuild = deps.onBuild ?? (() => undefined);
    this.now = deps.now ?? Date.now;
    this.intervalMs = this.refreshMs;
  }

  /**
   * A snapshot at least as new as the search `version` (and, when given, the directory's
   * `treeVersion`: a listing needs the tree as it is), or null when the caller should search in
   * SQL. The versions only grow; a database restored to older ones needs the service restarted.
   */
  async at(version: number, needle: string, treeVersion?: number): Promise<SearchSnapshot | null> {
    if (needle.includes(SEPARATOR) || Array.from(needle).length < 2) return null;
    const current = (s: SearchSnapshot | null): s is SearchSnapshot =>
      s !== null && s.version >= version && (treeVersion === undefined || s.treeVersion >= treeVersion);
    if (current(this.snapshot)) return this.snapshot;
    this.newestAsked = { version: Math.max(this.newestAsked.version, version), treeVersion: Math.max(this.newestAsked.treeVersion, treeVersion ?? 0) };
    if (this.refreshMs === 0) {
      while (!current(this.snapshot)) {
        if (!(await this.build())) return null;
      }
      return this.snapshot;
    }
    if (!this.building && this.now() - this.lastBuild >= this.intervalMs) void this.build();
    return null;
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
   * the time until the next one (up to 8 times SEARCH_INDEX_REFRESH_MS: 40 s by default, the
   * longest that searches stay in SQL after the writes stop); one that ends current brings it
   * back to SEARCH_INDEX_REFRESH_MS.
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
      this.building = SearchSnapshot.load(this.db)
        .then((built) => {
          // the directory version grows with every change of either kind: the newer build wins
          if (!this.snapshot || built.treeVersion >= this.snapshot.treeVersion) {
            this.snapshot = built;
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
