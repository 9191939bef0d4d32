import type { NextFunction, Request, Response } from 'express';
import { isUnavailable } from '../../lib/db';
import { AppError } from '../../lib/errors';
import { requestRecord } from '../../lib/http/request-log';
import type { Logger } from '../../lib/logger';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';

/** RFC 7644 3.12's scimType of a 400 (and of 409: uniqueness). */
export type ScimType = 'invalidFilter' | 'invalidValue' | 'invalidSyntax' | 'invalidPath' | 'noTarget' | 'mutability' | 'uniqueness' | 'tooMany';

export class ScimError extends AppError {
  constructor(status: number, readonly scimType: ScimType | undefined, detail: string) {
    super(status, detail);
  }
}

export const invalidValue = (detail: string) => new ScimError(400, 'invalidValue', detail);

/** Every error of /scim/v2 in the SCIM error schema: status as a string, scimType where RFC 7644 has one. */
export function scimErrorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    let status = 500;
    let scimType: ScimType | undefined;
    let detail = 'Internal server error';
    if (err instanceof AppError) {
      status = err.status;
      scimType = err instanceof ScimError ? err.scimType : status === 409 ? 'uniqueness' : status === 400 ? 'invalidValue' : undefined;
      const fields = (err.errors ?? []).map((e) => `${e.field}: ${e.message}`);
      detail = fields.length > 0 && !fields.some((f) => f.endsWith(err.message)) ? `${err.message} (${fields.join('; ')})` : err.message;
    } else if ((err as { type?: string }).type === 'entity.parse.failed') {
      status = 400;
      scimType = 'invalidSyntax';
      detail = 'The body is not valid JSON';
    } else if ((err as { status?: number }).status === 413) {
      status = 413;
      detail = 'Request body too large';
    } else if (isUnavailable(err)) {
      status = 503;
      detail = 'Service temporarily unavailable';
    } else {
      // as the app's error handler logs it: the request and the cause, never the stack or SQL to the client
      logger.error({ req: requestRecord(req), err }, 'SCIM request failed');
    }
    if (status === 401) res.set('WWW-Authenticate', 'Bearer realm="scim"');
    res.status(status).type(SCIM_CONTENT_TYPE).send(JSON.stringify({ schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail }));
  };
}
