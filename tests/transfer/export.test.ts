import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/lib/logger';
import { TokenService } from '../../src/modules/access';
import { openOwnSeededDb, setupTestContext, type TestContext } from '../helpers/context';
import { contractApp } from '../helpers/openapi';
import { bearer, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { csv, HEADER, importCsv, personRow, tagOf, transferFixture } from './transfer-support';

const ctx = setupTestContext();
const f = transferFixture(ctx);

const COLUMNS = 'name,service_no,email,phone,mobile,alternative_mobile,unit,department,designation,rank,role,status,parent_service_no';

/** GET /api/contacts/export as `caller`, the body kept as bytes. */
function exportFile(app: TestContext['app'], caller: { token: string }, query: Record<string, string | number>) {
  return request(app)
    .get('/api/contacts/export')
    .query(query)
    .set(bearer(caller))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });
}

const rowsOf = (file: Buffer): string[][] => parse(file.toString('utf8'), { bom: true });

/** A tree of `size` contacts in the fixture's unit: a chain `depth` deep, the rest hung at random levels. */
function treeRows(size: number, depth: number): string[][] {
  const tags = Array.from({ length: size }, () => tagOf('RT'));
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  return tags.map((tag, i) => personRow(f, tag, i === 0 ? '' : i < depth ? tags[i - 1] : tags[Math.floor(random() * i)]));
}

describe('GET /api/contacts/export', () => {
  it('streams the filtered set as CSV in depth-first order, in the import\'s columns, as an attachment', async () => {
    const [a, b, c] = [tagOf('EX'), tagOf('EX'), tagOf('EX')];
    expect((await importCsv(ctx, f.admin, csv([HEADER, personRow(f, c, a), personRow(f, b, a), personRow(f, a)]))).status).toBe(200);
    const res = await exportFile(ctx.app, f.user, { unit_id: f.unit.id });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?contacts-\d{4}-\d{2}-\d{2}\.csv"?$/);
    const rows = rowsOf(res.body);
    expect(rows[0].join(',')).toBe(COLUMNS);
    const mine = rows.filter((r) => [a, b, c].includes(r[1]));
    // a first, then its children by name (b's name sorts before c's: tags increase)
    expect(mine.map((r) => r[1])).toEqual([a, b, c]);
    expect(mine[1][12]).toBe(a);
    expect(mine[0][6]).toBe(f.unit.code);
  });

  it('escapes cells a spreadsheet would run as a formula, and the import takes the escape away', async () => {
    const a = tagOf('FX');
    const row = personRow(f, a);
    row[0] = '=HYPERLINK("http://x.test","y")';
    row[3] = '+8801700000000';
    expect((await importCsv(ctx, f.admin, csv([HEADER, row]))).status).toBe(200);
    const res = await exportFile(ctx.app, f.admin, { search: a });
    const exported = rowsOf(res.body).find((r) => r[1] === a)!;
    expect(exported[0]).toBe('\'=HYPERLINK("http://x.test","y")');
    expect(exported[3]).toBe("'+8801700000000");
    // imported back (upsert): the stored values do not change
    const back = await importCsv(ctx, f.admin, csv([COLUMNS.split(','), exported]), '?mode=upsert');
    expect(back.body.data).toMatchObject({ unchanged: 1, updated: 0 });
  });

  it('root_id exports one subtree, the contact first and without its parent; an unknown root_id is 404', async () => {
    const [a, b, c] = [tagOf('SUB'), tagOf('SUB'), tagOf('SUB')];
    expect((await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a), personRow(f, b, a), personRow(f, c, b)]))).status).toBe(200);
    const bId = Number((await ctx.db('users').where({ service_no: b }).first('id')).id);
    const res = await exportFile(ctx.app, f.user, { root_id: bId });
    const rows = rowsOf(res.body).slice(1);
    expect(rows.map((r) => [r[1], r[12]])).toEqual([[b, ''], [c, b]]);
    const missing = await request(ctx.app).get('/api/contacts/export').query({ root_id: 999999999 }).set(bearer(f.user));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('Contact not found');
  });

  it('writes an .xlsx with the same rows', async () => {
    const a = tagOf('XL');
    expect((await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a)]))).status).toBe(200);
    const res = await exportFile(ctx.app, f.user, { format: 'xlsx', search: a });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body);
    const sheet = workbook.getWorksheet('Contacts')!;
    expect((sheet.getRow(1).values as string[]).slice(1).join(',')).toBe(COLUMNS);
    expect(sheet.getRow(2).getCell(2).value).toBe(a);
  });

  it('refuses a bad query (400 naming each field) and a caller without a token (401)', async () => {
    const res = await request(ctx.app).get('/api/contacts/export').query({ format: 'pdf', unit_id: 'x', role_filter: 'boss' }).set(bearer(f.user));
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['format', 'role_filter', 'unit_id']);
    expect((await request(ctx.app).get('/api/contacts/export')).status).toBe(401);
  });

  it('applies the listing\'s filters: department_id and role_filter select the rows', async () => {
    const [dept] = await ctx.db('departments').insert({ unit_id: f.unit.id, name: `Export desk ${tagOf()}`, created_at: new Date(), updated_at: new Date() });
    const deptName = String((await ctx.db('departments').where({ id: dept }).first('name')).name);
    const [a, b] = [tagOf('DF'), tagOf('DF')];
    const withDept = [...personRow(f, a), deptName];
    expect((await importCsv(ctx, f.admin, csv([[...HEADER, 'department'], withDept, [...personRow(f, b), '']]))).status).toBe(200);
    const inDept = rowsOf((await exportFile(ctx.app, f.user, { department_id: Number(dept) })).body).slice(1);
    expect(inDept.map((r) => r[1])).toEqual([a]);
    const admins = rowsOf((await exportFile(ctx.app, f.user, { unit_id: f.unit.id, role_filter: 'admin' })).body).slice(1);
    expect(admins.map((r) => r[1])).toEqual([f.admin.service_no]);
    expect(admins[0][10]).toBe('Admin');
  });

  it('leaves inactive contacts out unless include_inactive=true', async () => {
    const gone = await createUser(ctx, { unit_id: f.unit.id, is_active: false });
    const plain = rowsOf((await exportFile(ctx.app, f.user, { unit_id: f.unit.id })).body);
    expect(plain.some((r) => r[1] === gone.service_no)).toBe(false);
    const all = rowsOf((await exportFile(ctx.app, f.user, { unit_id: f.unit.id, include_inactive: 'true' })).body);
    expect(all.some((r) => r[1] === gone.service_no)).toBe(true);
  });
});

