import { gunzipSync } from 'node:zlib';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import express, { type Express } from 'express';
import { openApiDocument } from '../../src/openapi/document';

/**
 * The API contract, enforced: every app that a test builds through contractApp() records the
 * JSON responses it sends, and after the test file each one is checked against the OpenAPI
 * document (its status must be documented for the operation, and its body must match the
 * schema). tests/helpers/contract-setup.ts runs the check for every file.
 */

export interface RecordedResponse {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

const recorded: RecordedResponse[] = [];

export function recordedResponses(): RecordedResponse[] {
  return recorded;
}

/** Wraps an app so that every JSON body it sends is recorded for the contract check. */
export function contractApp(app: Express): Express {
  const outer = express();
  outer.disable('x-powered-by');
  outer.use((req, res, next) => {
    const json = res.json.bind(res);
    const send = res.send.bind(res);
    let inJson = false;
    res.json = (body: unknown) => {
      recorded.push({ method: req.method, url: req.originalUrl, status: res.statusCode, body });
      inJson = true;
      return json(body);
    };
    // JSON sent as bytes, gzipped or not (sendKeptJson), is checked too; res.json's own call of
    // send is not counted twice
    res.send = (body?: unknown) => {
      if (!inJson && Buffer.isBuffer(body) && /json/.test(String(res.get('Content-Type')))) {
        const bytes = res.get('Content-Encoding') === 'gzip' ? gunzipSync(body) : body;
        recorded.push({ method: req.method, url: req.originalUrl, status: res.statusCode, body: JSON.parse(bytes.toString('utf8')) });
      }
      return send(body);
    };
    next();
  });
  outer.use(app);
  return outer;
}

type Document = ReturnType<typeof openApiDocument>;
interface Operation {
  pattern: RegExp;
  template: string;
  method: string;
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
}

let contract: { document: Document; operations: Operation[]; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function load() {
  if (contract) return contract;
  const document = openApiDocument();
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'openapi', components: document.components, paths: document.paths });
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, Operation['responses'] & object>>)) {
    // templates with fixed segments first: /contacts/search before /contacts/{id}
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const [method, op] of Object.entries(item)) {
      operations.push({ pattern, template, method: method.toUpperCase(), responses: (op as { responses: Operation['responses'] }).responses });
    }
  }
  operations.sort((a, b) => (a.template.match(/\{/g)?.length ?? 0) - (b.template.match(/\{/g)?.length ?? 0));
  contract = { document, operations, ajv, validators: new Map() };
  return contract;
}

/** The document's operation for a request, as `METHOD /template`, or undefined. */
export function operationOf(method: string, url: string): string | undefined {
  const path = url.split('?')[0];
  const op = load().operations.find((o) => o.method === method && o.pattern.test(path));
  return op && `${op.method} ${op.template}`;
}

/** What is wrong with a recorded response, by the document; null when it conforms. */
export function contractProblem(r: RecordedResponse): string | null {
  const { operations, ajv, validators } = load();
  const path = r.url.split('?')[0];
  // SCIM (RFC 7644) is described by its own discovery documents, not by the OpenAPI document
  if (path.startsWith('/scim/')) return null;
  const op = operations.find((o) => o.method === r.method && o.pattern.test(path));
  if (!op) {
    const message = (r.body as { message?: string })?.message;
    // an unknown route answers 404 Route not found: that is the documented behaviour of every path
    if (r.status === 404 && message === 'Route not found') return null;
    // the API's rate limit counts every /api request, unknown routes included
    if (r.status === 429 && message === 'Too many requests, please try again later') return null;
    return `${r.method} ${path}: no such operation in the document`;
  }
  const response = op.responses[String(r.status)];
  if (!response) return `${r.method} ${op.template}: status ${r.status} is not documented`;
  const key = `${op.method} ${op.template} ${r.status}`;
  let validate = validators.get(key);
  if (!validate) {
    if (!response.content) {
      // a 304 has no body, and is documented without one
      const empty = r.body === undefined || r.body === null || r.body === '' || (typeof r.body === 'object' && Object.keys(r.body as object).length === 0);
      return empty ? null : `${r.method} ${op.template}: status ${r.status} is documented without a body`;
    }
    const pointer = `openapi#/paths/${op.template.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method.toLowerCase()}/responses/${r.status}/content/application~1json/schema`;
    validate = ajv.compile({ $ref: pointer });
    validators.set(key, validate);
  }
  if (validate(r.body)) return null;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`).join('; ');
  return `${r.method} ${r.url} ${r.status}: ${errors}`;
}
