import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '../logger';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** What stands in a log line for a path segment, a parameter name or a value it does not keep. */
const MASK = '[Redacted]';

/**
 * Every segment of this API's routes is a word, a number or a file name (`openapi.json`); no route
 * takes text. Anything else a client typed (an e-mail, an encoded search term) is masked.
 */
const SEGMENT = /^[A-Za-z0-9._-]{0,64}$/;
/** The API's parameter names are snake_case words; any other name may itself be the data. */
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,39}$/;

const COUNT = /^\d{1,10}$/;
const ROW_ID = /^(?:\d{1,20}|null)$/;
// the values of an enumeration or a flag: `csv`, `hierarchical`, `super_admin`, `true`, `0`
const WORD = /^[a-z0-9_]{1,16}$/;
const INSTANT = /^\d[\dT:.Z+-]{0,34}$/;

/**
 * The query parameters whose values a log line keeps, each only in the shape that parameter
 * takes, so that an e-mail sent as `format=` is masked all the same. None can name a person:
 * paging, enumerations, flags, time bounds, and row ids, which mean nothing without the
 * database and which the path carries anyway (`/api/contacts/123`). `login_id` is no row id but
 * an e-mail or service number; it, `q`, `search`, `ip_address`, `reason`, `action` and `code` are
 * free text or personal, and are masked with every parameter not listed here.
 */
const KEPT_VALUES: ReadonlyMap<string, RegExp> = new Map([
  ...['page', 'limit'].map((name) => [name, COUNT] as const),
  ...['format', 'mode', 'passwords', 'role_filter', 'change_type', 'target_type', 'include_inactive', 'tree', 'dry_run'].map(
    (name) => [name, WORD] as const,
  ),
  ...['from', 'to'].map((name) => [name, INSTANT] as const),
  ...['unit_id', 'department_id', 'organization_id', 'parent_id', 'root_id', 'user_id', 'actor_id', 'target_id'].map(
    (name) => [name, ROW_ID] as const,
  ),
]);

function loggedPath(path: string): string {
  return path
    .split('/')
    .map((segment) => (SEGMENT.test(segment) ? segment : MASK))
    .join('/');
}

/** The query as `name=value&...`, each value masked unless KEPT_VALUES keeps it. */
function loggedQuery(search: string): string {
  const parts: string[] = [];
  for (const [name, value] of new URLSearchParams(search)) {
    if (!NAME.test(name)) {
      parts.push(MASK);
      continue;
    }
    const kept = value === '' || KEPT_VALUES.get(name)?.test(value) === true;
    parts.push(`${name}=${kept ? value : MASK}`);
  }
  return parts.join('&');
}

/**
 * What a log line says about a request: its id, method, path and query; none of its headers or
 * body. Search terms, login identifiers and other values a client puts in the URL are personal
 * data: the query keeps its parameter names and only the values of KEPT_VALUES.
 */
export function requestRecord(req: Request): { id: string | undefined; method: string; path: string; query?: string } {
  const url = req.originalUrl;
  const mark = url.indexOf('?');
  const path = loggedPath(mark === -1 ? url : url.slice(0, mark));
  const query = mark === -1 ? '' : loggedQuery(url.slice(mark + 1));
  return { id: req.id, method: req.method, path, ...(query === '' ? {} : { query }) };
}

/**
 * The request log. Each request gets an id, the caller's `X-Request-Id` when it is a safe token
 * or a new UUID, echoed in `X-Request-Id`. When the connection is done with the request, one
 * line records it with its status and time: `info` for success and for 4xx (a refusal is the
 * service working as meant: it is the client's mistake, and at `warn` it buried the warnings
 * that need an operator), `warn` for 503 and for a request the client left before it was
 * answered, `error` for other 5xx. Nothing is built for a
 * level that is off, and no header or body is ever logged, so no token, cookie or password
 * can reach a line; of the URL, only what requestRecord keeps.
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
      const level = !finished || status === 503 ? 'warn' : status >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      const line = { req: requestRecord(req), res: { statusCode: status }, responseTime: Math.round(performance.now() - start) };
      logger[level](line, finished ? 'request completed' : 'request aborted');
    });
    next();
  };
}
