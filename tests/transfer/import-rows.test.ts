import request from 'supertest';
import { createApp } from '../../src/app';
import { createLogger } from '../../src/lib/logger';
import { TokenService } from '../../src/modules/access';
import { contractApp } from '../helpers/openapi';
import { openOwnSeededDb, setupTestContext } from '../helpers/context';
import { bearer, createUnit, createUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { csv, HEADER, importCsv, personRow, tagOf, transferFixture } from './transfer-support';

const ctx = setupTestContext();
const f = transferFixture(ctx);

const countOf = async (serviceNos: string[]) => Number((await ctx.db('users').whereIn('service_no', serviceNos).count({ n: '*' }))[0].n);

describe('POST /api/contacts/import: row checks, all or nothing', () => {
  it('refuses the whole file (422, nothing written) when one row is wrong, and lists each error with its row, column and message', async () => {
    const [a, b] = [tagOf(), tagOf()];
    const bad = personRow(f, b);
    bad[2] = 'not-an-email';
    bad[4] = 'No such unit';
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a), bad]));
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Import failed: nothing was written');
    expect(res.body.errors).toEqual([
      { row: 3, field: 'email', message: 'Please provide a valid email address' },
      { row: 3, field: 'unit', message: 'Unknown unit: No such unit' },
    ]);
    expect(res.body.report).toMatchObject({ created: 0, failed: 1, errors_total: 2 });
    expect(await countOf([a, b])).toBe(0);
  });

  it('numbers rows as a spreadsheet does: blank lines count, a quoted cell over two lines is one row', async () => {
    const [a, b] = [tagOf(), tagOf()];
    const multiLine = personRow(f, a);
    multiLine[0] = 'Two\r\nLines';
    const bad = personRow(f, b);
    bad[2] = 'not-an-email';
    const text = `${csv([HEADER])}\r\n${csv([multiLine])}${csv([bad])}`;
    const res = await importCsv(ctx, f.admin, text);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 4, field: 'email', message: 'Please provide a valid email address' }]);
  });

  it('names each missing required field of a new contact', async () => {
    const a = tagOf();
    const res = await importCsv(ctx, f.admin, csv([['service_no', 'name'], [a, '']]));
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['designation', 'email', 'name', 'phone', 'unit']);
  });

  it('refuses a service number or e-mail given twice in the file, naming the other row', async () => {
    const a = tagOf();
    const twin = personRow(f, a);
    twin[2] = `other.${a.toLowerCase()}@import.test`;
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a), twin]));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 3, field: 'service_no', message: `Service number ${a} is also on row 2` }]);

    const [b, c] = [tagOf(), tagOf()];
    const sameMail = personRow(f, c);
    sameMail[2] = `${b.toLowerCase()}@import.test`;
    const again = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, b), sameMail]));
    expect(again.body.errors).toEqual([{ row: 3, field: 'email', message: `Email ${b.toLowerCase()}@import.test is also on row 2` }]);
  });

  it('refuses a service number or e-mail that the directory already holds (create mode)', async () => {
    const holder = await createUser(ctx, { unit_id: f.unit.id });
    const a = tagOf();
    const takenMail = personRow(f, a);
    takenMail[2] = holder.email.toUpperCase();
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, holder.service_no), takenMail]));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { row: 2, field: 'service_no', message: 'Service number or email already exists' },
      { row: 3, field: 'email', message: 'Service number or email already exists' },
    ]);
  });

  it('finds a parent among the rows or in the directory, and refuses a parent that is unknown, inactive or in another unit', async () => {
    const boss = await createUser(ctx, { unit_id: f.unit.id });
    const gone = await createUser(ctx, { unit_id: f.unit.id, is_active: false });
    const elsewhere = await createUser(ctx, { unit_id: (await createUnit(ctx)).id });
    const [a, b, c, d] = [tagOf(), tagOf(), tagOf(), tagOf()];
    const res = await importCsv(
      ctx,
      f.admin,
      csv([HEADER, personRow(f, a, boss.service_no), personRow(f, b, 'NOBODY-X'), personRow(f, c, gone.service_no), personRow(f, d, elsewhere.service_no)]),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([
      { row: 3, field: 'parent_service_no', message: 'Parent contact not found: NOBODY-X' },
      { row: 4, field: 'parent_service_no', message: `Parent contact not found: ${gone.service_no}` },
      { row: 5, field: 'parent_service_no', message: 'Parent must belong to the same unit' },
    ]);

    const ok = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a, boss.service_no)]));
    expect(ok.status).toBe(200);
    const row = await ctx.db('users').where({ service_no: a }).first('parent_id');
    expect(Number(row.parent_id)).toBe(boss.id);
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  it('refuses a cycle among the rows on each of its rows, and a row that is its own parent', async () => {
    const [a, b, c, d] = [tagOf(), tagOf(), tagOf(), tagOf()];
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a, c), personRow(f, b, a), personRow(f, c, b), personRow(f, d, d)]));
    expect(res.status).toBe(422);
    const cycle = 'Cannot move a contact under itself or one of its descendants';
    expect(res.body.errors).toEqual([2, 3, 4, 5].map((row) => ({ row, field: 'parent_service_no', message: cycle })));
  });

  it('keeps the privilege ceiling: an Admin cannot import a Super_admin (row error on role)', async () => {
    const a = tagOf();
    const res = await importCsv(ctx, f.admin, csv([[...HEADER, 'role'], [...personRow(f, a), 'Super_admin']]));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'role', message: 'Insufficient permissions to give the role Super_admin' }]);
    const asSuper = await importCsv(ctx, f.superAdmin, csv([[...HEADER, 'role'], [...personRow(f, a), 'super_admin']]));
    expect(asSuper.status).toBe(200);
    expect(Number((await ctx.db('users').where({ service_no: a }).first('role_id')).role_id)).toBe(1);
  });

  it('maps names case-insensitively: unit by code or name, department within the unit, rank, designation, role, status', async () => {
    const dept = String((await ctx.db('departments').insert({ unit_id: f.unit.id, name: 'Import Desk', created_at: new Date(), updated_at: new Date() }))[0]);
    const rank = await ctx.db('ranks').orderBy('id').first('id', 'name');
    const a = tagOf();
    const header = ['Name', 'Service No', 'E Mail', 'PHONE', 'Unit', 'Department', 'Designation', 'rank', 'ROLE', 'Status', 'Mobile', 'Notes'];
    const row = [`Person ${a}`, a, `${a}@Import.Test`, '01700000000', f.unit.name.toUpperCase(), 'import desk', f.designation.toLowerCase(), String(rank.name).toUpperCase(), 'user', 'busy', '01800000000', 'ignored'];
    const res = await importCsv(ctx, f.admin, csv([header, row]));
    expect(res.status).toBe(200);
    expect(res.body.data.ignored_columns).toEqual(['Notes']);
    const stored = await ctx.db('users').where({ service_no: a }).first('email', 'department_id', 'rank_id', 'status', 'mobile');
    expect(stored).toMatchObject({ email: `${a.toLowerCase()}@import.test`, department_id: Number(dept), rank_id: Number(rank.id), status: 'busy', mobile: '01800000000' });
  });
});

