import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/openapi/document';

/**
 * Every request body and every success answer of the document carries an example, and every
 * example is true to its schema: Swagger UI shows them as they are, and a frontend developer
 * copies them. The document is OpenAPI 3.1 (JSON Schema 2020-12): null is a type, never 3.0's
 * `nullable`, so the 2020-12 validator reads the schemas exactly as the client generator does.
 */

interface MediaType {
  schema?: { format?: string };
  example?: unknown;
  examples?: unknown;
}
interface Operation {
  operationId?: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, { content?: Record<string, MediaType> }>;
}

const document = openApiDocument();
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

interface Body {
  name: string;
  pointer: string;
  media: MediaType;
}

/** Each media type of each request body (`request`) or of each 2xx answer (`success`), with the JSON pointer of its schema. */
function bodies(kind: 'request' | 'success'): Body[] {
  const out: Body[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    for (const [method, op] of Object.entries(item).filter(([m]) => METHODS.includes(m))) {
      const base = `#/paths/${escape(path)}/${method}`;
      const add = (where: string, content: Record<string, MediaType> | undefined, label: string) => {
        for (const [type, media] of Object.entries(content ?? {})) {
          out.push({ name: `${method.toUpperCase()} ${path} ${label} ${type}`, pointer: `${base}/${where}/content/${escape(type)}/schema`, media });
        }
      };
      if (kind === 'request') add('requestBody', op.requestBody?.content, 'request');
      else for (const [status, response] of Object.entries(op.responses)) if (status.startsWith('2')) add(`responses/${status}`, response.content, status);
    }
  }
  return out;
}

/** A binary body (an .xlsx) has no example a JSON document can hold: its CSV sibling has the same content. */
const isBinary = (body: Body) => body.media.schema?.format === 'binary';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addFormat('binary', true);
ajv.addSchema({ $id: 'openapi', components: document.components, paths: document.paths });

function problemsOf(pointer: string, value: unknown): string | null {
  const validate = ajv.compile({ $ref: `openapi${pointer}` });
  if (validate(value)) return null;
  return (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(example)'} ${e.message}`).join('; ');
}

describe('the examples of the OpenAPI document', () => {
  test('it is OpenAPI 3.1, and no schema uses 3.0\'s `nullable`', () => {
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(JSON.stringify(document)).not.toMatch(/"nullable":/);
  });

  test('every request body has an example', () => {
    const requests = bodies('request');
    expect(requests.length).toBeGreaterThan(30);
    expect(requests.filter((b) => b.media.example === undefined).map((b) => b.name)).toEqual([]);
  });

  test('every success answer has an example (an .xlsx download aside)', () => {
    const successes = bodies('success');
    expect(successes.length).toBeGreaterThan(80);
    expect(successes.filter((b) => b.media.example === undefined && !isBinary(b)).map((b) => b.name)).toEqual([]);
    // the only ones without: the template's and the export's .xlsx, whose text/csv siblings have one
    expect(successes.filter(isBinary).map((b) => b.name)).toEqual([
      'GET /api/contacts/import/template 200 application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'GET /api/contacts/export 200 application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    ]);
  });

  test.each([...bodies('request'), ...bodies('success')].filter((b) => b.media.example !== undefined).map((b) => [b.name, b] as const))(
    '%s: the example matches the schema',
    (_name, body) => {
      expect(problemsOf(body.pointer, body.media.example)).toBeNull();
    },
  );

  test('every `examples` list inside a schema matches that schema', () => {
    const problems: string[] = [];
    const walk = (node: unknown, pointer: string) => {
      if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${pointer}/${i}`));
      if (!node || typeof node !== 'object') return;
      const record = node as Record<string, unknown>;
      // a schema's `examples` is a list of values; a media type's is a map of Example Objects
      if (Array.isArray(record.examples) && ('type' in record || 'enum' in record || 'const' in record)) {
        for (const value of record.examples) {
          const problem = problemsOf(pointer, value);
          if (problem) problems.push(`${pointer} ${JSON.stringify(value)}: ${problem}`);
        }
      }
      for (const [key, child] of Object.entries(record)) if (key !== 'examples' && key !== 'example') walk(child, `${pointer}/${escape(key)}`);
    };
    walk(document.paths, '#/paths');
    walk(document.components, '#/components');
    expect(problems).toEqual([]);
  });
});
