import { readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';

/** Shared pieces of the import and export tests: a unit of the file's own, an admin, CSV builders. */

export const HEADER = ['name', 'service_no', 'email', 'phone', 'unit', 'designation', 'parent_service_no'];

export interface TransferFixture {
  admin: TestUser;
  superAdmin: TestUser;
  user: TestUser;
  unit: { id: number; name: string; code: string };
  designation: string;
}

export function transferFixture(ctx: TestContext): TransferFixture {
  const made = {} as TransferFixture;
  beforeAll(async () => {
    const unit = await createUnit(ctx);
    const code = String((await ctx.db('units').where({ id: unit.id }).first('code')).code);
    made.unit = { ...unit, code };
    made.admin = await createUser(ctx, { role: 'Admin', unit_id: unit.id });
    made.superAdmin = await createUser(ctx, { role: 'Super_admin' });
    made.user = await createUser(ctx);
    made.designation = String((await ctx.db('designations').orderBy('id').first('name')).name);
  });
  return made;
}

/** A CSV text: a header and rows, each cell quoted when it must be. */
export function csv(rows: ReadonlyArray<ReadonlyArray<string>>, delimiter = ','): string {
  const cell = (c: string) => (/[",;\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c);
  return rows.map((r) => r.map(cell).join(delimiter)).join('\r\n') + '\r\n';
}

/** A valid row of HEADER for the fixture's unit; `parent` by service number. */
export function personRow(f: TransferFixture, tag: string, parent = ''): string[] {
  return [`Person ${tag}`, tag, `${tag.toLowerCase()}@import.test`, '01700000000', f.unit.code, f.designation, parent];
}

/** A fresh service number tag, unique across the run. */
export const tagOf = (prefix = 'IM') => unique(prefix).slice(0, 40);

export function importCsv(ctx: TestContext, caller: TestUser, text: string, query = '') {
  return request(ctx.app)
    .post(`/api/contacts/import${query}`)
    .set(bearer(caller))
    .attach('file', Buffer.from(text), { filename: 'contacts.csv', contentType: 'text/csv' });
}

/** Uploads `body` as the multipart part `file`, under the name and type given (a name or a type can lie). */
export function importFile(
  ctx: TestContext,
  caller: TestUser,
  body: Buffer | string,
  file: { filename: string; contentType?: string } = { filename: 'contacts.csv', contentType: 'text/csv' },
  query = '',
) {
  return request(ctx.app)
    .post(`/api/contacts/import${query}`)
    .set(bearer(caller))
    .attach('file', Buffer.from(body), { filename: file.filename, contentType: file.contentType ?? 'application/octet-stream' });
}

/** Sends `body` as the raw request body, with its Content-Type (text/csv unless told). */
export function importRaw(ctx: TestContext, caller: TestUser, body: Buffer | string, contentType = 'text/csv', query = '') {
  return request(ctx.app).post(`/api/contacts/import${query}`).set(bearer(caller)).set('Content-Type', contentType).send(Buffer.from(body));
}

/** A supertest parser that keeps a binary response as it came: `res.body` is a Buffer. */
export function binaryBody(res: request.Response, done: (err: Error | null, body: Buffer) => void): void {
  const stream = res as unknown as NodeJS.ReadableStream; // in Node, superagent hands the parser the response stream
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
}

/** How many contacts the fixture's unit holds: an import that is refused leaves it as it was. */
export async function unitSize(ctx: TestContext, f: TransferFixture): Promise<number> {
  const row = await ctx.db('users').where({ unit_id: f.unit.id }).count({ n: '*' }).first();
  return Number(row?.n);
}

/** The service numbers among `serviceNos` that some contact holds. */
export async function takenServiceNos(ctx: TestContext, serviceNos: readonly string[]): Promise<string[]> {
  const rows = await ctx.db('users').whereIn('service_no', [...serviceNos]).select('service_no');
  return rows.map((r: { service_no: string }) => r.service_no);
}

/** A response is the error envelope, `{ status: 'error', message, errors? }`, and nothing else. */
export function expectErrorEnvelope(res: { status: number; type: string; body: Record<string, unknown> }, status: number, message?: string | RegExp): void {
  expect(res.status).toBe(status);
  expect(res.type).toBe('application/json');
  expect(res.body.status).toBe('error');
  expect(typeof res.body.message).toBe('string');
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else if (message) expect(res.body.message).toMatch(message);
  expect(Object.keys(res.body).filter((k) => !['status', 'message', 'errors'].includes(k))).toEqual([]);
  if ('errors' in res.body) {
    expect(Array.isArray(res.body.errors)).toBe(true);
    for (const e of res.body.errors as unknown[]) expect(e).toEqual({ field: expect.any(String), message: expect.any(String) });
  }
}

/** A 400 Validation failed on the one field `file`, with a message that matches `message`. */
export function expectFileRefused(res: { status: number; type: string; body: Record<string, unknown> }, message: RegExp): void {
  expectErrorEnvelope(res, 400, 'Validation failed');
  expect(res.body.errors).toEqual([{ field: 'file', message: expect.stringMatching(message) }]);
}

/**
 * The links of this process's open files that an import wrote to the temporary directory: a
 * streamed workbook (zip-source.ts) or a large file's rows (spill-file.ts). Each is unlinked
 * once open, so none should be left open once its import has ended.
 */
export function openTemporaryFiles(): string[] {
  return readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const link = readlinkSync(`/proc/self/fd/${fd}`);
      return link.includes(`${path.sep}directory-import-`) ? [link] : [];
    } catch {
      return []; // the descriptor readdirSync itself had open
    }
  });
}
