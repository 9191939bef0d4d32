import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import { parse } from 'csv-parse/sync';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, unique } from '../helpers/factory';
import {
  binaryBody,
  csv,
  expectErrorEnvelope,
  expectFileRefused,
  HEADER,
  importCsv,
  importFile,
  importRaw,
  personRow,
  tagOf,
  takenServiceNos,
  transferFixture,
  unitSize,
} from './transfer-support';

/**
 * POST /api/contacts/import with files and requests it must refuse: each is a clear 4xx in the
 * error envelope (never a 500), and writes nothing. Then the files it must take (`;`, a BOM,
 * .xlsx), and the import template. The limits set by IMPORT_MAX_BYTES and IMPORT_MAX_ROWS are in
 * import-limits.test.ts.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const f = transferFixture(ctx);

const TEMPLATE_HEADER = 'name,service_no,email,phone,mobile,alternative_mobile,unit,department,designation,rank,role,status,parent_service_no';
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A valid CSV of one new contact of the fixture's unit, and its service number. */
function oneContact(): { sn: string; text: string } {
  const sn = tagOf();
  return { sn, text: csv([HEADER, personRow(f, sn)]) };
}

/** An .xlsx workbook with one sheet holding `rows`, built by exceljs. */
async function xlsxOf(rows: ReadonlyArray<ReadonlyArray<string>>): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Contacts');
  for (const row of rows) sheet.addRow([...row]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A zip archive of `files`, stored without compression: a valid zip that need not be a workbook. */
function zipOf(files: Record<string, string>): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const [path, data] = [Buffer.from(name), Buffer.from(content)];
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(path.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(path.length, 28);
    central.writeUInt32LE(offset, 42);
    parts.push(local, path, data);
    directory.push(central, path);
    offset += local.length + path.length + data.length;
  }
  const centralDirectory = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, centralDirectory, end]);
}

/**
 * Runs `send` and checks that the import wrote nothing: the fixture's unit holds as many
 * contacts as before, and none of `serviceNos` exists.
 */
async function writesNothing<T>(serviceNos: readonly string[], send: () => Promise<T>): Promise<T> {
  const before = await unitSize(ctx, f);
  const res = await send();
  expect(await unitSize(ctx, f)).toBe(before);
  expect(await takenServiceNos(ctx, serviceNos)).toEqual([]);
  return res;
}