describe('POST /api/contacts/import: passwords', () => {
  it('refuses a password column unless the request says passwords=allow', async () => {
    const a = tagOf();
    const res = await importCsv(ctx, f.admin, csv([[...HEADER, 'password'], [...personRow(f, a), 'Str0ngPass']]));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'password', message: 'Passwords in a file are refused unless the request sets passwords=allow' }]);
  });

  it('applies the password rule, and a contact imported with a password can sign in; one without cannot', async () => {
    const [a, b, c] = [tagOf(), tagOf(), tagOf()];
    const weak = await importCsv(ctx, f.admin, csv([[...HEADER, 'password'], [...personRow(f, a), 'weak']]), '?passwords=allow');
    expect(weak.status).toBe(422);
    expect(weak.body.errors[0]).toEqual({ row: 2, field: 'password', message: 'Password must be at least 6 characters' });

    const res = await importCsv(ctx, f.admin, csv([[...HEADER, 'password'], [...personRow(f, b), 'Str0ngPass'], [...personRow(f, c), '']]), '?passwords=allow');
    expect(res.status).toBe(200);
    const signIn = (email: string, password: string) => request(ctx.app).post('/api/auth/login').send({ email, password });
    expect((await signIn(`${b.toLowerCase()}@import.test`, 'Str0ngPass')).status).toBe(200);
    expect((await signIn(`${c.toLowerCase()}@import.test`, 'Str0ngPass')).status).toBe(401);
    const stored = await ctx.db('users').where({ service_no: c }).first('password_hash');
    expect(stored.password_hash).toBeNull();
  });
});

