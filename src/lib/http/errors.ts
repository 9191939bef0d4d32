import type { NextFunction, Request, Response } from 'express';
import { AppError, NotFoundError } from '../errors';
import type { Logger } from '../logger';
import { requestRecord } from './request-log';

interface HttpishError {
  type?: string;
  status?: number;
  expose?: boolean;
}

export function notFound(_req: Request, _res: Response, next: NextFunction): void {
  next(new NotFoundError('Route not found'));
}

/**
 * A serializer for logged errors: name, code and a message, never the stack trace. A database
 * error's message is the driver's own: createDb takes knex's copy of the statement off it.
 * The logger's serializer for every `err` key: callers log `{ err }` as it is.
 */
export function safeError(err: unknown): Record<string, unknown> {
  if (typeof err !== 'object' || err === null || typeof (err as { message?: unknown }).message !== 'string') {
    return { message: String(err).slice(0, 500) };
  }
  const { code, errno, sqlMessage, message } = err as { code?: unknown; errno?: unknown; sqlMessage?: string; message: string };
  if (!(err instanceof Error)) {
    return { type: (err as { type?: unknown }).type, code, errno, message: message.slice(0, 500) };
  }
  return { type: err.name, code, errno, message: (sqlMessage ?? message).slice(0, 500) };
}

/**
 * The one error middleware: known errors keep status and message; anything else is a bare 500,
 * logged with its request and its cause (never its stack).
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
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
    res.status(err.status).json({ status: 'error', message: err.message, ...(err.errors ? { errors: err.errors } : {}) });
    return;
  }
  const httpish = (err ?? {}) as HttpishError;
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