describe('a file that is not a readable CSV or .xlsx', () => {
  it('refuses a corrupt zip (PK\\x03\\x04 then garbage) as 400 on field file: not a readable .xlsx', async () => {
    const garbage = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.from(unique('garbage-').repeat(40))]);
    const res = await writesNothing([], () => importFile(ctx, f.admin, garbage, { filename: 'contacts.xlsx', contentType: XLSX }));
    expectFileRefused(res, /not a readable \.xlsx/);
  });

  it('refuses a truncated .xlsx (the first half of a valid workbook) as 400 on field file', async () => {
    const sn = tagOf();
    const whole = await xlsxOf([HEADER, personRow(f, sn)]);
    const res = await writesNothing([sn], () =>
      importFile(ctx, f.admin, whole.subarray(0, Math.floor(whole.length / 2)), { filename: 'contacts.xlsx', contentType: XLSX }),
    );
    expectFileRefused(res, /not a readable \.xlsx/);
  });

  test.each([
    ['only the four bytes PK\\x03\\x04', () => Buffer.from([0x50, 0x4b, 0x03, 0x04])],
    ['a valid zip that holds a text file, not a workbook', () => zipOf({ 'contacts.csv': 'name,service_no\r\nSome One,X1\r\n' })],
    ['a zip whose workbook parts are not XML', () => zipOf({ '[Content_Types].xml': '<Types', 'xl/workbook.xml': '<<<', 'xl/_rels/workbook.xml.rels': '>>' })],
  ])('refuses %s, sent as .xlsx, as 400 on field file', async (_label, bytes) => {
    const res = await writesNothing([], () => importFile(ctx, f.admin, bytes(), { filename: 'contacts.xlsx', contentType: XLSX }));
    expectFileRefused(res, /./);
  });

  it('refuses an .xlsx whose first sheet has 10,000 columns as 400 on field file', async () => {
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet('Contacts').addRow([...HEADER, ...Array.from({ length: 10_000 - HEADER.length }, (_, i) => `extra${i}`)]);
    const res = await writesNothing([], async () =>
      importFile(ctx, f.admin, Buffer.from(await workbook.xlsx.writeBuffer()), { filename: 'contacts.xlsx', contentType: XLSX }),
    );
    expectFileRefused(res, /Row 1 has 10000 cells; at most 100/);
  });

  it('refuses an .xlsx with a 1 MB cell as 400 on field file', async () => {
    const sn = tagOf();
    const row = personRow(f, sn);
    row[0] = 'N'.repeat(1024 * 1024);
    const res = await writesNothing([sn], async () => importFile(ctx, f.admin, await xlsxOf([HEADER, row]), { filename: 'contacts.xlsx', contentType: XLSX }));
    expectFileRefused(res, /Row 2 has a cell longer than 1000 characters/);
  });

  it('refuses an .xlsx without a sheet as 400 on field file: The workbook has no rows on its first sheet', async () => {
    const res = await writesNothing([], async () =>
      importFile(ctx, f.admin, Buffer.from(await new ExcelJS.Workbook().xlsx.writeBuffer()), { filename: 'contacts.xlsx', contentType: XLSX }),
    );
    expectFileRefused(res, /^The workbook has no rows on its first sheet$/);
  });

  test.each([
    ['a UTF-16LE text (with NUL bytes)', () => Buffer.from('\ufeffname,service_no\r\nSome One,X1\r\n', 'utf16le')],
    ['a PNG image', () => Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])],
    ['Latin-1 text (invalid UTF-8)', () => Buffer.from('name,service_no,email\r\nJos\xe9 P\xe9rez,X1,jose@import.test\r\n', 'latin1')],
    ['a lone UTF-8 continuation byte', () => Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0x80, 0x0a])],
    ['a surrogate encoded as UTF-8 (CESU-8)', () => Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xed, 0xa0, 0x80, 0x0a])],
  ])('refuses %s renamed .csv as 415', async (_label, bytes) => {
    const res = await writesNothing([], () => importFile(ctx, f.admin, bytes()));
    expectErrorEnvelope(res, 415, 'Unsupported file type: send a .csv file (UTF-8 text) or an .xlsx workbook');
  });

  it('refuses an Excel 97-2003 .xls (OLE header D0 CF 11 E0) as 415, naming the format', async () => {
    const ole = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504, 0)]);
    const res = await writesNothing([], () => importFile(ctx, f.admin, ole, { filename: 'contacts.xls', contentType: 'application/vnd.ms-excel' }));
    expectErrorEnvelope(res, 415, /Excel 97-2003 \.xls/);
  });

  it('refuses an empty file as 400 on field file: The file is empty', async () => {
    const res = await writesNothing([], () => importFile(ctx, f.admin, Buffer.alloc(0)));
    expectFileRefused(res, /^The file is empty$/);
  });

  test.each([
    ['a UTF-8 BOM and nothing else', '\ufeff'],
    ['blank lines', '\r\n\r\n\r\n'],
  ])('refuses a file of %s as 400 on field file: The file is empty', async (_label, text) => {
    const res = await writesNothing([], () => importCsv(ctx, f.admin, text));
    expectFileRefused(res, /^The file is empty$/);
  });

  it('refuses a file of lines of spaces and tabs as 400 on field file', async () => {
    const res = await writesNothing([], () => importCsv(ctx, f.admin, '   \r\n\t\t\r\n  \t \r\n'));
    expectFileRefused(res, /The file is empty|names no known column/);
  });

  it('refuses a file of a header and no rows as 400 on field file', async () => {
    const res = await writesNothing([], () => importCsv(ctx, f.admin, csv([HEADER])));
    expectFileRefused(res, /^The file has a header but no rows$/);
  });

  it('refuses a CSV with an unclosed quote as 400 on field file, naming the problem', async () => {
    const sn = tagOf();
    const text = `${HEADER.join(',')}\r\n"Person ${sn},${sn},${sn.toLowerCase()}@import.test,01700000000,${f.unit.code},${f.designation},\r\n`;
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, text));
    expectFileRefused(res, /a quoted cell is not closed/);
  });
});

