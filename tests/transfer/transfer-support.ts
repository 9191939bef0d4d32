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
