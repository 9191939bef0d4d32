/**
 * Small builders for the OpenAPI 3.1 document (JSON Schema 2020-12), so that each module's
 * paths read like its router: the envelope, records, parameters and the roles allowed.
 */

export type Schema = Record<string, unknown>;

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra });
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra });
export const timestamp = (): Schema => ({ type: 'string', format: 'date-time' });
export const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: 'null' }] });
export const arrayOf = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra });
export const constant = (value: unknown): Schema => ({ const: value });

/** A record: exactly these properties, all required unless listed in `optional`. */
export function obj(properties: Record<string, Schema>, optional: string[] = []): Schema {
  return {
    type: 'object',
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

/** A request body: the listed properties; others are ignored by the service, so allowed. */
export function body(properties: Record<string, Schema>, required: string[] = []): Schema {
  return { type: 'object', properties, required };
}

// ---- parameters

export interface Param {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  description?: string;
  /** an old name kept for a release beside its new one (docs/api.md, Paging) */
  deprecated?: boolean;
  schema: Schema;
}

export const pathId = (name = 'id', description = 'a positive integer'): Param => ({
  name,
  in: 'path',
  required: true,
  description,
  schema: int({ minimum: 1 }),
});

export const query = (name: string, schema: Schema, description?: string): Param => ({
  name,
  in: 'query',
  schema,
  ...(description ? { description } : {}),
});

/** true/false/1/0, as query booleans are written. */
export const queryBool = (name: string, description: string, dflt = false): Param =>
  query(name, { type: 'string', enum: ['true', 'false', '1', '0'], default: String(dflt) }, description);

export const paging = (defaultLimit: number, maxLimit: number): Param[] => [
  query('page', int({ minimum: 1, maximum: 1_000_000, default: 1 }), 'page number'),
  query('limit', int({ minimum: 1, maximum: maxLimit, default: defaultLimit }), 'items per page'),
];

const instant = (name: 'from' | 'to', day: string): Param =>
  query(
    name,
    str({ examples: ['2026-11-22', '2026-11-22T08:15:30.123Z', '2026-11-22T14:15:30+06:00'] }),
    `inclusive bound: an ISO 8601 date (${day} of that day, UTC) or date-time (UTC when without a zone)${name === 'to' ? '; not earlier than `from`' : ''}`,
  );

/** `from` and `to` (lib/http/time-rules.ts) */
export const timeRange: Param[] = [instant('from', 'the start'), instant('to', 'the end')];

// ---- responses

/** A JSON body; `example` (true to the schema: tests/contract/openapi-examples.test.ts) is what Swagger UI shows. */
const json = (schema: Schema, example?: unknown) => ({
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
});

/** The message of a success example: the pinned one, else the first the schema lists. */
function exampleMessage(message: string | Schema): string {
  if (typeof message === 'string') return message;
  const listed = (message.enum ?? message.examples) as string[] | undefined;
  if (!listed?.length) throw new Error('a success message that varies needs `enum` or `examples` for its example');
  return listed[0];
}

export interface SuccessResponse {
  description: string;
  content: { 'application/json': { schema: Schema; example: unknown } };
}

/**
 * 2xx: {status: "success", message, data}. `message` is pinned when it never varies. `example`
 * is an example of `data` (the envelope around it is built here), required with `data`.
 */
export function success(message: string | Schema): SuccessResponse;
export function success(message: string | Schema, data: Schema, example: unknown, description?: string): SuccessResponse;
export function success(message: string | Schema, data?: Schema, example: unknown = {}, description = 'Success'): SuccessResponse {
  const messageSchema = typeof message === 'string' ? constant(message) : message;
  // every success carries `data`: `{}` when there is nothing to return
  const properties: Record<string, Schema> = { status: constant('success'), message: messageSchema, data: data ?? obj({}) };
  const envelope = { status: 'success', message: exampleMessage(message), data: example };
  return { description, content: { 'application/json': { schema: obj(properties), example: envelope } } };
}

/** An error answer; `message` pins its message, or lists the messages it may have. */
export const errorResponse = (description: string, message?: string | readonly string[]) => {
  const pinned = typeof message === 'string' ? constant(message) : { type: 'string', enum: [...(message ?? [])] };
  return {
    description,
    ...json(message ? { allOf: [ref('Error'), obj({ status: constant('error'), message: pinned, errors: ref('FieldErrors') }, ['errors'])] } : ref('Error')),
  };
};

export const E400 = errorResponse('Validation failed, or a request the rules refuse (`errors` lists each field)');
export const E401 = errorResponse('Missing, invalid, expired or revoked token');
export const E403 = errorResponse('The role lacks the permission', 'Insufficient permissions');
/** 403 of a bulk change: the permission, or a contact of another organization among those named (docs/api.md, "Who may write what"). */
export const E403_BULK = errorResponse(
  'The role lacks the permission, or a caller without organizations.manage named a contact of another organization',
  ['Insufficient permissions', 'Contacts of another organization cannot be changed'],
);
export const E404 = (message: string) => errorResponse('Not found', message);
export const E409 = errorResponse('Conflict with the stored data (a duplicate, or a record in use)');
const E413 = errorResponse('Body over BODY_LIMIT', 'Request body too large');
const E415 = errorResponse(
  'A charset other than UTF-8 (utf-*), or a Content-Encoding other than identity, gzip, deflate and br',
  'Unsupported content encoding or charset',
);
export const E429 = errorResponse('Over a rate limit (with RateLimit and Retry-After headers)');
export const E500 = errorResponse('Unexpected failure, without internals', 'Internal server error');
const E503 = errorResponse('The database cannot be reached now (with Retry-After)', 'Service unavailable');

// ---- conditional requests (lib/http/conditional.ts, docs/api.md)

const ETAG_HEADER = {
  ETag: { description: 'built from the versions of what the read shows, the caller\'s role and the URL (no hash of the body)', schema: str() },
};
const ifNoneMatch: Param = {
  name: 'If-None-Match',
  in: 'header',
  description: 'an ETag of an earlier answer: 304 with no body while nothing it shows has changed',
  schema: str(),
};
const E304 = { description: 'Not modified: the If-None-Match holds the current ETag (no body)', headers: ETAG_HEADER };

/**
 * A write that honours If-Match and If-None-Match (RFC 9110, 13.1.1 and 13.1.2): `tag` says
 * which read's ETag it compares and when that ETag goes stale, `message` is its 412's.
 */
export interface ConditionalWrite {
  tag: string;
  message: string;
}

function writePreconditions(write: ConditionalWrite): { params: Param[]; responses: Record<string, unknown> } {
  const header = (name: string, description: string): Param => ({ name, in: 'header', description, schema: str() });
  return {
    params: [
      header('If-Match', `${write.tag}, or \`*\`: the change is made only while it is current, else 412 (a weak tag never holds)`),
      header('If-None-Match', '`*`, or the current ETag (weakly compared): 412, nothing changed'),
    ],
    responses: { 412: errorResponse('A precondition (If-Match, If-None-Match) does not hold: nothing was changed', write.message) },
  };
}

/** A read's success answers an ETag; an If-None-Match that holds it answers 304. */
function conditionalRead(responses: Record<string, unknown>): Record<string, unknown> {
  const withTag = Object.fromEntries(
    Object.entries(responses).map(([status, r]) => {
      const response = r as { headers?: object };
      return [status, status.startsWith('2') ? { ...response, headers: { ...response.headers, ...ETAG_HEADER } } : r];
    }),
  );
  return { ...withTag, 304: E304 };
}

export interface OperationSpec {
  /** operationId: camelCase, verb first, unique; the generated client and Swagger UI name the call by it */
  id: string;
  tags: string[];
  summary: string;
  description?: string;
  /** who may call it: shown in the description and as x-roles */
  roles: string[];
  /** the permissions the route checks (`a + b` when it needs both), when it checks any: then 403 is documented */
  permission?: string;
  params?: Param[];
  requestBody?: Schema;
  /** an example of the JSON body, required with `requestBody` */
  requestExample?: unknown;
  /** a body other than JSON: its media types, schemas and examples (an upload, say) */
  requestContent?: Record<string, { schema: Schema; example: unknown }>;
  responses: Record<string, unknown>;
  /** public: no bearer token */
  public?: boolean;
  /** `read`: ETag and If-None-Match (304); a write: If-Match and If-None-Match (412) */
  conditional?: 'read' | ConditionalWrite;
}

/**
 * An operation with the errors every route can answer: 400 (malformed), 429, 500, 503; 401 unless
 * public; 403 when it checks a permission; 413 and 415 when it takes a body.
 */
export function operation(spec: OperationSpec) {
  const write = typeof spec.conditional === 'object' ? writePreconditions(spec.conditional) : null;
  const conditionalParams = spec.conditional === 'read' ? [ifNoneMatch] : (write?.params ?? []);
  const params = [...(spec.params ?? []), ...conditionalParams];
  const own = spec.conditional === 'read' ? conditionalRead(spec.responses) : { ...spec.responses, ...write?.responses };
  const roles = `Roles: ${spec.roles.join(', ')}.${spec.permission ? ` Permission \`${spec.permission}\`.` : ''}`;
  if (spec.requestBody && spec.requestExample === undefined) throw new Error(`${spec.id}: a request body needs an example`);
  return {
    operationId: spec.id,
    tags: spec.tags,
    summary: spec.summary,
    description: [spec.description, roles].filter(Boolean).join('\n\n'),
    'x-roles': spec.roles,
    ...(spec.permission ? { 'x-permission': spec.permission } : {}),
    ...(spec.public ? { security: [] } : {}),
    ...(params.length ? { parameters: params } : {}),
    ...(spec.requestBody ? { requestBody: { required: true, ...json(spec.requestBody, spec.requestExample) } } : {}),
    ...(spec.requestContent ? { requestBody: { required: true, content: spec.requestContent } } : {}),
    responses: {
      ...own,
      ...(spec.responses['400'] ? {} : { 400: E400 }),
      ...(spec.public || spec.responses['401'] ? {} : { 401: E401 }),
      ...(spec.permission && !spec.responses['403'] ? { 403: E403 } : {}),
      ...(spec.requestBody && !spec.responses['413'] ? { 413: E413 } : {}),
      ...(spec.requestBody && !spec.responses['415'] ? { 415: E415 } : {}),
      429: E429,
      500: E500,
      503: E503,
    },
  };
}

export const ANY_USER = ['Super_admin', 'Admin', 'User'];
export const ADMINS = ['Super_admin', 'Admin'];
export const SUPER_ADMIN = ['Super_admin'];
