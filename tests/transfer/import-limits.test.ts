import zlib from 'node:zlib';
import ExcelJS from 'exceljs';
import request from 'supertest';
import { bearer } from '../helpers/factory';
import { setupTestContext } from '../helpers/context';
import {
  csv,
  expectErrorEnvelope,
  HEADER,
  importCsv,
  importFile,
  importRaw,
  personRow,
  tagOf,
  takenServiceNos,
  transferFixture,
  unitSize,
  type TransferFixture,
} from './transfer-support';

/**
 * The import's limits (docs/import-export.md): a file larger than IMPORT_MAX_BYTES, or with more
 * data rows than IMPORT_MAX_ROWS, is a 413 that writes nothing; a file at the limit goes through.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * A valid CSV of one new contact per service number, exactly `bytes` long: the padding is in two
 * columns the import ignores, no cell over 1000 characters.
 */
function csvOfSize(f: TransferFixture, serviceNos: readonly string[], bytes: number): string {
  const header = [...HEADER, 'notes_a', 'notes_b'];
  const rows = serviceNos.map((sn) => [...personRow(f, sn), '', '']);
  let missing = bytes - Buffer.byteLength(csv([header, ...rows]));
  for (const row of rows) {
    for (const at of [header.length - 2, header.length - 1]) {
      const pad = Math.min(1000, missing);
      row[at] = 'x'.repeat(pad);
      missing -= pad;
    }
  }
  if (missing !== 0) throw new Error(`csvOfSize: ${bytes} bytes need more rows`);
  const text = csv([header, ...rows]);
  expect(Buffer.byteLength(text)).toBe(bytes);
  return text;
}

