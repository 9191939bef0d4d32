import cors from 'cors';
import express, { type Express } from 'express';
import type Redis from 'ioredis';
import type { Config } from './config';
import { ping, type Db } from './lib/db';
import { ValidationError } from './lib/errors';
import { errorHandler, notFound } from './lib/http/errors';
import { createRateLimiters } from './lib/http/rate-limit';
import { watchRedis } from './lib/http/redis-watch';
import { queryOnce } from './lib/http/query-once';
import { requestLog } from './lib/http/request-log';
import { securityHeaders } from './lib/http/security-headers';
import { wellFormedBody } from './lib/http/well-formed';
import type { Logger } from './lib/logger';
import { AuditLog, auditRouter, AuditTrail } from './modules/audit';
import { Metrics, metricsEndpoint } from './lib/metrics';
import { AccountService, accountsRouter, ProfileService, RegisterService } from './modules/accounts';
import { authenticate, PasswordHasher, sessionLoader, TokenService } from './modules/access';
import {
  ChangeFeed,
  ChangesPruning,
  contactExists,
  ContactReads,
  contactsRouter,
  ContactSearch,
  ContactWrites,
  directoryChangesInFlight,
  onDirectoryCommit,
  SearchBacklog,
  SearchIndex,
  Walkers,
  sessionSource,
  UnitTrees,
  userIdBySignIn,
} from './modules/contacts';
import { locationsRouter, LocationsService } from './modules/locations';
import { referenceRouter, ReferenceService, RolesService } from './modules/reference';
import { securityRouter, SecurityService } from './modules/security';
import { DirectoryExport, DirectoryImport, transferRouter } from './modules/transfer';
import { WebhookDispatcher, WebhooksService, webhooksRouter } from './modules/webhooks';
import { ApiTokens, apiTokensRouter } from './modules/api-tokens';
import { scimRouter, ScimUsers } from './modules/scim';
import { openApiRouter } from './openapi/openapi.router';

export interface AppDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** shared rate-limit counters; without it they live in this process's memory */
  redis?: Redis;
  /** build the contact search index at once (server.ts); otherwise the first search starts it */
  warmSearchIndex?: boolean;
}

function corsOrigin(config: Readonly<Config>): cors.CorsOptions['origin'] {
  if (config.corsOrigins) return [...config.corsOrigins];
  return config.env !== 'production';
}

/** The drains of the search backlog (the grams of imported contacts, written after the import commits). */
export function searchBacklog({ db, logger }: Pick<AppDeps, 'db' | 'logger'>): SearchBacklog {
  return new SearchBacklog({ db, onError: (err) => logger.error({ err }, 'search backlog drain failed; its contacts stay listed for the next') });
}

/**
 * The change feed's pruning (CHANGES_RETENTION_DAYS), started: a minute after, then hourly, on
 * an unref'd timer. server.ts starts it beside the search backlog's drain and stops it on
 * shutdown; tests and scripts that build an app have none.
 */
export function changesPruning({ db, config, logger }: Pick<AppDeps, 'db' | 'config' | 'logger'>): ChangesPruning {
  return new ChangesPruning({
    db,
    retentionDays: config.changes.retentionDays,
    onPruned: ({ removed, prunedThrough }) => {
      if (removed > 0) logger.info({ removed, prunedThrough }, 'pruned the change feed');
    },
    onError: (err) => logger.error({ err }, 'change feed pruning failed; the next round tries again'),
  }).start();
}

/**
 * The webhooks' dispatcher (docs/changes.md, Webhooks), started: it fans the change feed out
 * into deliveries and sends them. server.ts starts it beside the pruning and stops it on
 * shutdown; a test that needs deliveries starts its own.
 */
