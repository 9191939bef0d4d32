import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, rateLimit, type IncrementResponse, type Store } from 'express-rate-limit';
import type Redis from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import type { Logger } from '../logger';
import { watchRedis } from './redis-watch';

/** The limits: the whole API per IP, and failed sign-ins per IP and identifier (config.ts reads them). */
export interface RateLimitSettings {
  max: number;
  windowMs: number;
  /** failed sign-ins per client IP and account (or identifier, when it names no account) */
  loginMax: number;
  /** failed sign-ins per client IP, whatever the identifiers */
  loginIpMax: number;
  loginWindowMs: number;
  /** key prefix of the counters in Redis */
  redisPrefix: string;
}

export interface RateLimiters {
  api: RequestHandler;
  /** in front of the sign-in: the cap per IP, then the count per IP and account */
  login: RequestHandler[];
}

/** The account a sign-in identifier names (an e-mail or a service number), or null. */
export type AccountOf = (identifier: string) => Promise<number | null>;

/**
 * RedisStore loads its Lua scripts once, when the app is built, and keeps a failed load for
 * good: a client that is still connecting then (server.ts's client has no offline queue) left
 * every later request unlimited. This one loads them again after a failure and retries once,
 * and while the client is not connected fails at once, without those three round trips.
 */
class RetryingRedisStore extends RedisStore {
  constructor(
    options: ConstructorParameters<typeof RedisStore>[0],
    private readonly client: Redis,
  ) {
    super(options);
  }

  /** RedisStore's, without its error when the client is not connected yet: increment loads the scripts then. */
  override async init(options: Parameters<RedisStore['init']>[0]): Promise<void> {
    this.windowMs = options.windowMs;
    this.incrementScriptSha = this.loadIncrementScript();
    this.getScriptSha = this.loadGetScript();
    this.incrementScriptSha.catch(() => undefined);
    this.getScriptSha.catch(() => undefined);
  }

  override async increment(key: string): Promise<IncrementResponse> {
    // a client with an offline queue (not server.ts's) would hold the command until it connects
    if (this.client.status !== 'ready' && !this.client.options.enableOfflineQueue) throw new RedisUnavailableError(this.client.status);
    try {
      return await super.increment(key);
    } catch {
      this.incrementScriptSha = this.loadIncrementScript();
      this.getScriptSha = this.loadGetScript();
      this.getScriptSha.catch(() => undefined);
      // still failing: passOnStoreError lets the request through and the limiter reports it
      return super.increment(key);
    }
  }
}

class RedisUnavailableError extends Error {
  readonly code = 'REDIS_UNAVAILABLE';

  constructor(status: string) {
    super(`redis client is ${status}`);
    this.name = 'RedisUnavailableError';
  }
}

/**
 * The client's key: its IPv4 address, or its IPv6 /56 network (ipKeyGenerator), remembered for
 * the addresses seen recently because parsing an IPv6 address on every request is not free.
 */
function ipKeyCache(max = 10_000): (ip: string | undefined) => string {
  const keys = new Map<string, string>();
  return (ip = 'unknown') => {
    let key = keys.get(ip);
    if (key === undefined) {
      if (keys.size >= max) keys.clear();
      key = ipKeyGenerator(ip);
      keys.set(ip, key);
    }
    return key;
  };
}

/** The identifier the sign-in will use: a non-empty `email`, else `login_id` (as the login in accounts/accounts.service.ts does). */
function loginIdentifierOf(req: Request): string {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const email = typeof body.email === 'string' ? body.email.trim() : '';
  return (email || (typeof body.login_id === 'string' ? body.login_id.trim() : '')).slice(0, 100);
}

/**
 * What a failed sign-in is counted against: the account the identifier names, so that its
 * e-mail and its service number share one count; else the identifier, in lower case. A lookup
 * that fails counts the identifier (the sign-in itself will fail and answer).
 */
function loginSubject(accountOf: AccountOf | undefined): (identifier: string) => Promise<string> {
  return async (identifier) => {
    const account = identifier && accountOf ? await accountOf(identifier).catch(() => null) : null;
    return account === null ? `id:${identifier.toLowerCase()}` : `user:${account}`;
  };
}

/**
 * The brute-force limits: the whole API per client IP; failed sign-ins per client IP and
 * account, and per client IP across accounts (successful sign-ins give their count back).
 * Counters live in memory, or in Redis when a client is given, so that every instance of the
 * service shares them.
 */
export function createRateLimiters(deps: { settings: RateLimitSettings; logger: Logger; redis?: Redis; accountOf?: AccountOf }): RateLimiters {
  const { settings: config, logger, redis } = deps;
  const subjectOf = loginSubject(deps.accountOf);
  const store = (name: string): Store | undefined =>
    redis
      ? new RetryingRedisStore(
          {
            prefix: `${config.redisPrefix}${name}:`,
            sendCommand: (command: string, ...args: string[]) => redis.call(command, ...args) as Promise<number | string>,
          },
          redis,
        )
      : undefined;
  const watch = redis ? watchRedis(redis, logger) : null;
  const limiterLogger = {
    warn: (err: unknown) => logger.warn({ err }, 'rate limiter warning'),
    // a store error: the request went through uncounted; with Redis, the watch logs it at its pace
    error: (err: unknown) => (watch ? watch.storeFailed(err) : logger.error({ err }, 'rate limiter error')),
  };
  const ipKey = ipKeyCache();
  const common = {
    // draft-8: named policies, so the login and API limits both show on a sign-in
    standardHeaders: 'draft-8' as const,
    legacyHeaders: false,
    // A store that cannot be reached lets requests through uncounted (README, When things fail)
    // rather than failing them all.
    passOnStoreError: true,
    logger: limiterLogger,
    // the check reads the key generator's source; ours does call ipKeyGenerator, through ipKey
    validate: { keyGeneratorIpFallback: false },
  };

  const api = rateLimit({
    ...common,
    identifier: 'api',
    windowMs: config.windowMs,
    limit: config.max,
    store: store('api'),
    keyGenerator: (req) => ipKey(req.ip),
    handler: (_req, res) => {
      res.status(429).json({ status: 'error', message: 'Too many requests, please try again later' });
    },
  });

  const loginHandler = (_req: Request, res: Response) => {
    res.status(429).json({ status: 'error', message: 'Too many login attempts, please try again later' });
  };
  const loginIp = rateLimit({
    ...common,
    identifier: 'login-ip',
    windowMs: config.loginWindowMs,
    limit: config.loginIpMax,
    store: store('login-ip'),
    skipSuccessfulRequests: true,
    keyGenerator: (req) => ipKey(req.ip),
    handler: loginHandler,
  });
  const loginAccount = rateLimit({
    ...common,
    identifier: 'login',
    windowMs: config.loginWindowMs,
    limit: config.loginMax,
    store: store('login'),
    skipSuccessfulRequests: true,
    keyGenerator: async (req) => `${ipKey(req.ip)}|${await subjectOf(loginIdentifierOf(req))}`,
    handler: loginHandler,
  });

  return { api, login: [loginIp, loginAccount] };
}
