import { constant, int, obj, str, type Schema } from '../builders';

const plain = (status: 'success' | 'error', message: string, data?: Record<string, Schema>) => ({
  content: {
    'application/json': {
      schema: obj({ status: constant(status), message: constant(message), ...(data ? { data: obj(data) } : {}) }),
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
      summary: 'The database answers',
      security: [],
      'x-roles': ['public'],
      responses: {
        200: { description: 'Ready', ...plain('success', 'Ready', { database: str({ const: 'up' }) }) },
        503: { description: 'The database does not answer', ...plain('error', 'Database unavailable') },
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