export function webhookDispatcher({ db, config, logger }: Pick<AppDeps, 'db' | 'config' | 'logger'>): WebhookDispatcher {
  return new WebhookDispatcher({
    db,
    feed: new ChangeFeed({ db }),
    settings: config.webhooks,
    listen: (nudge) => onDirectoryCommit(db, nudge),
    onError: (err) => logger.error({ err }, 'webhook dispatch failed; the next round tries again'),
    onBehind: (info) => logger.warn(info, 'the change feed was pruned past the webhooks\' cursor: the changes pruned were not delivered'),
  }).start();
}

/** Every service of the application, built once from its dependencies. */
function createServices({ db, config, logger }: AppDeps, metrics: Metrics | null) {
  const tokens = new TokenService(config.jwt);
  const passwords = new PasswordHasher(config.bcryptCost);
  const loadSession = sessionLoader(sessionSource(db));
  const audit = new AuditTrail({ enabled: config.audit.enabled });
  const onError = (err: unknown) => logger.error({ err }, 'contact search index build failed');
  const onBuild = metrics?.searchIndexBuilt;
  // a term's walks on threads of their own at a million contacts (SEARCH_THREADS); a failed one runs here
  const walkers = new Walkers(config.searchThreads, {
    onWalk: metrics?.searchWalked,
    onError: (err) => logger.error({ err }, 'contact search walk thread failed; the walk ran in the service thread'),
  });
  const index = config.searchIndex === 'memory' ? new SearchIndex({ db, refreshMs: config.searchIndexRefreshMs, onError, onBuild, walkers }) : null;
  const reads = new ContactReads({ db, index, pageDepth: config.lists.pageDepth });
  // the one writer of contacts: every other module that creates or changes one goes through it
  const writes = new ContactWrites({ db, reads, passwords, audit, backlog: searchBacklog({ db, logger }) });
  return {
    searchIndex: index,
    walkers,
    requireAuth: authenticate(loadSession, tokens),
    accounts: {
      account: new AccountService({ db, tokens, passwords, loadSession }),
      register: new RegisterService({ db, writes }),
      profile: new ProfileService({ db, writes }),
    },
    contacts: {
      reads,
      unitTrees: new UnitTrees({ db, index, streamFrom: config.lists.unitTreeStreamFrom }),
      search: new ContactSearch({ db, index }),
      writes,
      changes: new ChangeFeed({ db }),
    },
    locations: new LocationsService({ db, audit }),
    audit: new AuditLog({ db, contactExists: (id) => contactExists(db, id) }),
    security: new SecurityService({ db, summaryCacheMs: config.securitySummaryCacheMs }),
    reference: { reference: new ReferenceService({ db, audit }), roles: new RolesService({ db, audit }) },
    apiTokens: new ApiTokens({ db, audit }),
    scim: new ScimUsers({ db, writes }),
    transfer: {
      importer: new DirectoryImport({ db, passwords, maxRows: config.importLimits.maxRows, writes }),
      exporter: new DirectoryExport({ db }),
      maxBytes: config.importLimits.maxBytes,
    },
    webhooks: new WebhooksService({ db, audit, settings: config.webhooks }),
  };
}

/** How to end what each app holds beyond its requests (closeApp). */
const closers = new WeakMap<Express, () => Promise<void>>();

/**
 * Ends what an app holds beyond its requests: its search walk threads. server.ts calls it on
 * shutdown, the tests after a file; a walk after it starts a thread again.
 */
export async function closeApp(app: Express): Promise<void> {
  await closers.get(app)?.();
}

/**
 * Builds the whole HTTP application: every service, handed to its router. It does not listen:
 * server.ts does, and tests use supertest. closeApp ends it.
 */
