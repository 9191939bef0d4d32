import { arrayOf, obj, str } from './builders';
import { paginationSchemas } from './paging';
import { authPaths, authSchemas } from './paths/auth';
import { contactPaths, contactSchemas } from './paths/contacts';
import { docsPaths, healthPaths } from './paths/health';
import { locationPaths, locationSchemas } from './paths/locations';
import { referencePaths, referenceSchemas } from './paths/reference';
import { auditPaths, auditSchemas } from './paths/audit';
import { securityPaths, securitySchemas } from './paths/security';
import { transferPaths } from './paths/transfer';
import { webhookPaths, webhookSchemas } from './paths/webhooks';
import { apiTokenPaths, apiTokenSchemas } from './paths/api-tokens';

/**
 * The OpenAPI 3.1 document of the whole service, built from the same constants the code uses.
 * Served at GET /api/openapi.json and as a page at GET /api/docs; every response of the test
 * suite is checked against it (tests/helpers/openapi.ts).
 */
export function openApiDocument() {
  return {
    openapi: '3.1.0',
    info: {
      title: 'Directory Service',
      version: '2.0.0',
      description: [
        'Sign-in, a hierarchical directory of people, the administrative geography of Bangladesh and',
        'per-organization security records. Every request body is a JSON object (an array is 400',
        '`Validation failed` on field `body`). Success: `{status: "success", message, data}`;',
        'error: `{status: "error", message, errors?}` where each `errors` entry is `{field, message}`.',
        'Timestamps are ISO 8601 UTC with milliseconds. Choices beyond the specification: docs/api.md.',
      ].join(' '),
    },
    servers: [{ url: '/' }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'Health' },
      { name: 'Auth' },
      { name: 'Contacts' },
      { name: 'Locations' },
      { name: 'Security' },
      { name: 'Audit' },
      { name: 'Reference data' },
      { name: 'Webhooks' },
      { name: 'API tokens' },
    ],
    paths: {
      ...healthPaths,
      ...docsPaths,
      ...authPaths,
      ...transferPaths,
      ...contactPaths,
      ...locationPaths,
      ...securityPaths,
      ...auditPaths,
      ...referencePaths,
      ...webhookPaths,
      ...apiTokenPaths,
    },
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The access token from POST /api/auth/login' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, for GET /metrics when it is set' },
      },
      schemas: {
        Error: obj({ status: { const: 'error' }, message: str(), errors: { $ref: '#/components/schemas/FieldErrors' } }, ['errors']),
        FieldErrors: arrayOf(obj({ field: str(), message: str() })),
        ...paginationSchemas,
        ...authSchemas,
        ...contactSchemas,
        ...locationSchemas,
        ...securitySchemas,
        ...auditSchemas,
        ...webhookSchemas,
        ...apiTokenSchemas,
        ...referenceSchemas,
      },
    },
  };
}