describe('a header or a size the import refuses', () => {
  it('refuses a header with no known column as 400 on field file', async () => {
    const res = await writesNothing([], () => importCsv(ctx, f.admin, csv([['nickname', 'number', 'place'], ['Some One', 'X1', 'Dhaka']])));
    expectFileRefused(res, /names no known column/);
  });

  test.each([
    ['Service No', 'service_no'],
    ['SERVICE_NO', 'service_no'],
    [' Name ', 'name'],
    ['E mail', 'email'],
  ])('refuses a header holding %j beside the column %s (one column twice) as 400 on field file', async (second, column) => {
    const sn = tagOf();
    const rows = [[...HEADER, second], [...personRow(f, sn), 'again']];
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, csv(rows)));
    expectFileRefused(res, new RegExp(`^The header names the column ${column} twice$`));
  });

  it('refuses a header of 10,000 columns as 400 on field file', async () => {
    const sn = tagOf();
    const extra = Array.from({ length: 10_000 - HEADER.length }, (_, i) => `extra${i}`);
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, csv([[...HEADER, ...extra], personRow(f, sn)])));
    expectFileRefused(res, /has 10000 columns; at most 100/);
  });

  it('refuses a data row of 10,000 cells under a valid header as 400 on field file', async () => {
    const sn = tagOf();
    const cells = [...personRow(f, sn), ...Array.from({ length: 10_000 - HEADER.length }, () => 'x')];
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, csv([HEADER, cells])));
    expectFileRefused(res, /Row 2 has 10000 cells; at most 100/);
  });

  test.each([
    ['1 MB', 1024 * 1024],
    ['1001 characters', 1001],
  ])('refuses a cell of %s (over 1000 characters) as 400 on field file', async (_label, length) => {
    const sn = tagOf();
    const row = personRow(f, sn);
    row[0] = 'N'.repeat(length);
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, csv([HEADER, row])));
    expectFileRefused(res, /Row 2 has a cell longer than 1000 characters/);
  });

  it('takes a cell of exactly 1000 characters past the file check (its row error is the name rule, a 422)', async () => {
    const sn = tagOf();
    const row = personRow(f, sn);
    row[0] = 'N'.repeat(1000);
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, csv([HEADER, row])));
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ row: 2, field: 'name', message: 'Name must be between 2 and 255 characters' }]);
  });
});

describe('a request without a file', () => {
  it('refuses a JSON body as 415', async () => {
    const sn = tagOf();
    const res = await writesNothing([sn], () =>
      request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).send({ file: csv([HEADER, personRow(f, sn)]) }),
    );
    expectErrorEnvelope(res, 415, /Unsupported media type/);
  });

  it('refuses a request with no body as 415', async () => {
    const res = await writesNothing([], () => request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)));
    expectErrorEnvelope(res, 415, /Unsupported media type/);
  });

  it('refuses a body of another type (application/xml) as 415', async () => {
    const res = await writesNothing([], () => importRaw(ctx, f.admin, '<contacts/>', 'application/xml'));
    expectErrorEnvelope(res, 415, /Unsupported media type/);
  });

  it('refuses a multipart body without a file part as 400 on field file', async () => {
    const res = await writesNothing([], () => request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).field('note', 'no file here'));
    expectFileRefused(res, /A file is required/);
  });

  it('refuses a file under another field name than file as 400 on field file', async () => {
    const { sn, text } = oneContact();
    const res = await writesNothing([sn], () =>
      request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).attach('upload', Buffer.from(text), { filename: 'contacts.csv', contentType: 'text/csv' }),
    );
    expectFileRefused(res, /The upload is not valid/);
  });

  it('refuses two files in the part file as 400 on field file', async () => {
    const [a, b] = [oneContact(), oneContact()];
    const res = await writesNothing([a.sn, b.sn], () =>
      request(ctx.app)
        .post('/api/contacts/import')
        .set(bearer(f.admin))
        .attach('file', Buffer.from(a.text), { filename: 'a.csv', contentType: 'text/csv' })
        .attach('file', Buffer.from(b.text), { filename: 'b.csv', contentType: 'text/csv' }),
    );
    expectFileRefused(res, /The upload is not valid/);
  });

  it('refuses a multipart body without a boundary as 400 on field file', async () => {
    const res = await writesNothing([], () => importRaw(ctx, f.admin, 'name,service_no\r\n', 'multipart/form-data'));
    expectFileRefused(res, /multipart body cannot be read/);
  });

  it('refuses a truncated multipart body as 400 on field file', async () => {
    const { sn, text } = oneContact();
    const body = `--XYZ\r\nContent-Disposition: form-data; name="file"; filename="contacts.csv"\r\nContent-Type: text/csv\r\n\r\n${text}`;
    const res = await writesNothing([sn], () => importRaw(ctx, f.admin, body, 'multipart/form-data; boundary=XYZ'));
    expectFileRefused(res, /multipart body cannot be read/);
  });
});

