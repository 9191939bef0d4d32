import { openApiDocument } from '../../src/openapi/document';

/** The document's own consistency: what a client generator or the Swagger page relies on. */

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
}
interface Operation {
  parameters?: Parameter[];
  responses: Record<string, unknown>;
  security?: unknown[];
  'x-roles'?: string[];
  'x-permission'?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): Array<[string, Operation]> {
  const paths = openApiDocument().paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]),
  );
}

const api = () => operations().filter(([name]) => name.includes(' /api/') && !/\/api\/(openapi\.json|docs)$/.test(name));

describe('the OpenAPI document', () => {
  test.each(operations())('%s declares each {param} of its path, required, and no parameter twice', (name, op) => {
    const template = name.split(' ')[1];
    const inPath = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    const declared = (op.parameters ?? []).filter((p) => p.in === 'path');
    expect(declared.map((p) => p.name).sort()).toEqual(inPath);
    expect(declared.every((p) => p.required === true)).toBe(true);
    const keys = (op.parameters ?? []).map((p) => `${p.in}:${p.name}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  test.each(api())('%s names its roles, and documents 401 when it needs a token and 403 when it checks a permission', (_name, op) => {
    expect(op['x-roles']?.length).toBeGreaterThan(0);
    const isPublic = Array.isArray(op.security) && op.security.length === 0;
    if (!isPublic) expect(Object.keys(op.responses)).toContain('401');
    if (op['x-permission']) expect(Object.keys(op.responses)).toContain('403');
    for (const status of ['400', '429', '500']) expect(Object.keys(op.responses)).toContain(status);
  });
});
