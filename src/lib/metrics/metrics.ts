import type { Express, NextFunction, Request, Response } from 'express';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Db } from '../db';
import { routePatterns } from './route-patterns';

/** What knex's pool (tarn) tells; read by shape, since knex types it as any pool it accepts. */
interface PoolLike {
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
  max?: number;
}

/** A search index build as the contacts module reports it (its IndexBuild). */
export interface IndexBuildReport {
  ok: boolean;
  indexBuiltAt: number | null;
}

/** The label of a request that no route took: an unknown path, or one answered before routing. */
export const UNMATCHED = 'unmatched';

// from 1 ms (a read by primary key) to 10 s (the query time limit)
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A counter by one label, with a series of each of its values from the start: a rate over them needs no first event. */
function counterOfEvery<L extends string>(registry: Registry, name: string, help: string, label: L, values: readonly string[]): Counter<L> {
  const counter = new Counter({ name, help, labelNames: [label], registers: [registry] });
  for (const value of values) counter.inc({ [label]: value } as Partial<Record<L, string>>, 0);
  return counter;
}

/**
 * The metrics of one app, on a registry of its own (never prom-client's global one: tests
 * build many apps in one process, and a second app would fail registering the same names).
 * Requests are observed as they end; the pool and the search index's age are read when
 * Prometheus scrapes, so they cost nothing between scrapes.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Histogram<'method' | 'route' | 'status_code'>;
  private readonly indexBuilds: Counter<'result'>;
  private readonly walks: Counter<'on'>;
  private readonly keptWalks: Counter<'on'>;
  private indexBuiltAt: number | null = null;
  private patterns = new WeakMap<object, string>();
  private readonly now: () => number;

  constructor(deps: { db: Db; now?: () => number; changesInFlight?: () => number }) {
    const { registry } = this;
    this.now = deps.now ?? Date.now;
    // process CPU, memory, handles, GC and the event loop's lag (nodejs_eventloop_lag_*)
    collectDefaultMetrics({ register: registry });

    this.requests = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from the request reaching the app to its answer being sent, by route pattern, method and status; _count is the number of requests',
      labelNames: ['method', 'route', 'status_code'],
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });

    const pool = () => (deps.db.client as { pool?: Partial<PoolLike> }).pool;
    const poolGauge = (name: string, help: string, read: (p: PoolLike) => number | undefined) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          const p = pool();
          // no pool yet (before the first query) or any more (destroyed): nothing to report
          const value = p && typeof p.numUsed === 'function' ? read(p as PoolLike) : undefined;
          if (value === undefined) this.remove();
          else this.set(value);
        },
      });
    poolGauge('directory_db_pool_connections_in_use', 'Database connections lent to a query or transaction now', (p) => p.numUsed());
    poolGauge('directory_db_pool_connections_idle', 'Open database connections waiting in the pool', (p) => p.numFree());
    poolGauge('directory_db_pool_acquires_pending', 'Queries and transactions waiting for a free database connection', (p) => p.numPendingAcquires());
    poolGauge('directory_db_pool_connections_max', 'Most database connections the pool opens (DB_POOL_MAX; 1 on SQLite)', (p) => p.max);

    const inFlight = deps.changesInFlight;
    if (inFlight) {
      new Gauge({
        name: 'directory_changes_in_flight',
        help: "This process's changes of the directory queued for the directory lock or holding it now (they take it one at a time)",
        registers: [registry],
        collect() {
          this.set(inFlight());
        },
      });
    }

    this.indexBuilds = counterOfEvery(registry, 'directory_search_index_builds_total', 'Builds of the in-memory contact search index, by result (success or failure)', 'result', ['success', 'failure']);
    this.walks = counterOfEvery(
      registry,
      'directory_search_walks_total',
      "Walks of a search term over the in-memory index, by where they ran: thread (a walk thread, SEARCH_THREADS) or service (the service's own thread: below SEARCH_THREADS_FROM, without threads, or after a walk thread failed)",
      'on',
      ['thread', 'service'],
    );
    this.keptWalks = counterOfEvery(
      registry,
      'directory_search_walks_kept_total',
      'Of those walks, the ones answered from the walks kept over the same snapshot (SEARCH_KEPT_WALKS_MB) instead of a walk over the index, by where they ran',
      'on',
      ['thread', 'service'],
    );
    const age = () => (this.indexBuiltAt === null ? null : Math.max(0, (this.now() - this.indexBuiltAt) / 1000));
    new Gauge({
      name: 'directory_search_index_age_seconds',
      help: 'Time since the build of the search index that answers now began; absent while there is none',
      registers: [registry],
      collect() {
        const seconds = age();
        if (seconds === null) this.remove();
        else this.set(seconds);
      },
    });
  }

  /** Learns the app's route patterns; called once its routes are all mounted. */
  learnRoutes(app: Express): void {
    this.patterns = routePatterns(app);
  }

  /** The middleware that observes every request after it (mounted after GET /metrics, which it thus leaves out). */
  readonly observe = (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = req.route ? (this.patterns.get(req.route) ?? `${req.baseUrl}${req.route.path}`) : UNMATCHED;
      this.requests.observe({ method: req.method, route, status_code: res.statusCode }, seconds);
    });
    next();
  };

  /**
   * `directory_redis_up`, read at each scrape: 1 when Redis answers a PING (within a second), 0
   * otherwise. Only with REDIS_URL, so that an instance without Redis has no series to alert on.
   */
  reportRedis(reachable: () => Promise<boolean>): void {
    new Gauge({
      name: 'directory_redis_up',
      help: 'Whether Redis, which holds the rate-limit counters, answers now (1) or not (0: the limits let requests through uncounted)',
      registers: [this.registry],
      async collect() {
        this.set((await reachable()) ? 1 : 0);
      },
    });
  }

  /** The search index's onBuild. */
  readonly searchIndexBuilt = (build: IndexBuildReport): void => {
    this.indexBuilds.inc({ result: build.ok ? 'success' : 'failure' });
    this.indexBuiltAt = build.indexBuiltAt;
  };

  /** The search walks' onWalk (contacts/search/walkers.ts). */
  readonly searchWalked = (on: 'thread' | 'service', kept: boolean): void => {
    this.walks.inc({ on });
    if (kept) this.keptWalks.inc({ on });
  };
}
