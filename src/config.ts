import { availableParallelism } from 'node:os';
import path from 'node:path';

import { SQLITE_CACHE_MIB_DEFAULT, type DbClient, type DbConfig } from './lib/db';
import type { RateLimitSettings } from './lib/http/rate-limit';
import type { MetricsSettings } from './lib/metrics';
import type { TokenSettings } from './modules/access';
import type { WalkerSettings } from './modules/contacts';
import { DEFAULT_RETRY_SCHEDULE, type WebhookSettings } from './modules/webhooks';
import { ConfigReader, type Env } from './config-reader';

export { ConfigError, type ConfigProblem } from './config-reader';

export type { DbClient, DbConfig };
export type NodeEnv = 'development' | 'production' | 'test';

export interface Config {
  env: NodeEnv;
  port: number;
  db: DbConfig;
  /** how long the start keeps trying to reach the database (with backoff) before it gives up; 0: one attempt */
  dbStartTimeoutS: number;
  jwt: TokenSettings;
  bcryptCost: number;
  admin: { email: string; password: string; name: string };
  /** null: no CORS_ORIGINS given (development allows any origin, production none). */
  corsOrigins: string[] | null;
  trustProxy: boolean | number | string;
  redisUrl?: string;
  rateLimit: RateLimitSettings;
  bodyLimit: string;
  logLevel: string;
  shutdownTimeoutMs: number;
  /** how long a security-list summary is reused for the same scope and filters; 0: never */
  securitySummaryCacheMs: number;
  /** where the contact search runs: an index in this process's memory (SQL while it is built), or SQL only */
  searchIndex: 'memory' | 'sql';
  /** the shortest time between two builds of that index; 0: a search waits for the build it needs */
  searchIndexRefreshMs: number;
  /** how many threads walk that index for a search's term, from how many contacts in it (fewer: walked in the service's thread), and how many bytes of walks each keeps */
  searchThreads: WalkerSettings;
  /** how deep a page number reaches into the contacts' lists, from either end (rows; further: the cursor), and from how many contacts a unit's tree is streamed instead of built whole */
  lists: { pageDepth: number; unitTreeStreamFrom: number };
  /** the largest import file (bytes) and the most data rows it may hold */
  importLimits: { maxBytes: number; maxRows: number };
  /** how many days the change feed (GET /api/contacts/changes) keeps each change; 0: forever. Pruned hourly by the service and by `npm run changes:prune` */
  changes: { retentionDays: number };
  /** whether changes are recorded in the audit trail (false is for the benchmark's comparison only), and how many days entries are kept by `npm run audit:prune` (0: forever) */
  audit: { enabled: boolean; retentionDays: number };
  /** GET /metrics for Prometheus: off unless enabled; with a token, only for a scraper that sends it */
  metrics: MetricsSettings;
  /** signed webhooks (docs/changes.md, Webhooks): retries, disabling, safe targets, polling */
  webhooks: WebhookSettings;
}

/** Used only outside production, with a warning at start-up. */
export const DEVELOPMENT_DEFAULTS = Object.freeze({
  jwtSecret: 'development-only-access-secret-change-me',
  jwtRefreshSecret: 'development-only-refresh-secret-change-me',
  adminEmail: 'admin@example.com',
  adminPassword: 'Admin@12345',
});

/** DB_START_TIMEOUT_S's default, by NODE_ENV. */
export const DB_START_TIMEOUT_S = Object.freeze({ production: 60, development: 10, test: 0 });

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** A bearer token as RFC 6750 spells one, long enough not to be guessed. */
function metricsToken(read: ConfigReader): string | null {
  const raw = read.raw('METRICS_TOKEN');
  if (!raw) return null;
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(raw) || raw.length < 16) {
    read.refuse('METRICS_TOKEN', 'expected 16 or more letters, digits or -._~+/ (such as the output of openssl rand -hex 32)');
    return null;
  }
  return raw;
}

function trustProxy(read: ConfigReader): boolean | number | string {
  const raw = read.str('TRUST_PROXY', 'false');
  if (raw === 'false' || raw === '0') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw; // a subnet list such as "loopback, 10.0.0.0/8", passed to Express as is
}

