import fc from 'fast-check';
import request from 'supertest';
import { openApiDocument } from '../../src/openapi/document';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';

/**
 * Requests made from the document's own schemas, bent out of shape: wrong types, missing
 * required fields, values just past every bound, over-long strings, objects and arrays where
 * scalars belong. Against every write endpoint, none may answer 5xx, and every 4xx must be the
 * error envelope. (The file gets a database of its own, dropped after it, so what it happens to
 * create stays out of the shared one.)
 */
const ctx = setupOwnTestContext('fuzz', { RATE_LIMIT_MAX: '10000000', LOGIN_RATE_LIMIT_MAX: '1000000' });

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema>; required?: string[] };

/** The schema with nullable wrappers (anyOf [x, null]) opened up. */
function core(schema: Schema): Schema {
  const anyOf = schema.anyOf as Schema[] | undefined;
  return anyOf ? (anyOf.find((s) => s.type !== 'null') ?? schema) : schema;
}

/** A plausible value for a schema (ids point at rows that do not exist, so nothing is changed). */
function plausible(schema: Schema): unknown {
  const s = core(schema);
  if (s.enum) return (s.enum as unknown[])[0];
  if (s.type === 'integer') return Math.max(Number(s.minimum ?? 1), Math.min(Number(s.maximum ?? 2_000_000_000), 2_000_000_000));
  if (s.type === 'boolean') return true;
  if (s.type === 'array') return [plausible((s.items as Schema) ?? { type: 'integer' })];
  if (s.format === 'email') return 'fuzz@example.test';
  if (s.format === 'uri') return 'https://example.test/a.png';
  return 'Fuzz1ng!'.padEnd(Math.max(Number(s.minLength ?? 0), 8), 'x').slice(0, Number(s.maxLength ?? 64));
}

/** Values that break a schema: past its bounds, of the wrong JSON type, or of the wrong shape. */
function broken(schema: Schema): fc.Arbitrary<unknown> {
  const s = core(schema);
  const options: Array<fc.Arbitrary<unknown>> = [
    fc.constant({ nested: { deeper: 1 } }),
    fc.constant(['a', 1]),
    fc.constant(''),
    fc.constant(true),
    fc.double({ noNaN: true }),
    fc.constant('x'.repeat(10_000)),
    fc.string({ unit: 'grapheme', maxLength: 40 }),
    fc.constant(-1),
    fc.constant(2 ** 53),
  ];
  if (typeof s.maxLength === 'number') options.push(fc.constant('é'.repeat(s.maxLength + 1)));
  if (typeof s.minLength === 'number' && s.minLength > 0) options.push(fc.constant('é'.repeat(s.minLength - 1)));
  if (typeof s.minimum === 'number') options.push(fc.constant(s.minimum - 1));
  if (typeof s.maximum === 'number') options.push(fc.constant(s.maximum + 1));
  return fc.oneof(...options);
}

/** A body: each property plausible, broken or missing. */
function bodies(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const props = schema?.properties ?? {};
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(props)) {
    record[name] = fc.oneof({ weight: 2, arbitrary: fc.constant(plausible(prop)) }, { weight: 3, arbitrary: broken(prop) });
  }
  const whole = fc.record(record, { requiredKeys: [] });
  return fc.oneof({ weight: 8, arbitrary: whole }, { weight: 1, arbitrary: fc.constant([1, 2]) }, { weight: 1, arbitrary: fc.constant('text') });
}

const pathValues = fc.constantFrom('2000000000', '0', '-1', 'abc', '1.5', '99999999999999999999', '%20');

interface WriteOperation {
  method: 'post' | 'put' | 'delete';
  template: string;
  body?: Schema;
  public: boolean;
}

function writeOperations(): WriteOperation[] {
  const out: WriteOperation[] = [];
  for (const [template, item] of Object.entries(openApiDocument().paths as Record<string, Record<string, Record<string, unknown>>>)) {
    for (const method of ['post', 'put', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
      out.push({ method, template, body: content?.['application/json']?.schema, public: Array.isArray(op.security) && op.security.length === 0 });
    }
  }
  return out;
}

const isEnvelope = (body: unknown) => {
  const b = body as { status?: unknown; message?: unknown; errors?: unknown };
  if (b?.status !== 'error' || typeof b.message !== 'string') return false;
  if (b.errors === undefined) return true;
  return Array.isArray(b.errors) && b.errors.every((e: { field?: unknown; message?: unknown }) => typeof e.field === 'string' && typeof e.message === 'string');
};

describe('write endpoints under requests made from broken schemas', () => {
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  const operations = writeOperations();
  test('there are write operations to try', () => {
    expect(operations.length).toBeGreaterThan(30);
  });

  test.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.template}`, o] as const))('%s never answers 5xx', async (_name, op) => {
    await fc.assert(
      fc.asyncProperty(bodies(op.body), pathValues, fc.boolean(), async (payload, id, signedIn) => {
        const path = op.template.replace(/\{[^}]+\}/g, id);
        let req = request(ctx.app)[op.method](path);
        if (signedIn || op.public) req = req.set(bearer(admin));
        const res = await req.send(payload as object);
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(isEnvelope(res.body)).toBe(true);
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
