import path from 'node:path';

import type { DbClient, DbConfig } from './lib/db';
import type { RateLimitSettings } from './lib/http/rate-limit';
import type { MetricsSettings } from './lib/metrics';
import type { TokenSettings } from './modules/access';

export type { DbClient, DbConfig };
export type NodeEnv = 'development' | 'production' | 'test';

export interface Config {
  env: NodeEnv;
  port: number;
  db: DbConfig;
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
  /** the largest import file (bytes) and the most data rows it may hold */
  importLimits: { maxBytes: number; maxRows: number };
  /** whether changes are recorded in the audit trail (false is for the benchmark's comparison only), and how many days entries are kept by `npm run audit:prune` (0: forever) */
  audit: { enabled: boolean; retentionDays: number };
  /** GET /metrics for Prometheus: off unless enabled; with a token, only for a scraper that sends it */
  metrics: MetricsSettings;
}

/** Used only outside production, with a warning at start-up. */
export const DEVELOPMENT_DEFAULTS = Object.freeze({
  jwtSecret: 'development-only-access-secret-change-me',
  jwtRefreshSecret: 'development-only-refresh-secret-change-me',
  adminEmail: 'admin@example.com',
  adminPassword: 'Admin@12345',
});

export class ConfigError extends Error {
  constructor(key: string, problem: string) {
    super(`Invalid configuration ${key}: ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function str(env: Env, key: string, fallback: string): string {
  const value = env[key];
  return value === undefined || value.trim() === '' ? fallback : value.trim();
}

function int(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = env[key];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(key, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(key, `expected ${min}..${max}, got ${value}`);
  return value;
}

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** A duration in seconds: "900" (seconds), "15m", "24h", "7d". */
function duration(env: Env, key: string, fallback: string): number {
  const value = str(env, key, fallback);
  const match = /^(\d+)([smhd]?)$/.exec(value);
  if (!match || Number(match[1]) === 0) {
    throw new ConfigError(key, `expected a duration such as 900, 15m, 24h or 7d, got "${value}"`);
  }
  return Number(match[1]) * SECONDS[match[2] || 's'];
}

/** A body size as body-parser reads it: "512" (bytes), "100kb", "1.5mb". */
function size(env: Env, key: string, fallback: string): string {
  const value = str(env, key, fallback);
  if (!/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i.test(value)) {
    throw new ConfigError(key, `expected a size such as 512, 100kb or 1mb, got "${value}"`);
  }
  return value;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = env[key]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(key, `expected one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function flag(env: Env, key: string, fallback: boolean): boolean {
  const raw = env[key]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(key, `expected true, false, 1 or 0, got "${env[key]}"`);
}

/** A bearer token as RFC 6750 spells one, long enough not to be guessed. */
function metricsToken(env: Env): string | null {
  const raw = env.METRICS_TOKEN?.trim();
  if (!raw) return null;
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(raw)) {
    throw new ConfigError('METRICS_TOKEN', 'expected letters, digits and -._~+/ only (such as the output of openssl rand -hex 32)');
  }
  if (raw.length < 16) throw new ConfigError('METRICS_TOKEN', `expected at least 16 characters, got ${raw.length}`);
  return raw;
}

function trustProxy(env: Env): boolean | number | string {
  const raw = str(env, 'TRUST_PROXY', 'false');
  if (raw === 'false' || raw === '0') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  return raw; // a subnet list such as "loopback, 10.0.0.0/8", passed to Express as is
}

/**
 * Reads and checks the whole configuration once. Pure: it reads only the `env` it is given,
 * so tests build configurations without touching process.env.
 */
export function loadConfig(env: Env = process.env): Readonly<Config> {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'] as const, 'development');
  const production = nodeEnv === 'production';

  const client = oneOf(env, 'DB_CLIENT', ['sqlite', 'mysql'] as const, 'sqlite');

  const secret = env.JWT_SECRET?.trim() || '';
  const refreshSecret = env.JWT_REFRESH_SECRET?.trim() || '';
  const adminPassword = env.ADMIN_PASSWORD?.trim() || '';
  if (production) {
    if (secret.length < 32) throw new ConfigError('JWT_SECRET', 'production needs a secret of at least 32 characters');
    if (refreshSecret.length < 32) {
      throw new ConfigError('JWT_REFRESH_SECRET', 'production needs a secret of at least 32 characters');
    }
    if (secret === refreshSecret) throw new ConfigError('JWT_REFRESH_SECRET', 'must differ from JWT_SECRET');
    // the development defaults are long enough, but published in this repository
    if (secret === DEVELOPMENT_DEFAULTS.jwtSecret) throw new ConfigError('JWT_SECRET', 'must not be the development default');
    if (refreshSecret === DEVELOPMENT_DEFAULTS.jwtRefreshSecret) {
      throw new ConfigError('JWT_REFRESH_SECRET', 'must not be the development default');
    }
    if (!env.ADMIN_EMAIL?.trim()) throw new ConfigError('ADMIN_EMAIL', 'production needs the first administrator e-mail');
    if (!adminPassword) throw new ConfigError('ADMIN_PASSWORD', 'production needs the first administrator password');
  }

  const logLevel = oneOf(env, 'LOG_LEVEL', LOG_LEVELS, nodeEnv === 'test' ? 'silent' : 'info');

  const corsRaw = env.CORS_ORIGINS?.trim();
  const redisUrl = env.REDIS_URL?.trim();

  const config: Config = {
    env: nodeEnv,
    port: int(env, 'PORT', 3000, 0, 65535),
    db: {
      client,
      sqliteFilename: path.resolve(str(env, 'SQLITE_FILENAME', './data/directory.sqlite3')),
      url: env.DATABASE_URL?.trim() || undefined,
      host: str(env, 'DB_HOST', '127.0.0.1'),
      port: int(env, 'DB_PORT', 3306, 1, 65535),
      user: str(env, 'DB_USER', 'root'),
      password: env.DB_PASSWORD ?? '',
      database: str(env, 'DB_NAME', 'directory'),
      poolMax: int(env, 'DB_POOL_MAX', 10, 1, 200),
      connectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 5000, 100, 600_000),
      acquireTimeoutMs: int(env, 'DB_ACQUIRE_TIMEOUT_MS', 5000, 100, 600_000),
      queryTimeoutMs: int(env, 'DB_QUERY_TIMEOUT_MS', 10_000, 0, 3_600_000),
    },
    jwt: {
      secret: secret || DEVELOPMENT_DEFAULTS.jwtSecret,
      refreshSecret: refreshSecret || DEVELOPMENT_DEFAULTS.jwtRefreshSecret,
      expiresIn: duration(env, 'JWT_EXPIRES_IN', '24h'),
      refreshExpiresIn: duration(env, 'JWT_REFRESH_EXPIRES_IN', '7d'),
      issuer: str(env, 'JWT_ISSUER', 'directory-service'),
      audience: str(env, 'JWT_AUDIENCE', 'directory-service-clients'),
    },
    bcryptCost: int(env, 'BCRYPT_COST', 12, 4, 15),
    admin: {
      email: str(env, 'ADMIN_EMAIL', DEVELOPMENT_DEFAULTS.adminEmail).toLowerCase(),
      password: adminPassword || DEVELOPMENT_DEFAULTS.adminPassword,
      name: str(env, 'ADMIN_NAME', 'System Administrator'),
    },
    corsOrigins: corsRaw ? corsRaw.split(',').map((o) => o.trim()).filter(Boolean) : null,
    trustProxy: trustProxy(env),
    redisUrl: redisUrl || undefined,
    rateLimit: {
      max: int(env, 'RATE_LIMIT_MAX', 1000, 1, 10_000_000),
      windowMs: int(env, 'RATE_LIMIT_WINDOW_MS', 15 * 60 * 1000, 1000, 86_400_000),
      loginMax: int(env, 'LOGIN_RATE_LIMIT_MAX', 10, 1, 1_000_000),
      loginIpMax: int(env, 'LOGIN_IP_RATE_LIMIT_MAX', 50, 1, 1_000_000),
      loginWindowMs: int(env, 'LOGIN_RATE_LIMIT_WINDOW_MS', 15 * 60 * 1000, 1000, 86_400_000),
      redisPrefix: str(env, 'RATE_LIMIT_REDIS_PREFIX', 'directory:rl:'),
    },
    bodyLimit: size(env, 'BODY_LIMIT', '100kb'),
    logLevel,
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    securitySummaryCacheMs: int(env, 'SECURITY_SUMMARY_CACHE_MS', 10_000, 0, 3_600_000),
    searchIndex: oneOf(env, 'SEARCH_INDEX', ['memory', 'sql'] as const, 'memory'),
    searchIndexRefreshMs: int(env, 'SEARCH_INDEX_REFRESH_MS', 5_000, 0, 3_600_000),
    importLimits: {
      maxBytes: int(env, 'IMPORT_MAX_BYTES', 20 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      maxRows: int(env, 'IMPORT_MAX_ROWS', 100_000, 1, 10_000_000),
    },
    audit: {
      enabled: flag(env, 'AUDIT_ENABLED', true),
      retentionDays: int(env, 'AUDIT_RETENTION_DAYS', 0, 0, 100_000),
    },
    metrics: { enabled: flag(env, 'METRICS_ENABLED', false), token: metricsToken(env) },
  };
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
