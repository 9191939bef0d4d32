import createFetchClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema';

/**
 * The Directory Service's typed client: openapi-fetch over the types that openapi-typescript
 * generates from the service's OpenAPI document (./schema.ts). Every path, parameter, body and
 * answer is checked by the compiler; see README.md.
 */

export type { components, operations, paths };
/** The records of the API by schema name: `Schemas['Contact']`, `Schemas['Pagination']`. */
export type Schemas = components['schemas'];
/** What every 4xx and 5xx answers: `{status: 'error', message, errors?: [{field, message}]}`. */
export type ErrorEnvelope = components['schemas']['Error'];
export type DirectoryClient = Client<paths>;

export interface DirectoryClientOptions extends ClientOptions {
  /**
   * The access token (from `POST /api/auth/login`), read before each request and sent as
   * `Authorization: Bearer`; none while it returns nothing. A header given on a call wins.
   */
  token?: () => string | null | undefined;
}

/** `Authorization: Bearer <token>` on every request, the token read as the request leaves. */
export function bearerAuth(token: () => string | null | undefined): Middleware {
  return {
    onRequest({ request }) {
      const value = token();
      if (value && !request.headers.has('Authorization')) request.headers.set('Authorization', `Bearer ${value}`);
      return request;
    },
  };
}

/** A client of the API at `baseUrl` (`''` for the page's own origin, in a browser). */
export function createClient(options: DirectoryClientOptions = {}): DirectoryClient {
  const { token, ...rest } = options;
  const client = createFetchClient<paths>(rest);
  if (token) client.use(bearerAuth(token));
  return client;
}

/**
 * A `bodySerializer` for a multipart upload (`POST /api/contacts/import`): each field becomes a
 * part, a Blob or File a file part. The browser or Node sets the Content-Type with its boundary.
 */
export function formData(body: unknown): FormData {
  if (typeof body !== 'object' || body === null) throw new TypeError('a multipart body is an object of fields');
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    // a File keeps its name; the service tells CSV from .xlsx by the content, not the name
    form.append(name, value instanceof Blob ? value : String(value));
  }
  return form;
}
