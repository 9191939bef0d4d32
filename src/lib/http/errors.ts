import type { NextFunction, Request, Response } from 'express';
import { isUnavailable } from '../db';
import { AppError, NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { Throttle } from '../throttle';
import { requestRecord } from './request-log';
import { RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE } from './respond';

interface HttpishError {
  type?: string;
  status?: number;
  expose?: boolean;
}

export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError('Route not found'));
}

/**
 * The one error middleware: known errors keep status and message; anything else is a bare 500,
 * logged with its request and its cause (never its stack).
 */
/** An outage is logged once per this interval, not once per request that meets it. */
const OUTAGE_LOG_INTERVAL_MS = 10_000;

export function errorHandler(logger: Logger) {
  const outages = new Throttle(OUTAGE_LOG_INTERVAL_MS);
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    // an error is no representation of the resource: no ETag a client could revalidate with
    // (conditional.ts sets it before validation and before the read that may fail)
    if (!res.headersSent) res.removeHeader('ETag');
    if (!res.headersSent && isUnavailable(err)) {
      const suppressed = outages.pass('database');
      if (suppressed !== null) logger.error({ req: requestRecord(req), err, suppressed }, 'database unavailable');
      res.set('Retry-After', String(RETRY_AFTER_SECONDS));
      res.status(503).json(SERVICE_UNAVAILABLE);
      return;
    }
    if (res.headersSent) {
      // too late for an answer: logged here (Express's own handler would print the stack),
      // and the connection cut so that the client sees the response is incomplete
      logger.error({ req: requestRecord(req), err }, 'error after the response began');
      res.destroy();
      return;
    }
    answerError(err, req, res, logger);
  };
}

function answerError(err: unknown, req: Request, res: Response, logger: Logger): void {
  if (err instanceof AppError) {
    res.status(err.status).json({ status: 'error', message: err.message, ...(err.errors ? { errors: err.errors } : {}), ...err.extra });
    return;
  }
  const httpish = (err ?? {}) as HttpishError;
  // the router could not decode a path parameter (`/api/contacts/%ff`): its name is not on the
  // error, so the field is the path (by name, not instanceof: the error may come from another realm)
  if ((err as Error | null)?.name === 'URIError' && httpish.status === 400) {
    const errors = [{ field: 'path', message: 'The path is not valid percent-encoded UTF-8' }];
    res.status(400).json({ status: 'error', message: 'Validation failed', errors });
    return;
  }
  if (httpish.type === 'entity.parse.failed') {
    res.status(400).json({ status: 'error', message: 'Malformed JSON body' });
    return;
  }
  if (httpish.type === 'entity.too.large') {
    res.status(413).json({ status: 'error', message: 'Request body too large' });
    return;
  }
  if (httpish.expose && typeof httpish.status === 'number' && httpish.status >= 400 && httpish.status < 500) {
    const message = httpish.status === 415 ? 'Unsupported content encoding or charset' : 'Bad request';
    res.status(httpish.status).json({ status: 'error', message });
    return;
  }
  logger.error({ req: requestRecord(req), err }, 'unexpected error');
  res.status(500).json({ status: 'error', message: 'Internal server error' });
}
