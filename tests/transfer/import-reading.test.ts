import { Readable } from 'node:stream';
import type { Knex } from 'knex';
import ExcelJS from 'exceljs';
import { mapHeader } from '../../src/modules/transfer/columns';
import { Parents } from '../../src/modules/transfer/import.parents';
import { passwordsOf, readRows } from '../../src/modules/transfer/import.rows';
import { KeyTable } from '../../src/lib/key-table';
import { TimeSlices } from '../../src/lib/yield';
import { readSheet } from '../../src/modules/transfer/sheet';
import { setupTestContext } from '../helpers/context';
import { loopTurnsDuring } from '../helpers/loop-turns';
import { HEADER, importFile, personRow, tagOf, transferFixture } from './transfer-support';

/**
 * How a file is read: in slices that let the event loop run (other requests are answered
 * while a large file is read, docs/performance.md), without breaking a character that a slice
 * cuts; and the numbers of a workbook, which lose a phone's leading 0.
 */

const ctx = setupTestContext();
const f = transferFixture(ctx);
const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A CSV of `rows` contacts for the fixture's unit (not imported: read only). */
function bigCsv(rows: number): Buffer {
  const lines = Array.from({ length: rows }, (_, i) => `Person ${i},SN-${i},p${i}@reading.test,01700000000,UNIT,Officer,`);
  return Buffer.from(`${HEADER.join(',')}\n${lines.join('\n')}\n`);
}

describe('reading a large file lets other requests run', () => {
  it('reads a 40,000-row CSV (2.3 MB) in slices of some 10 ms: the event loop turns while it is parsed', async () => {
    const file = bigCsv(40_000);
    const { result, turns } = await loopTurnsDuring(() => readSheet(file, 100_000));
    expect(result.rows).toHaveLength(40_000);
    expect(result.rows[39_999]).toBe(40_001);
    expect(result.cellsOf(39_999)).toEqual(['Person 39999', 'SN-39999', 'p39999@reading.test', '01700000000', 'UNIT', 'Officer', '']);
    // parsing 2.3 MB takes 100 ms or more: several slices
    expect(turns).toBeGreaterThan(2);
  });

  it("checks 40,000 rows (readRows: lengths, e-mails) in slices of some 10 ms", async () => {
    const sheet = await readSheet(bigCsv(40_000), 100_000);
    const { result, turns } = await loopTurnsDuring(() => readRows(sheet, mapHeader(sheet.header), false));
    expect(result.rows).toHaveLength(40_000);
    expect(result.errors).toEqual([]);
    expect(turns).toBeGreaterThan(2);
  });

  it('finds the passwords among 100,000 rows in slices, and reads no row for a file without a password column', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `Person ${i},SN-${i},p${i}@reading.test,01700000000,UNIT,Officer,,${i % 40_000 === 7 ? `Secret#${i}aA` : ''}`);
    const sheet = await readSheet(Buffer.from(`${[...HEADER, 'password'].join(',')}\n${lines.join('\n')}\n`), 100_000);
    const { rows } = await readRows(sheet, mapHeader(sheet.header), true);
    const { result, turns } = await loopTurnsDuring(() => passwordsOf(rows));
    expect(result).toEqual([7, 40_007, 80_007].map((i) => ({ row: i + 2, password: `Secret#${i}aA` })));
    // reading 100,000 rows' cells takes 50 ms or more: it held every other request in one piece
    expect(turns).toBeGreaterThan(2);
    const without = await readSheet(bigCsv(1000), 100_000);
    const plain = (await readRows(without, mapHeader(without.header), false)).rows;
    const read = jest.spyOn(plain, 'raw');
    expect(await passwordsOf(plain)).toEqual([]);
    expect(read).not.toHaveBeenCalled();
  });

  it("finds the parents of 40,000 rows, each another row's, in slices within one call", async () => {
    // row i under row (i - 1) / 3: a ternary tree, as the benchmark's import
    const lines = Array.from({ length: 40_000 }, (_, i) => `Person ${i},SN-${i},p${i}@reading.test,01700000000,UNIT,Officer,${i === 0 ? '' : `SN-${Math.floor((i - 1) / 3)}`}`);
    const sheet = await readSheet(Buffer.from(`${HEADER.join(',')}\n${lines.join('\n')}\n`), 100_000);
    const { rows } = await readRows(sheet, mapHeader(sheet.header), false);
    const sns = new KeyTable(rows.length, (i) => `SN-${i}`);
    for (let i = 0; i < rows.length; i++) sns.add(`SN-${i}`, i);
    const parents = new Parents(rows.length);
    const fail = jest.fn();
    const all = Int32Array.from({ length: rows.length }, (_, i) => i);
    const { turns } = await loopTurnsDuring(() => parents.resolve(ctx.db as unknown as Knex.Transaction, rows, all, sns, new Float64Array(rows.length), fail, new TimeSlices()));
    expect(fail).not.toHaveBeenCalled();
    expect(parents.of(0, null)).toBeNull();
    expect(parents.of(39_999, 'SN-13332')).toEqual({ serviceNo: 'SN-13332' });
    // 40,000 rows read twice and looked up take 40 ms or more: before, one call held every other request
    expect(turns).toBeGreaterThan(2);
  });

  it('reads a 20,000-row .xlsx in slices too', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contacts');
    sheet.addRow(HEADER);
    for (let i = 0; i < 20_000; i++) sheet.addRow([`Person ${i}`, `SN-${i}`, `p${i}@reading.test`, '01700000000', 'UNIT', 'Officer', '']);
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    const { result, turns } = await loopTurnsDuring(() => readSheet(file, 100_000));
    expect(result.rows).toHaveLength(20_000);
    expect(turns).toBeGreaterThan(2);
  });

  it('keeps a character that a 16 KiB slice cuts in two (Bengali, 3 bytes in UTF-8)', async () => {
    const name = 'আমি'.repeat(100);
    const file = Buffer.from(`name\n${Array.from({ length: 1000 }, () => name).join('\n')}\n`);
    // the bytes at the cuts are inside a character: neither its first byte nor ASCII
    for (const cut of [16_384, 49_152, 65_536, 114_688]) expect(file[cut] & 0xc0).toBe(0x80);
    const sheet = await readSheet(file, 100_000);
    expect(sheet.rows).toHaveLength(1000);
    expect(sheet.rows.every((_row, i) => sheet.cellsOf(i).length === 1 && sheet.cellsOf(i)[0] === name)).toBe(true);
  });
});