/** Production's rules for the secrets and the first administrator; the values are never shown. */
function checkProductionSecrets(read: ConfigReader): void {
  const secret = read.raw('JWT_SECRET');
  const refreshSecret = read.raw('JWT_REFRESH_SECRET');
  const LONG_ENOUGH = 'production needs a secret of at least 32 characters';
  // the development defaults are long enough, but published in this repository
  const OWN = 'must not be the development default: production needs a secret of its own, of at least 32 characters';
  if (secret.length < 32) read.refuse('JWT_SECRET', LONG_ENOUGH);
  else if (secret === DEVELOPMENT_DEFAULTS.jwtSecret) read.refuse('JWT_SECRET', OWN);
  if (refreshSecret.length < 32) read.refuse('JWT_REFRESH_SECRET', LONG_ENOUGH);
  else if (refreshSecret === DEVELOPMENT_DEFAULTS.jwtRefreshSecret) read.refuse('JWT_REFRESH_SECRET', OWN);
  else if (refreshSecret === secret) read.refuse('JWT_REFRESH_SECRET', 'must differ from JWT_SECRET');
  if (!read.raw('ADMIN_EMAIL')) read.refuse('ADMIN_EMAIL', 'production needs the first administrator e-mail');
  if (!read.raw('ADMIN_PASSWORD')) read.refuse('ADMIN_PASSWORD', 'production needs the first administrator password');
}

/** WEBHOOK_RETRY_SCHEDULE: seconds to wait after each failed attempt, comma-separated (decimals allowed, for tests). */
function retrySchedule(read: ConfigReader): number[] {
  const raw = read.raw('WEBHOOK_RETRY_SCHEDULE');
  if (!raw) return [...DEFAULT_RETRY_SCHEDULE];
  const parts = raw.split(',').map((p) => p.trim());
  const valid = parts.length <= 50 && parts.every((p) => /^\d{1,7}(\.\d{1,3})?$/.test(p) && Number(p) <= 7 * 86400);
  if (!valid) {
    read.refuse('WEBHOOK_RETRY_SCHEDULE', 'expected up to 50 waits in seconds (0 to 604800, comma-separated), such as 5,300,1800', raw);
    return [...DEFAULT_RETRY_SCHEDULE];
  }
  return parts.map(Number);
}

