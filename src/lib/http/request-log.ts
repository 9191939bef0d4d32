import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What a log line says about a request: its id, method and URL; none of its headers or body. */
export function requestRecord(req: Request): { id: string | undefined; method: string; url: string } {
  return { id: req.id, method: req.method, url: req.originalUrl };
}

/**
 * The request log. Each request gets an id, the caller's `X-Request-Id` when it is a safe token
 * or a new UUID, echoed in `X-Request-Id`. When the connection is done with the request, one
 * line records it with its status and time: `info` for success, `warn` for 4xx, 503 and for a
 * request the client left before it was answered, `error` for other 5xx. Nothing is built for a
 * level that is off, and no header or body is ever logged, so no token, cookie or password
 * can reach a line.
 */
export function requestLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('X-Request-Id', id);
    const start = performance.now();
    res.once('close', () => {
      const finished = res.writableEnded;
      const status = res.statusCode;
      // a 503 is an answer given on purpose (the database is unavailable, logged apart): warn
      const level = !finished ? 'warn' : status >= 500 && status !== 503 ? 'error' : status >= 400 ? 'warn' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line = { req: requestRecord(req), res: { statusCode: status }, responseTime: Math.round(performance.now() - start) };
      logger[level](line, finished ? 'request completed' : 'request aborted');
    });
    next();
  };
}