describe('query parameters', () => {
  test.each([
    ['dry_run', 'maybe', 'dry_run must be true or false'],
    ['mode', 'merge', 'mode must be one of: create, upsert'],
    ['passwords', 'yes', 'passwords must be one of: allow, refuse'],
  ])('refuses %s=%s as 400 Validation failed on that field', async (key, value, message) => {
    const { sn, text } = oneContact();
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, text, `?${key}=${value}`));
    expectErrorEnvelope(res, 400, 'Validation failed');
    expect(res.body.errors).toEqual([{ field: key, message }]);
  });

  it('names each bad field at once: dry_run=maybe&mode=merge&passwords=yes', async () => {
    const { sn, text } = oneContact();
    const res = await writesNothing([sn], () => importCsv(ctx, f.admin, text, '?dry_run=maybe&mode=merge&passwords=yes'));
    expectErrorEnvelope(res, 400, 'Validation failed');
    expect((res.body.errors as Array<{ field: string }>).map((e) => e.field).sort()).toEqual(['dry_run', 'mode', 'passwords']);
  });
});

describe('who may import', () => {
  it('refuses a User (no contacts.import) with 403 Insufficient permissions', async () => {
    const { sn, text } = oneContact();
    const res = await writesNothing([sn], () => importCsv(ctx, f.user, text));
    expectErrorEnvelope(res, 403, 'Insufficient permissions');
  });

  it('refuses a request without a token with 401', async () => {
    const { sn, text } = oneContact();
    const res = await writesNothing([sn], () =>
      request(ctx.app).post('/api/contacts/import').attach('file', Buffer.from(text), { filename: 'contacts.csv', contentType: 'text/csv' }),
    );
    expectErrorEnvelope(res, 401);
  });
});

describe('files it takes', () => {
  it('imports a CSV delimited by ; (200, created 1)', async () => {
    const sn = tagOf();
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, sn)], ';'));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0, errors: [], ignored_columns: [] });
    expect(await takenServiceNos(ctx, [sn])).toEqual([sn]);
  });

  it('imports a CSV that starts with a UTF-8 BOM (200, created 1; the first column is still name)', async () => {
    const sn = tagOf();
    const res = await importCsv(ctx, f.admin, `\ufeff${csv([HEADER, personRow(f, sn)])}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0, errors: [], ignored_columns: [] });
    const row = await ctx.db('users').where({ service_no: sn }).first('name');
    expect(row.name).toBe(`Person ${sn}`);
  });

  it('imports a UTF-8 BOM, ; delimited CSV (as Excel saves one) with 200, created 1', async () => {
    const sn = tagOf();
    const res = await importCsv(ctx, f.admin, `\ufeff${csv([HEADER, personRow(f, sn)], ';')}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0 });
    expect(await takenServiceNos(ctx, [sn])).toEqual([sn]);
  });

  it('imports a CSV whose header ends in CRLF and its rows in LF one row per line (200, created 2), never merging rows', async () => {
    const [a, b] = [tagOf(), tagOf()];
    const line = (sn: string, name: string) => [name, sn, `${sn.toLowerCase()}@import.test`, '01700000000', f.unit.code, f.designation, '017'].join(',');
    const text = `name,service_no,email,phone,unit,designation,mobile\r\n${line(a, 'Al')}\n${line(b, 'Bo')}\n`;
    const res = await importCsv(ctx, f.admin, text);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, failed: 0 });
    const rows = await ctx.db('users').whereIn('service_no', [a, b]).orderBy('name').select('name', 'mobile');
    expect(rows).toEqual([{ name: 'Al', mobile: '017' }, { name: 'Bo', mobile: '017' }]);
  });

  it('imports an .xlsx built by exceljs (200, created 1)', async () => {
    const sn = tagOf();
    const file = await xlsxOf([HEADER, personRow(f, sn)]);
    const res = await importFile(ctx, f.admin, file, { filename: 'contacts.xlsx', contentType: XLSX });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0, errors: [] });
    const row = await ctx.db('users').where({ service_no: sn }).first('name', 'email', 'unit_id');
    expect(row).toMatchObject({ name: `Person ${sn}`, email: `${sn.toLowerCase()}@import.test` });
    expect(Number(row.unit_id)).toBe(f.unit.id);
  });
});