/**
 * A stream of `bytes` in pieces of `size` bytes, as a request body arrives; `pulled` counts the
 * pieces read from it, so a test sees how far a reader went.
 */
function piecesOf(bytes: Buffer, size: number): { stream: Readable; pulled: () => number; total: number } {
  let pulled = 0;
  function* pieces() {
    for (let at = 0; at < bytes.length; at += size) {
      pulled++;
      yield bytes.subarray(at, at + size);
    }
  }
  return { stream: Readable.from(pieces(), { objectMode: false }), pulled: () => pulled, total: Math.ceil(bytes.length / size) };
}

const NOT_TEXT = 'Unsupported file type: send a .csv file (UTF-8 text) or an .xlsx workbook';

describe('a file read as it streams in (the route reads a request body so, never holding it whole)', () => {
  it('reads a CSV streamed in pieces of 7 bytes, each Bengali character cut between two, as the whole file reads', async () => {
    const file = Buffer.from(`name;service_no\r\n${Array.from({ length: 500 }, (_, i) => `আমি ${i};SN-${i}`).join('\r\n')}\r\n`);
    const whole = await readSheet(file, 1000);
    const streamed = await readSheet(piecesOf(file, 7).stream, 1000);
    expect(streamed.header).toEqual(['name', 'service_no']);
    expect([...streamed.rows]).toEqual([...whole.rows]);
    expect(streamed.rows.length).toBe(500);
    expect(streamed.rows.every((_row, i) => streamed.cellsOf(i).join('|') === whole.cellsOf(i).join('|'))).toBe(true);
    expect(streamed.cellsOf(499)).toEqual(['আমি 499', 'SN-499']);
  });

  it('chooses the delimiter from the whole first line, not from its first piece', async () => {
    // the first piece, "a,b", holds a comma and no semicolon; the line holds more semicolons
    const file = Buffer.from('a,b;name;service_no\nignored;Ada;SN-1\n');
    const sheet = await readSheet(piecesOf(file, 3).stream, 10);
    expect(sheet.header).toEqual(['a,b', 'name', 'service_no']);
    expect(sheet.cellsOf(0)).toEqual(['Ada', 'SN-1']);
  });

  it('reads an .xlsx streamed in pieces as the whole workbook reads', async () => {
    const file = await workbookOf([['Ada', 'SN-1', 'ada@reading.test', '01700000000', 'UNIT', 'Officer', '', '']]);
    const streamed = await readSheet(piecesOf(file, 1000).stream, 10);
    expect(streamed.header).toEqual([...HEADER, 'mobile']);
    expect(streamed.cellsOf(0).slice(0, 2)).toEqual(['Ada', 'SN-1']);
  });

  test.each([
    ['a byte that is not UTF-8 (Latin-1 é)', Buffer.from('name\nJos\xe9\n', 'latin1')],
    ['a character whose first byte ends one piece and whose next is no continuation', Buffer.concat([Buffer.from('name\nab'), Buffer.from([0xe0]), Buffer.from('AB\n')])],
    ['a character cut off by the end of the file', Buffer.concat([Buffer.from('name\nab\n'), Buffer.from([0xe0, 0xa6])])],
    ['a NUL byte', Buffer.from('name\nA\u0000B\n')],
  ])('refuses a stream with %s as 415', async (_label, file) => {
    await expect(readSheet(piecesOf(file, 8).stream, 10)).rejects.toMatchObject({ status: 415, message: NOT_TEXT });
  });

  it('stops reading at the row past IMPORT_MAX_ROWS (413), leaving the rest unread and the stream open for the caller to drain', async () => {
    const file = bigCsv(20_000);
    const { stream, pulled, total } = piecesOf(file, 1024);
    await expect(readSheet(stream, 5)).rejects.toMatchObject({ status: 413, message: 'The file has more than 5 rows (IMPORT_MAX_ROWS)' });
    expect(pulled()).toBeLessThan(10);
    expect(total).toBeGreaterThan(1000);
    expect(stream.destroyed).toBe(false);
  });

  it('stops reading at the first row it refuses (a cell over the limit), leaving the rest unread', async () => {
    const file = Buffer.concat([Buffer.from(`name\n${'x'.repeat(1001)}\n`), bigCsv(20_000)]);
    const { stream, pulled } = piecesOf(file, 1024);
    await expect(readSheet(stream, 100_000)).rejects.toMatchObject({ status: 400 });
    expect(pulled()).toBeLessThan(10);
  });

  it('refuses an empty stream as 400: The file is empty', async () => {
    await expect(readSheet(piecesOf(Buffer.alloc(0), 8).stream, 10)).rejects.toMatchObject({ status: 400, errors: [{ field: 'file', message: 'The file is empty' }] });
  });
});

