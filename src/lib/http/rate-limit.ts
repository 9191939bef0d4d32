import type { Request, RequestHandler } from 'express';
import { ipKeyGenerator, rateLimit, type Store } from 'express-rate-limit';
import type Redis from 'ioredis';
import { RedisStore } from 'rate-limit-redis';
import type { Config } from '../../config';
import type { Logger } from '../logger';

export interface RateLimiters {
  api: RequestHandler;
  login: RequestHandler;
}

function loginIdentifierOf(req: Request): string {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const value = body.email ?? body.login_id;
  return typeof value === 'string' ? value.trim().toLowerCase().slice(0, 100) : '';
}

/**
 * The brute-force limits: the whole API per client IP, and failed sign-ins per client IP and
 * login identifier (successful ones give their count back). Counters live in memory, or in
 * Redis when a client is given, so that every instance of the service shares them.
 */
export function createRateLimiters(
  config: Config['rateLimit'],
  logger: Logger,
  redis?: Redis,
): RateLimiters {
  const store = (name: string): Store | undefined =>
    redis
      ? new RedisStore({
          prefix: `${config.redisPrefix}${name}:`,
          sendCommand: (command: string, ...args: string[]) =>
            redis.call(command, ...args) as Promise<number | string>,
        })
      : undefined;
  const limiterLogger = {
    warn: (err: unknown) => logger.warn({ err }, 'rate limiter warning'),
    error: (err: unknown) => logger.error({ err }, 'rate limiter error'),
  };
  const common = {
    standardHeaders: 'draft-8' as const,
    legacyHeaders: false,
    // A store that cannot be reached lets requests through (and logs) rather than failing them all.
    passOnStoreError: true,
    logger: limiterLogger,
  };

  const api = rateLimit({
    ...common,
    identifier: 'api',
    windowMs: config.windowMs,
    limit: config.max,
    store: store('api'),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? 'unknown'),
    handler: (_req, res) => {
      res.status(429).json({ status: 'error', message: 'Too many requests, please try again later' });
    },
  });

  const login = rateLimit({
    ...common,
    identifier: 'login',
    windowMs: config.loginWindowMs,
    limit: config.loginMax,
    store: store('login'),
    skipSuccessfulRequests: true,
    keyGenerator: (req) => `${ipKeyGenerator(req.ip ?? 'unknown')}|${loginIdentifierOf(req)}`,
    handler: (_req, res) => {
      res.status(429).json({ status: 'error', message: 'Too many login attempts, please try again later' });
    },
  });

  return { api, login };
}
