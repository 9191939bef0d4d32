import { constant, int, obj, str, type Schema } from '../builders';

const plain = (status: 'success' | 'error', message: string, data?: Record<string, Schema>, optional: string[] = []) => ({
  content: {
    'application/json': {
      schema: obj({ status: constant(status), message: constant(message), ...(data ? { data: obj(data, optional) } : {}) }),
    },
  },
});

export const healthPaths = {
  '/health': {
    get: {
      tags: ['Health'],
      summary: 'The process is up',
      security: [],
      'x-roles': ['public'],
      responses: { 200: { description: 'Up', ...plain('success', 'OK', { uptime_seconds: int({ minimum: 0 }) }) } },
    },
  },
  '/ready': {
    get: {
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
          ...plain(
            'success',
            'Ready',
            { database: str({ const: 'up' }), search_index: str({ enum: ['built', 'building', 'none', 'off'] }), redis: str({ enum: ['up', 'down'] }) },
            ['redis'],
          ),
        },
        503: { description: 'The database does not answer', ...plain('error', 'Database unavailable') },
      },
    },
  },
  '/metrics': {
    get: {
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
        200: { description: 'The metrics', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
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
      tags: ['Health'],
      summary: 'This document, as JSON',
      security: [],
      'x-roles': ['public'],
      responses: { 200: { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object', required: ['openapi', 'paths'] } } } } },
    },
  },
  '/api/docs': {
    get: {
      tags: ['Health'],
      summary: 'This document as a browsable page (Swagger UI)',
      security: [],
      'x-roles': ['public'],
      responses: { 200: { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } },
    },
  },
};