/**
 * Reads and checks the whole configuration once. Pure: it reads only the `env` it is given,
 * so tests build configurations without touching process.env.
 */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const read = new ConfigReader(env);
  const nodeEnv = read.oneOf('NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  if (nodeEnv === 'production') checkProductionSecrets(read);
  const corsRaw = read.raw('CORS_ORIGINS');
  // the change feed's, and the webhooks' finished deliveries'
  const retentionDays = read.int('CHANGES_RETENTION_DAYS', 30, 0, 100_000);

  const config: Config = {
    env: nodeEnv,
    port: read.int('PORT', 3000, 0, 65535),
    db: {
      client: read.oneOf('DB_CLIENT', ['sqlite', 'mysql'] as const, 'sqlite'),
      sqliteFilename: path.resolve(read.str('SQLITE_FILENAME', './data/directory.sqlite3')),
      sqliteCacheMib: read.int('SQLITE_CACHE_MIB', SQLITE_CACHE_MIB_DEFAULT, 1, 4096),
      url: read.raw('DATABASE_URL') || undefined,
      host: read.str('DB_HOST', '127.0.0.1'),
      port: read.int('DB_PORT', 3306, 1, 65535),
      user: read.str('DB_USER', 'root'),
      password: env.DB_PASSWORD ?? '',
      database: read.str('DB_NAME', 'directory'),
      poolMax: read.int('DB_POOL_MAX', 10, 1, 200),
      connectTimeoutMs: read.int('DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      acquireTimeoutMs: read.int('DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600_000),
      queryTimeoutMs: read.int('DB_QUERY_TIMEOUT_MS', 10_000, 0, 3_600_000),
    },
    // production waits for a database started beside it (compose, Kubernetes); development
    // tells a developer who forgot to start MariaDB soon; tests fail at once
    dbStartTimeoutS: read.int('DB_START_TIMEOUT_S', DB_START_TIMEOUT_S[nodeEnv], 0, 3600),
    jwt: {
      secret: read.raw('JWT_SECRET') || DEVELOPMENT_DEFAULTS.jwtSecret,
      refreshSecret: read.raw('JWT_REFRESH_SECRET') || DEVELOPMENT_DEFAULTS.jwtRefreshSecret,
      expiresIn: read.duration('JWT_EXPIRES_IN', '24h'),
      refreshExpiresIn: read.duration('JWT_REFRESH_EXPIRES_IN', '7d'),
      issuer: read.str('JWT_ISSUER', 'directory-service'),
      audience: read.str('JWT_AUDIENCE', 'directory-service-clients'),
    },
    bcryptCost: read.int('BCRYPT_COST', 12, 4, 15),
    admin: {
      email: read.str('ADMIN_EMAIL', DEVELOPMENT_DEFAULTS.adminEmail).toLowerCase(),
      password: read.raw('ADMIN_PASSWORD') || DEVELOPMENT_DEFAULTS.adminPassword,
      name: read.str('ADMIN_NAME', 'System Administrator'),
    },
    corsOrigins: corsRaw ? corsRaw.split(',').map((o) => o.trim()).filter(Boolean) : null,
    trustProxy: trustProxy(read),
    redisUrl: read.raw('REDIS_URL') || undefined,
    rateLimit: {
      max: read.int('RATE_LIMIT_MAX', 1000, 1, 10_000_000),
      windowMs: read.int('RATE_LIMIT_WINDOW_MS', 15 * 60 * 1000, 1000, 86_400_000),
      loginMax: read.int('LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
      loginIpMax: read.int('LOGIN_IP_RATE_LIMIT_MAX', 50, 1, 1_000_000),
      loginWindowMs: read.int('LOGIN_RATE_LIMIT_WINDOW_MS', 15 * 60 * 1000, 1000, 86_400_000),
      redisPrefix: read.str('RATE_LIMIT_REDIS_PREFIX', 'directory:rl:'),
    },
    bodyLimit: read.size('BODY_LIMIT', '100kb'),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info'),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    securitySummaryCacheMs: read.int('SECURITY_SUMMARY_CACHE_MS', 10_000, 0, 3_600_000),
    searchIndex: read.oneOf('SEARCH_INDEX', ['memory', 'sql'] as const, 'memory'),
    searchIndexRefreshMs: read.int('SEARCH_INDEX_REFRESH_MS', 5_000, 0, 3_600_000),
    searchThreads: {
      threads: read.int('SEARCH_THREADS', availableParallelism() > 1 ? 1 : 0, 0, 16),
      from: read.int('SEARCH_THREADS_FROM', 200_000, 0, 100_000_000),
      keptBytes: read.int('SEARCH_KEPT_WALKS_MB', 4, 0, 1024) * 2 ** 20,
    },
    lists: {
      pageDepth: read.int('LIST_PAGE_DEPTH', 100_000, 1, 10_000_000),
      unitTreeStreamFrom: read.int('UNIT_TREE_STREAM_FROM', 20_000, 0, 10_000_000),
    },
    importLimits: {
      maxBytes: read.int('IMPORT_MAX_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxRows: read.int('IMPORT_MAX_ROWS', 100_000, 1, 10_000_000),
    },
    changes: { retentionDays },
    audit: {
      enabled: read.flag('AUDIT_ENABLED', true),
      retentionDays: read.int('AUDIT_RETENTION_DAYS', 0, 0, 100_000),
    },
    metrics: { enabled: read.flag('METRICS_ENABLED', false), token: metricsToken(read) },
    webhooks: {
      retrySchedule: retrySchedule(read),
      disableAfterDays: read.int('WEBHOOK_DISABLE_AFTER_DAYS', 5, 0, 365),
      allowPrivate: read.flag('WEBHOOKS_ALLOW_PRIVATE', false),
      pollMs: read.int('WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
      timeoutMs: read.int('WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      keepDays: retentionDays,
    },
  };
  read.throwProblems();
  return deepFreeze(config);
}

/** Settings that fell back to development defaults, for a warning at start-up. */
export function developmentDefaultsInUse(env: Env = process.env): string[] {
  return ['JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_EMAIL', 'ADMIN_PASSWORD'].filter((key) => !env[key]?.trim());
}

function deepFreeze<T extends object>(value: T): Readonly<T> {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}
