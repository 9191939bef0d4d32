import { readSheet } from '../../src/modules/transfer/sheet';
import { inflateLimits } from '../../src/modules/transfer/zip-limits';
import { setupTestContext } from '../helpers/context';
import { expectErrorEnvelope, importFile, transferFixture } from './transfer-support';
import { columnName, NS, piecesPart, textPart, workbookParts, zipOf } from './xlsx-zip';

/**
 * How the .xlsx reader (src/modules/transfer/xlsx-sheet.ts) reads a sheet: as exceljs did, save
 * where exceljs lost text; keeping only the cells of the columns the import reads, and no more
 * of them than keptTextBytes.
 */

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const sheetOf = (rows: string) => textPart('xl/worksheets/sheet1.xml', `<?xml version="1.0"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`);
const strings = (...texts: string[]) => textPart('xl/sharedStrings.xml', `<sst ${NS}>${texts.map((t) => `<si>${t}</si>`).join('')}</sst>`);

describe('reading an .xlsx', () => {
  it('keeps only the cells of the columns the import reads, found after blank rows and read by shared strings', async () => {
    const header = `<row r="3"><c r="A3" t="s"><v>0</v></c>${inline('B3', 'notes')}<c r="C3" t="s"><v>1</v></c></row>`;
    const data = `<row r="4"><c r="A4" t="s"><v>2</v></c>${inline('B4', 'ignored')}<c r="C4"><v>1712345678</v></c></row><row r="5"><c r="A5" t="s"><v>3</v></c></row>`;
    const file = zipOf([...workbookParts(), strings('<t>name</t>', '<t>phone</t>', '<t>Ada</t>', '<t xml:space="preserve"> </t>'), sheetOf(`<row r="1"/><row r="2">${inline('A2', '')}</row>${header}${data}`)]);
    const sheet = await readSheet(file, 1000);
    expect(sheet.header).toEqual(['name', 'notes', 'phone']);
    expect(sheet.kept).toEqual([0, 2]);
    expect(Array.from(sheet.rows)).toEqual([4]); // row 5 is blank
    expect(sheet.cellsOf(0)).toEqual(['Ada', '1712345678']);
    expect(sheet.numbersOf(0)).toEqual([2]);
  });

  it('reads every run of inline rich text, CDATA, and not a phonetic reading (exceljs kept the last run, dropped CDATA, took the reading)', async () => {
    const cells = [
      '<c r="A2" t="inlineStr"><is><r><t>Ri</t></r><r><rPr><b/></rPr><t>ch</t></r></is></c>',
      '<c r="B2" t="inlineStr"><is><t><![CDATA[a<b]]></t></is></c>',
      '<c r="C2" t="s"><v>2</v></c>',
    ];
    const file = zipOf([...workbookParts(), strings('<t>name</t>', '<t>unit</t>', '<t>漢字</t><rPh sb="0" eb="2"><t>かんじ</t></rPh>'), sheetOf(`<row r="1">${inline('A1', 'name')}${inline('B1', 'unit')}${inline('C1', 'rank')}</row><row r="2">${cells.join('')}</row>`)]);
    const sheet = await readSheet(file, 1000);
    expect(sheet.cellsOf(0)).toEqual(['Rich', 'a<b', '漢字']);
  });

  it('keeps a character that an inflated chunk of 64 KiB cuts in two (Bengali, 3 bytes in UTF-8)', async () => {
    const name = 'আমি'.repeat(100);
    const rows = (function* () {
      yield `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1">${inline('A1', 'name')}</row>`;
      for (let r = 2; r < 502; r++) yield `<row r="${r}">${inline(`A${r}`, name)}</row>`;
      yield '</sheetData></worksheet>';
    })();
    const sheet = await readSheet(zipOf([...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', rows)]), 1000);
    expect(sheet.rows).toHaveLength(500);
    expect(sheet.rows.every((_row, i) => sheet.cellsOf(i)[0] === name)).toBe(true);
  });
});

describe('reading a CSV', () => {
  it('keeps a cell that starts with U+0001, which a workbook cannot hold, as its text', async () => {
    const sheet = await readSheet(Buffer.from('name,unit\n\u0001Ada,\u00012\n'), 1000);
    expect(sheet.cellsOf(0)).toEqual(['\u0001Ada', '\u00012']);
  });
});

describe('POST /api/contacts/import: an .xlsx whose cells outgrow what the import keeps (IMPORT_MAX_ROWS=1000)', () => {
  const ctx = setupTestContext({ IMPORT_MAX_ROWS: '1000', RATE_LIMIT_MAX: '1000000' });
  const f = transferFixture(ctx);

  it('answers 413 once the cells of the columns read pass keptTextBytes, naming the limit', async () => {
    const limit = inflateLimits(1000).keptTextBytes;
    const header = `<row r="1">${['name', 'designation', 'department', 'rank', 'unit'].map((c, i) => inline(`${columnName(i + 1)}1`, c)).join('')}</row>`;
    const rows = (function* () {
      yield `<?xml version="1.0"?><worksheet ${NS}><sheetData>${header}`;
      for (let r = 2; r < 1002; r++) yield `<row r="${r}">${[1, 2, 3, 4, 5].map((c) => inline(`${columnName(c)}${r}`, `${r}`.padEnd(1000, 'x'))).join('')}</row>`;
      yield '</sheetData></worksheet>';
    })();
    const res = await importFile(ctx, f.admin, zipOf([...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', rows)]), { filename: 'contacts.xlsx', contentType: XLSX }, '?dry_run=true');
    expectErrorEnvelope(res, 413, `The cells of the columns the import reads take more than ${Math.floor(limit / (1024 * 1024))} MiB in this workbook, the most read for IMPORT_MAX_ROWS 1000`);
  });
});
