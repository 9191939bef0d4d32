import cors from 'cors';
import express, { type Express } from 'express';
import helmet from 'helmet';
import type Redis from 'ioredis';
import type { Config } from './config';
import { ping, type Db } from './lib/db';
import { ValidationError } from './lib/errors';
import { errorHandler, notFound } from './lib/http/errors';
import { createRateLimiters } from './lib/http/rate-limit';
import { requestLog } from './lib/http/request-log';
import type { Logger } from './lib/logger';
import { authRouter } from './modules/auth/auth.router';
import { AuthService } from './modules/auth/auth.service';
import { PasswordHasher } from './modules/auth/passwords';
import { ProfileService } from './modules/auth/profile.service';
import { RegisterService } from './modules/auth/register.service';
import { authenticate, sessionLoader } from './modules/auth/session';
import { TokenService } from './modules/auth/tokens';
import { contactsRouter } from './modules/contacts/contacts.router';
import { ContactsQueryService } from './modules/contacts/contacts.query.service';
import { ContactsService } from './modules/contacts/contacts.service';
import { locationsRouter } from './modules/locations/locations.router';
import { referenceRouter } from './modules/reference/reference.router';
import { securityRouter } from './modules/security/security.router';
import { openApiRouter } from './openapi/openapi.router';

export interface AppDeps {
  db: Db;
  config: Readonly<Config>;
  logger: Logger;
  /** shared rate-limit counters; without it they live in this process's memory */
  redis?: Redis;
}

function corsOrigin(config: Readonly<Config>): cors.CorsOptions['origin'] {
  if (config.corsOrigins) return [...config.corsOrigins];
  return config.env !== 'production';
}

/** Builds the whole HTTP application. It does not listen: server.ts does, and tests use supertest. */
export function createApp({ db, config, logger, redis }: AppDeps): Express {
  const tokens = new TokenService(config.jwt);
  const passwords = new PasswordHasher(config.bcryptCost);
  const limiters = createRateLimiters(config.rateLimit, logger, redis);
  const loadSession = sessionLoader(db);
  const requireAuth = authenticate(loadSession, tokens);

  const app = express();
  app.disable('x-powered-by');
  // no ETag: hashing every body (megabytes for a unit tree) costs more than clients save
  app.disable('etag');
  app.set('trust proxy', config.trustProxy);
  // brackets parsed (qs), so `?page[a]=1` reaches validation as an object and is refused
  app.set('query parser', 'extended');

  app.use(requestLog(logger));
  app.use(helmet());
  app.use(
    cors({
      origin: corsOrigin(config),
      exposedHeaders: ['X-Request-Id', 'RateLimit', 'RateLimit-Policy', 'Retry-After'],
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
  app.get('/ready', async (_req, res) => {
    if (await ping(db)) res.json({ status: 'success', message: 'Ready', data: { database: 'up' } });
    else res.status(503).json({ status: 'error', message: 'Database unavailable' });
  });

  app.use('/api', limiters.api);
  app.use('/api', openApiRouter());
  app.use(express.json({ limit: config.bodyLimit }));
  // every JSON body of this API is an object: an array is the wrong shape (DECISIONS 1)
  app.use((req, _res, next) => {
    if (Array.isArray(req.body)) throw ValidationError.field('body', 'Body must be a JSON object');
    next();
  });

  const authServices = {
    auth: new AuthService(db, tokens, passwords, loadSession),
    register: new RegisterService(db, passwords),
    profile: new ProfileService(db),
  };
  app.use('/api/auth', authRouter(authServices, { authenticate: requireAuth, loginLimiter: limiters.login }));
  const contactReads = new ContactsQueryService(db, {
    searchIndex: config.searchIndex,
    searchIndexRefreshMs: config.searchIndexRefreshMs,
    onSearchIndexError: (err) => logger.error({ err }, 'contact search index build failed'),
  });
  const contactWrites = new ContactsService(db, contactReads, passwords);
  app.use('/api/contacts', contactsRouter(contactReads, contactWrites, requireAuth));
  app.use('/api/locations', locationsRouter(db, requireAuth));
  app.use('/api/security', securityRouter(db, requireAuth, { summaryCacheMs: config.securitySummaryCacheMs }));
  app.use('/api', referenceRouter(db, requireAuth));

  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
