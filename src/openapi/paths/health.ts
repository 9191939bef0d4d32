import { constant, int, obj, str, type Schema } from '../builders';

/** An answer of a fixed message, with its example (`example` is that of `data`). */
const plain = (status: 'success' | 'error', message: string, data?: { schema: Record<string, Schema>; example: unknown; optional?: string[] }) => ({
  content: {
    'application/json': {
      schema: obj({ status: constant(status), message: constant(message), ...(data ? { data: obj(data.schema, data.optional) } : {}) }),
      example: { status, message, ...(data ? { data: data.example } : {}) },
    },
  },
});

const METRICS_EXAMPLE = [
  '# HELP http_request_duration_seconds Time from the request reaching the app to its answer being sent, by route pattern, method and status; _count is the number of requests',
  '# TYPE http_request_duration_seconds histogram',
  'http_request_duration_seconds_bucket{le="0.05",method="GET",route="/api/contacts",status_code="200"} 1187',
  'http_request_duration_seconds_sum{method="GET",route="/api/contacts",status_code="200"} 21.74',
  'http_request_duration_seconds_count{method="GET",route="/api/contacts",status_code="200"} 1203',
  '# HELP directory_db_pool_connections_in_use Database connections lent to a query or transaction now',
  '# TYPE directory_db_pool_connections_in_use gauge',
  'directory_db_pool_connections_in_use 1',
  '',
].join('\n');

export const healthPaths = {
  '/health': {
    get: {
      operationId: 'getHealth',
      tags: ['Health'],
      summary: 'The process is up',
      security: [],
      'x-roles': ['public'],
      responses: { 200: { description: 'Up', ...plain('success', 'OK', { schema: { uptime_seconds: int({ minimum: 0 }) }, example: { uptime_seconds: 86400 } }) } },
    },
  },
  '/ready': {
    get: {
      operationId: 'getReadiness',
      tags: ['Health'],
      summary: 'The database answers (and whether Redis does)',
      security: [],
      'x-roles': ['public'],
      responses: {
        200: {
          description: [
            'Ready. `search_index`: `built` when the in-memory contact search index answers searches, `building` while its first',
            'build runs (the service starts it at once; searches run in SQL meanwhile), `none` when no build has run or the last failed,',
            '`off` with `SEARCH_INDEX=sql`. Ready either way: every search is answered.',
            '`redis` (only with `REDIS_URL`): `up` when Redis answers a PING within a second, `down` otherwise. Ready either way:',
            'while Redis is down the rate limits let requests through uncounted, and the service still serves (README, When things fail).',
          ].join(' '),
          ...plain('success', 'Ready', {
            schema: { database: str({ const: 'up' }), search_index: str({ enum: ['built', 'building', 'none', 'off'] }), redis: str({ enum: ['up', 'down'] }) },
            example: { database: 'up', search_index: 'built', redis: 'up' },
            optional: ['redis'],
          }),
        },
        503: { description: 'The database does not answer', ...plain('error', 'Database unavailable') },
      },
    },
  },
  '/metrics': {
    get: {
      operationId: 'getMetrics',
      tags: ['Health'],
      summary: 'Metrics for Prometheus (only with METRICS_ENABLED=true)',
      description: [
        'Requests by route pattern and status, the database pool, the contact search index, Redis (with `REDIS_URL`), the event loop and the process,',
        'in the Prometheus text format (README, Operations). Off unless `METRICS_ENABLED=true`: then 404 like any unknown path.',
        'With `METRICS_TOKEN` set, the scraper sends `Authorization: Bearer <METRICS_TOKEN>` (not a sign-in token).',
        'Outside `/api`: the API rate limit does not apply, and scrapes are not counted among the requests.',
      ].join(' '),
      security: [{}, { metricsToken: [] }],
      'x-roles': ['public', 'the scraper holding METRICS_TOKEN, when it is set'],
      responses: {
        200: { description: 'The metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' }, example: METRICS_EXAMPLE } } },
        401: {
          description: 'METRICS_TOKEN is set and the request does not carry it',
          content: {
            'application/json': {
              schema: obj({ status: constant('error'), message: { enum: ['Metrics token is required', 'Invalid metrics token'] } }),
            },
          },
        },
        404: { description: 'Metrics are off (METRICS_ENABLED is not true)', ...plain('error', 'Route not found') },
      },
    },
  },
};

export const docsPaths = {
  '/api/openapi.json': {
    get: {
      operationId: 'getOpenApiDocument',
      tags: ['Health'],
      summary: 'This document, as JSON',
      security: [],
      'x-roles': ['public'],
      responses: {
        200: {
          description: 'The OpenAPI 3.1 document',
          content: {
            'application/json': {
              schema: { type: 'object', required: ['openapi', 'paths'] },
              example: { openapi: '3.1.0', info: { title: 'Directory Service', version: '2.0.0' }, paths: { '/health': { get: { operationId: 'getHealth' } } } },
            },
          },
        },
      },
    },
  },
  '/api/docs': {
    get: {
      operationId: 'getApiDocs',
      tags: ['Health'],
      summary: 'This document as a browsable page (Swagger UI)',
      security: [],
      'x-roles': ['public'],
      responses: {
        200: {
          description: 'An HTML page',
          content: { 'text/html': { schema: { type: 'string' }, example: '<!DOCTYPE html>\n<html lang="en">\n<head><title>Directory Service API</title>...</head>\n<body><div id="swagger-ui"></div>...</body>\n</html>\n' } },
        },
      },
    },
  },
};