describe('POST /api/contacts/import: dry run and upsert', () => {
  it('dry_run=true checks every row and writes nothing', async () => {
    const [a, b] = [tagOf(), tagOf()];
    const before = await ctx.db('directory_state').first('version', 'search_version');
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, b, a), personRow(f, a)]), '?dry_run=true');
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('Import checked: nothing was written');
    expect(res.body.data).toMatchObject({ dry_run: true, created: 2, failed: 0 });
    expect(await countOf([a, b])).toBe(0);
    expect(await ctx.db('directory_state').first('version', 'search_version')).toEqual(before);

  });

  it('a dry run whose rows fail answers 422 Import failed: nothing was written, with the body of the real run', async () => {
    const b = tagOf();
    const file = csv([HEADER, personRow(f, b, 'NOBODY-Y')]);
    const dry = await importCsv(ctx, f.admin, file, '?dry_run=1');
    expect(dry.status).toBe(422);
    expect(dry.body.message).toBe('Import failed: nothing was written');
    expect(dry.body.errors).toEqual([{ row: 2, field: 'parent_service_no', message: 'Parent contact not found: NOBODY-Y' }]);
    expect(dry.body.report).toEqual({ mode: 'create', dry_run: true, created: 0, updated: 0, unchanged: 0, failed: 1, errors_total: 1, ignored_columns: [] });

    const real = await importCsv(ctx, f.admin, file);
    expect(real.status).toBe(422);
    expect({ ...real.body, report: { ...real.body.report, dry_run: true } }).toEqual(dry.body);
    expect(await countOf([b])).toBe(0);
  });

  it('mode=upsert updates existing contacts, creates new ones and counts unchanged rows; create mode refuses the existing ones', async () => {
    const [a, b, c] = [tagOf(), tagOf(), tagOf()];
    expect((await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a), personRow(f, b, a)]))).status).toBe(200);
    const renamed = personRow(f, a);
    renamed[0] = `Renamed ${a}`;
    const moved = personRow(f, b); // b becomes a root
    const res = await importCsv(ctx, f.admin, csv([HEADER, renamed, moved, personRow(f, c, b)]), '?mode=upsert');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ mode: 'upsert', created: 1, updated: 2, unchanged: 0 });
    const rows = await ctx.db('users').whereIn('service_no', [a, b, c]).select('id', 'service_no', 'name', 'parent_id');
    const by = (sn: string) => rows.find((r) => r.service_no === sn)!;
    expect(by(a).name).toBe(`Renamed ${a}`);
    expect(by(b).parent_id).toBeNull();
    expect(Number(by(c).parent_id)).toBe(Number(by(b).id));
    expect(await treeProblems(ctx.db)).toEqual([]);

    const again = await importCsv(ctx, f.admin, csv([HEADER, renamed, moved]), '?mode=upsert');
    expect(again.body.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
  });

  it('upsert keeps the rules of an update: an Admin cannot change a Super_admin, nor set an existing contact\'s password', async () => {
    const top = await createUser(ctx, { role: 'Super_admin', unit_id: f.unit.id });
    const row = personRow(f, top.service_no);
    row[2] = top.email;
    const res = await importCsv(ctx, f.admin, csv([HEADER, row]), '?mode=upsert');
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'service_no', message: 'Insufficient permissions to change this contact' }]);

    const plain = await createUser(ctx, { unit_id: f.unit.id });
    const withPassword = [...personRow(f, plain.service_no), 'Str0ngPass'];
    withPassword[2] = plain.email;
    const pw = await importCsv(ctx, f.admin, csv([[...HEADER, 'password'], withPassword]), '?mode=upsert&passwords=allow');
    expect(pw.status).toBe(422);
    expect(pw.body.errors[0].field).toBe('password');
  });

  it('upsert can swap a parent and its child (the file\'s tree, applied parents first)', async () => {
    const [a, b] = [tagOf(), tagOf()];
    expect((await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a), personRow(f, b, a)]))).status).toBe(200);
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, a, b), personRow(f, b, '')]), '?mode=upsert');
    expect(res.status).toBe(200);
    const rows = await ctx.db('users').whereIn('service_no', [a, b]).select('id', 'service_no', 'parent_id');
    const by = (sn: string) => rows.find((r) => r.service_no === sn)!;
    expect(by(b).parent_id).toBeNull();
    expect(Number(by(a).parent_id)).toBe(Number(by(b).id));
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  it('a contact created by an import is found by the search, with one search-version change for the whole file', async () => {
    const tags = Array.from({ length: 5 }, () => tagOf('SRCH'));
    // the statements this app sends (other test files may change the version of a shared database meanwhile)
    const bumps: string[] = [];
    const watch = (q: { sql: string }) => {
      if (/update\s+`?directory_state`?\s+set\s+`?search_version`?/i.test(q.sql)) bumps.push(q.sql);
    };
    ctx.db.on('query', watch);
    try {
      expect((await importCsv(ctx, f.admin, csv([HEADER, ...tags.map((t) => personRow(f, t))]))).status).toBe(200);
    } finally {
      ctx.db.off('query', watch);
    }
    expect(bumps).toHaveLength(1);
    const found = await request(ctx.app).get('/api/contacts/search').query({ q: tags[3] }).set(bearer(f.admin));
    expect(found.body.data.contacts.map((c: { service_no: string }) => c.service_no)).toEqual([tags[3]]);
  });
});