describe('IMPORT_MAX_BYTES=2048', () => {
  const ctx = setupTestContext({ IMPORT_MAX_BYTES: '2048', RATE_LIMIT_MAX: '1000000' });
  const f = transferFixture(ctx);
  const TOO_LARGE = 'Import file too large: at most 2048 bytes (IMPORT_MAX_BYTES)';

  it('refuses an uploaded file of 2049 bytes with 413, and writes nothing', async () => {
    const sns = [tagOf(), tagOf()];
    const before = await unitSize(ctx, f);
    const res = await importCsv(ctx, f.admin, csvOfSize(f, sns, 2049));
    expectErrorEnvelope(res, 413, TOO_LARGE);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  test.each([
    ['an uploaded file', (text: string) => importFile(ctx, f.admin, text)],
    ['a raw text/csv body', (text: string) => importRaw(ctx, f.admin, text)],
  ])('refuses %s of 5 MB with 413, and writes nothing', async (_label, send) => {
    const sns = [tagOf(), tagOf()];
    const before = await unitSize(ctx, f);
    const res = await send(csv([HEADER, ...sns.map((sn) => personRow(f, sn))]) + `${'x,'.repeat(2_500_000)}\r\n`);
    expectErrorEnvelope(res, 413, TOO_LARGE);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('refuses a raw text/csv body of 2049 bytes with 413, and writes nothing', async () => {
    const sns = [tagOf(), tagOf()];
    const before = await unitSize(ctx, f);
    const res = await importRaw(ctx, f.admin, csvOfSize(f, sns, 2049));
    expectErrorEnvelope(res, 413, TOO_LARGE);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('refuses a gzip text/csv body of a few hundred bytes that inflates past 2048 with 413, and writes nothing', async () => {
    const sns = [tagOf(), tagOf(), tagOf(), tagOf()];
    const body = zlib.gzipSync(Buffer.from(csvOfSize(f, sns, 6000)));
    expect(body.length).toBeLessThan(2048);
    const res = await request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).set('Content-Type', 'text/csv').set('Content-Encoding', 'gzip').send(body);
    expectErrorEnvelope(res, 413, TOO_LARGE);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('reads a gzip text/csv body by what it inflates to, not by its Content-Length: over 2048 bytes stored uncompressed that inflate to 2048 (200, created 2)', async () => {
    const sns = [tagOf(), tagOf()];
    // level 0 stores the bytes as they are, with gzip's header and trailer around them
    const body = zlib.gzipSync(Buffer.from(csvOfSize(f, sns, 2048)), { level: 0 });
    expect(body.length).toBeGreaterThan(2048);
    const res = await request(ctx.app).post('/api/contacts/import').set(bearer(f.admin)).set('Content-Type', 'text/csv').set('Content-Encoding', 'gzip').send(body);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, failed: 0 });
  });

  it('imports an uploaded file of exactly 2048 bytes (200, created 2)', async () => {
    const sns = [tagOf(), tagOf()];
    const res = await importCsv(ctx, f.admin, csvOfSize(f, sns, 2048));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, failed: 0, ignored_columns: ['notes_a', 'notes_b'] });
    expect((await takenServiceNos(ctx, sns)).sort()).toEqual([...sns].sort());
  });

  it('imports a raw text/csv body of exactly 2048 bytes (200, created 2)', async () => {
    const sns = [tagOf(), tagOf()];
    const res = await importRaw(ctx, f.admin, csvOfSize(f, sns, 2048));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 2, failed: 0 });
    expect((await takenServiceNos(ctx, sns)).sort()).toEqual([...sns].sort());
  });
});

describe('IMPORT_MAX_ROWS=5', () => {
  const ctx = setupTestContext({ IMPORT_MAX_ROWS: '5', RATE_LIMIT_MAX: '1000000' });
  const f = transferFixture(ctx);
  const TOO_MANY = 'The file has more than 5 rows (IMPORT_MAX_ROWS)';
  const rowsOf = (sns: readonly string[]) => [HEADER, ...sns.map((sn) => personRow(f, sn))];
  const tags = (n: number) => Array.from({ length: n }, () => tagOf());

  async function xlsxOf(rows: ReadonlyArray<ReadonlyArray<string>>): Promise<Buffer> {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('Contacts');
    for (const row of rows) sheet.addRow([...row]);
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }

  it('refuses a CSV of 6 rows with 413, and writes nothing', async () => {
    const sns = tags(6);
    const before = await unitSize(ctx, f);
    const res = await importCsv(ctx, f.admin, csv(rowsOf(sns)));
    expectErrorEnvelope(res, 413, TOO_MANY);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('refuses a raw text/csv body of 6 rows with 413, and writes nothing', async () => {
    const sns = tags(6);
    const before = await unitSize(ctx, f);
    const res = await importRaw(ctx, f.admin, csv(rowsOf(sns)));
    expectErrorEnvelope(res, 413, TOO_MANY);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('refuses an .xlsx of 6 rows with 413, and writes nothing', async () => {
    const sns = tags(6);
    const before = await unitSize(ctx, f);
    const res = await importFile(ctx, f.admin, await xlsxOf(rowsOf(sns)), { filename: 'contacts.xlsx', contentType: XLSX });
    expectErrorEnvelope(res, 413, TOO_MANY);
    expect(await unitSize(ctx, f)).toBe(before);
    expect(await takenServiceNos(ctx, sns)).toEqual([]);
  });

  it('refuses a dry run of 6 rows with 413 too', async () => {
    const res = await importCsv(ctx, f.admin, csv(rowsOf(tags(6))), '?dry_run=true');
    expectErrorEnvelope(res, 413, TOO_MANY);
  });

  it('imports a CSV of exactly 5 rows (200, created 5)', async () => {
    const sns = tags(5);
    const res = await importCsv(ctx, f.admin, csv(rowsOf(sns)));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 5, failed: 0 });
    expect((await takenServiceNos(ctx, sns)).sort()).toEqual([...sns].sort());
  });

  it('does not count blank lines: 5 rows with blank lines between them import (200, created 5)', async () => {
    const sns = tags(5);
    const text = rowsOf(sns).map((r) => csv([r])).join('\r\n,,,\r\n');
    const res = await importCsv(ctx, f.admin, text);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 5, failed: 0 });
    expect((await takenServiceNos(ctx, sns)).sort()).toEqual([...sns].sort());
  });

  it('imports an .xlsx of exactly 5 rows (200, created 5)', async () => {
    const sns = tags(5);
    const res = await importFile(ctx, f.admin, await xlsxOf(rowsOf(sns)), { filename: 'contacts.xlsx', contentType: XLSX });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 5, failed: 0 });
    expect((await takenServiceNos(ctx, sns)).sort()).toEqual([...sns].sort());
  });
});