describe('export, then import into an empty directory', () => {
  it('gives back the same tree: a unit of 300 contacts, a chain 40 deep', async () => {
    const rows = treeRows(300, 40);
    const made = await importCsv(ctx, f.superAdmin, csv([HEADER, ...[...rows].reverse()]));
    expect(made.status).toBe(200);
    expect(made.body.data.created).toBe(300);
    const unitId = f.unit.id;
    const file = (await exportFile(ctx.app, f.user, { unit_id: unitId })).body as Buffer;
    const sourceTree = await ctx.db('users as u').leftJoin('users as p', 'p.id', 'u.parent_id').where('u.unit_id', unitId).where('u.is_active', true).orderBy('u.tree_ord').select('u.service_no', 'p.service_no as parent', 'u.depth');

    const target = await openOwnSeededDb('roundtrip');
    try {
      const config = target.config;
      const app = contractApp(createApp({ db: target.db, config, logger: createLogger({ level: 'silent' }) }));
      const tokens = new TokenService(config.jwt);
      const now = new Date();
      // the reference data the file names: the unit and its departments
      const [targetUnit] = await target.db('units').insert({ name: f.unit.name, code: f.unit.code, created_at: now, updated_at: now });
      for (const name of await ctx.db('departments').where({ unit_id: unitId }).pluck('name')) {
        await target.db('departments').insert({ unit_id: Number(targetUnit), name, created_at: now, updated_at: now });
      }
      const admin = await target.db('users').where({ role_id: 1 }).first('id', 'organization_id');
      const token = tokens.signAccess({ id: Number(admin.id), role_name: 'Super_admin', organization_id: Number(admin.organization_id), token_version: 0 });
      const res = await request(app).post('/api/contacts/import').set({ Authorization: `Bearer ${token}` }).attach('file', file, 'contacts.csv');
      expect(res.status).toBe(200);
      expect(res.body.data.created).toBe(sourceTree.length);
      const unit = await target.db('units').where({ code: f.unit.code }).first('id');
      const copied = await target.db('users as u').leftJoin('users as p', 'p.id', 'u.parent_id').where('u.unit_id', unit.id).orderBy('u.tree_ord').select('u.service_no', 'p.service_no as parent', 'u.depth');
      expect(copied.map((r) => [r.service_no, r.parent, Number(r.depth)])).toEqual(sourceTree.map((r) => [r.service_no, r.parent, Number(r.depth)]));
      expect(await treeProblems(target.db)).toEqual([]);
    } finally {
      await target.done();
    }
  });
});