describe('POST /api/contacts/import: 10,000 rows with passwords', () => {
  // a database of its own: the import holds the directory lock for seconds, which on a shared
  // MySQL database would hold up the other test files' writes
  it('hashes every password and finishes, while other requests are answered before it ends', async () => {
    const own = await openOwnSeededDb('passwords');
    try {
      const app = contractApp(createApp({ db: own.db, config: own.config, logger: createLogger({ level: 'silent' }) }));
      const admin = await own.db('users').where({ role_id: 1 }).first('id', 'organization_id');
      const token = new TokenService(own.config.jwt).signAccess({ id: Number(admin.id), role_name: 'Super_admin', organization_id: Number(admin.organization_id), token_version: 0 });
      const auth = { Authorization: `Bearer ${token}` };
      const now = new Date();
      await own.db('units').insert({ name: 'Password unit', code: 'PW-UNIT', created_at: now, updated_at: now });
      const designation = String((await own.db('designations').orderBy('id').first('name')).name);
      const tags = Array.from({ length: 10_000 }, (_, i) => `PW-${i}`);
      const rows = tags.map((t) => [`Person ${t}`, t, `${t.toLowerCase()}@import.test`, '01700000000', 'PW-UNIT', designation, '', `Pw${t}aZ9`]);
      const text = csv([[...HEADER, 'password'], ...rows]);
      let importDone = false;
      const importing = request(app)
        .post('/api/contacts/import?passwords=allow')
        .set(auth)
        .attach('file', Buffer.from(text), 'contacts.csv')
        .then((res) => {
          importDone = true;
          return res;
        });
      // a read sent after the import started is answered before the import ends
      const read = await request(app).get(`/api/contacts/${admin.id}`).set(auth);
      expect(read.status).toBe(200);
      expect(importDone).toBe(false);
      const res = await importing;
      expect(res.status).toBe(200);
      expect(res.body.data.created).toBe(10_000);
      const hashes = await own.db('users').whereIn('service_no', [tags[0], tags[9_999]]).pluck('password_hash');
      expect(hashes).toHaveLength(2);
      expect(hashes.every((h) => typeof h === 'string' && h.startsWith('$2'))).toBe(true);
    } finally {
      await own.done();
    }
  }, 120_000);
});