describe('a text/csv body sent compressed (Content-Encoding, as express.raw took it)', () => {
  const send = (body: Buffer, encoding: string) =>
    request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).set('Content-Type', 'text/csv').set('Content-Encoding', encoding).send(body);

  test.each([
    ['gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateSync(b)],
    ['br', (b: Buffer) => zlib.brotliCompressSync(b)],
    ['identity', (b: Buffer) => b],
  ])('imports a body sent with Content-Encoding: %s (200, created 1)', async (encoding, compress) => {
    const sn = tagOf();
    const res = await send(compress(Buffer.from(csv([HEADER, personRow(f, sn)]))), encoding);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0 });
    expect(await takenServiceNos(ctx, [sn])).toEqual([sn]);
  });

  test.each(['compress', 'gzip, br', 'constructor'])('refuses Content-Encoding: %s as 415, naming the encoding', async (encoding) => {
    const res = await send(Buffer.from(csv([HEADER, personRow(f, tagOf())])), encoding);
    expectErrorEnvelope(res, 415, `Unsupported content encoding "${encoding}"`);
  });

  it('refuses a gzip body that cannot be inflated as 400 on field file, and writes nothing', async () => {
    const sn = tagOf();
    const whole = zlib.gzipSync(Buffer.from(csv([HEADER, personRow(f, sn)])));
    const res = await send(Buffer.concat([whole.subarray(0, 20), Buffer.from('not deflate data at all')]), 'gzip');
    expectErrorEnvelope(res, 400, 'Validation failed');
    expect(res.body.errors).toEqual([{ field: 'file', message: 'The request body cannot be inflated' }]);
    expect(await takenServiceNos(ctx, [sn])).toEqual([]);
  });
});

describe('GET /api/contacts/import/template', () => {
  const template = (format: string, caller = f.admin) =>
    request(ctx.app).get(`/api/contacts/import/template?format=${format}`).set(bearer(caller)).buffer(true).parse(binaryBody);

  it('format=csv is a text/csv attachment whose first line, after a BOM, is the header', async () => {
    const res = await template('csv');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?contacts-import-template-\d{4}-\d{2}-\d{2}\.csv"?$/);
    const bytes = res.body as Buffer;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString('utf8').split(/\r?\n/);
    expect(lines[0]).toBe(TEMPLATE_HEADER);
  });

  it("format=csv is importable: its example row, with a fresh service number and e-mail, imports with 200", async () => {
    const res = await template('csv');
    const [header, example] = parse(res.body as Buffer, { bom: true }) as string[][];
    expect(header.join(',')).toBe(TEMPLATE_HEADER);
    const sn = tagOf('TPL');
    const row = [...example];
    row[header.indexOf('service_no')] = sn;
    row[header.indexOf('email')] = `${sn.toLowerCase()}@import.test`;
    const imported = await importCsv(ctx, f.admin, csv([header, row]));
    expect(imported.status).toBe(200);
    expect(imported.body.data).toMatchObject({ created: 1, failed: 0, errors: [], ignored_columns: [] });
    expect(await takenServiceNos(ctx, [sn])).toEqual([sn]);
  });

  it('format=xlsx has the sheets Contacts and Lists; Lists holds the units, Contacts validates against the lists', async () => {
    const res = await template('xlsx');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/vnd\.openxmlformats-officedocument\.spreadsheetml\.sheet/);
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?contacts-import-template-\d{4}-\d{2}-\d{2}\.xlsx"?$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.body as Parameters<ExcelJS.Xlsx['load']>[0]);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Contacts', 'Lists']);

    const contacts = workbook.getWorksheet('Contacts')!;
    expect((contacts.getRow(1).values as unknown[]).slice(1).join(',')).toBe(TEMPLATE_HEADER);

    const lists = workbook.getWorksheet('Lists')!;
    const unitColumn = (lists.getColumn(1).values as unknown[]).slice(1).map(String);
    expect(unitColumn[0]).toBe('unit');
    expect(unitColumn).toContain(f.unit.code);

    const validations = (contacts as unknown as { dataValidations: { model: Record<string, ExcelJS.DataValidation> } }).dataValidations.model;
    const letter = (column: string) => contacts.getColumn(TEMPLATE_HEADER.split(',').indexOf(column) + 1).letter;
    for (const column of ['unit', 'department', 'designation', 'rank', 'role', 'status']) {
      const validation = validations[`${letter(column)}2`];
      expect(validation).toMatchObject({ type: 'list', allowBlank: true, formulae: [expect.stringMatching(/^Lists!\$[A-Z]+\$2:\$[A-Z]+\$\d+$/)] });
    }
    expect(validations[`${letter('unit')}2`].formulae).toEqual([`Lists!$A$2:$A$${unitColumn.length}`]);
    expect(validations[`${letter('name')}2`]).toBeUndefined();
  });

  it('refuses format=pdf as 400 Validation failed on format', async () => {
    const res = await request(ctx.app).get('/api/contacts/import/template?format=pdf').set(bearer(f.admin));
    expectErrorEnvelope(res, 400, 'Validation failed');
    expect(res.body.errors).toEqual([{ field: 'format', message: 'format must be one of: csv, xlsx' }]);
  });

  it('refuses a User with 403 Insufficient permissions', async () => {
    const res = await request(ctx.app).get('/api/contacts/import/template?format=csv').set(bearer(f.user));
    expectErrorEnvelope(res, 403, 'Insufficient permissions');
  });
});