export function createApp(deps: AppDeps): Express {
  const { db, config, logger, redis } = deps;
  // a registry per app, never prom-client's global one (docs: README, Operations)
  const metrics = config.metrics.enabled ? new Metrics({ db, changesInFlight: () => directoryChangesInFlight(db) }) : null;
  const services = createServices(deps, metrics);
  const { requireAuth, searchIndex } = services;
  if (deps.warmSearchIndex) searchIndex?.warm();
  const accountOf = (identifier: string) => userIdBySignIn(db, identifier);
  const limiters = createRateLimiters({ settings: config.rateLimit, logger, redis, accountOf });

  const app = express();
  app.disable('x-powered-by');
  // no hashed ETag: hashing every body (megabytes for a unit tree) costs more than clients
  // save; reads set their own from versions (lib/http/conditional.ts)
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  // brackets parsed (qs), so `?page[a]=1` reaches validation as an object and is refused
  app.set('query parser', 'extended');

  app.use(requestLog(logger));
  app.use(queryOnce);
  if (metrics) {
    // outside /api (no rate limit) and before the observer, so scrapes are not counted as requests
    app.get('/metrics', metricsEndpoint(metrics, config.metrics.token));
    app.use(metrics.observe);
  }
  app.use(securityHeaders());
  app.use(
    cors({
      origin: corsOrigin(config),
      exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'ETag', 'X-Changes-Cursor', 'Link'],
      maxAge: 600,
    }),
  );
  // a preflight from an origin that CORS refused ends here, without CORS headers (the browser
  // then blocks the request), rather than reaching the routes
  app.use((req, res, next) => {
    if (req.method === 'OPTIONS') res.status(204).end();
    else next();
  });

  app.get('/health', (_req, res) => {
    res.json({ status: 'success', message: 'OK', data: { uptime_seconds: Math.round(process.uptime()) } });
  });
  // Redis, when configured, is reported and never makes the service unready: without it the
  // limits let requests through uncounted, and taking every instance out of the load balancer
  // for that would turn a degraded limit into an outage (README, When things fail)
  const redisWatch = redis ? watchRedis(redis, logger) : null;
  if (redisWatch) metrics?.reportRedis(() => redisWatch.reachable());
  app.get('/ready', async (_req, res) => {
    // the search index: SQL answers the searches until it is built (`off`: SEARCH_INDEX=sql)
    const index = searchIndex?.state() ?? 'off';
    const [databaseUp, redisUp] = await Promise.all([ping(db, config.db.acquireTimeoutMs), redisWatch?.reachable()]);
    const redisState = redisUp === undefined ? {} : { redis: redisUp ? 'up' : 'down' };
    if (databaseUp) res.json({ status: 'success', message: 'Ready', data: { database: 'up', search_index: index, ...redisState } });
    else res.status(503).json({ status: 'error', message: 'Database unavailable' });
  });

  app.use('/api', limiters.api);
  app.use('/scim', limiters.api);
  // SCIM has its own body types (application/scim+json), errors and discovery documents
  app.use('/scim/v2', scimRouter({ db, users: services.scim, logger, bodyLimit: config.bodyLimit }));
  app.use('/api', openApiRouter());
  app.use(express.json({ limit: config.bodyLimit }));
  // every JSON body of this API is an object: an array is the wrong shape (docs/api.md, The whole API)
  app.use((req, _res, next) => {
    if (Array.isArray(req.body)) throw ValidationError.field('body', 'Body must be a JSON object');
    next();
  });
  app.use(wellFormedBody);

  app.use('/api/auth', accountsRouter(services.accounts, { authenticate: requireAuth, loginLimiters: limiters.login }));
  app.use('/api', auditRouter(services.audit, requireAuth));
  app.use('/api', apiTokensRouter(services.apiTokens, requireAuth));
  // before the contacts router, whose /:id would take /export
  app.use('/api/contacts', transferRouter(services.transfer, requireAuth));
  app.use('/api/contacts', contactsRouter(services.contacts, requireAuth));
  app.use('/api/locations', locationsRouter(services.locations, requireAuth));
  app.use('/api/security', securityRouter(services.security, requireAuth));
  app.use('/api/webhooks', webhooksRouter(services.webhooks, requireAuth, { allowPrivate: config.webhooks.allowPrivate }));
  app.use('/api', referenceRouter(services.reference, requireAuth));

  app.use(notFound);
  app.use(errorHandler(logger));
  metrics?.learnRoutes(app);
  closers.set(app, () => services.walkers.close());
  return app;
}