/** A workbook of HEADER and `rows`, each cell as given (a number stays a number), with `format` on the phone cells. */
async function workbookOf(rows: ReadonlyArray<ReadonlyArray<string | number>>, format?: string): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('Contacts');
  sheet.addRow([...HEADER, 'mobile']);
  for (const cells of rows) {
    const row = sheet.addRow([...cells]);
    if (format) row.getCell(4).numFmt = format;
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe('POST /api/contacts/import: a number in a workbook', () => {
  it('refuses a phone or mobile held as a number (Excel shows 01712345678, the cell holds 1712345678), naming the row and the column', async () => {
    const [a, b, c] = [tagOf(), tagOf(), tagOf()];
    const asText = [...personRow(f, a), '01812345678'];
    const phoneNumber = [...personRow(f, b)] as Array<string | number>;
    phoneNumber[3] = 1712345678;
    const mobileNumber = [...personRow(f, c), 1812345678];
    const file = await workbookOf([asText, phoneNumber, mobileNumber], '00000000000');
    const res = await importFile(ctx, f.admin, file, { filename: 'contacts.xlsx', contentType: XLSX });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('Import failed: nothing was written');
    const hint = (column: string, value: string) =>
      `The ${column} cell is a number in the workbook (${value}), which loses a leading 0 or +: format the ${column} column as Text and type the numbers again`;
    expect(res.body.errors).toEqual([
      { row: 3, field: 'phone', message: hint('phone', '1712345678') },
      { row: 4, field: 'mobile', message: hint('mobile', '1812345678') },
    ]);
    expect(Number((await ctx.db('users').whereIn('service_no', [a, b, c]).count({ n: '*' }).first())?.n)).toBe(0);
  });

  it('takes a phone typed as text, and a service number held as a number as its digits', async () => {
    const a = tagOf();
    const digits = Number(`9${String(Date.now()).slice(-9)}`);
    const row = [...personRow(f, a), '01812345678'] as Array<string | number>;
    row[1] = digits;
    const file = await workbookOf([row]);
    const res = await importFile(ctx, f.admin, file, { filename: 'contacts.xlsx', contentType: XLSX });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 1, failed: 0 });
    const stored = await ctx.db('users').where({ service_no: String(digits) }).first('phone', 'mobile');
    expect(stored).toEqual({ phone: '01700000000', mobile: '01812345678' });
  });
});
