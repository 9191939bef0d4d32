import { COLUMNS } from '../../src/modules/transfer/columns';
import { inflateLimits } from '../../src/modules/transfer/zip-limits';
import { bulkPart, columnName, MiB, NS, piecesPart, repeatedPart, RELS, textPart, workbookParts, type Part } from './xlsx-zip';

/**
 * The worst workbooks within the limits of IMPORT_MAX_ROWS (100,000 by default), for
 * xlsx-memory.test.ts: each keeps under every size the service checks (zip-limits.ts,
 * columns.ts), yet asks the reader to build as much as it can.
 */

/** An inline-string cell; `ref` its address (A1...). */
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
/** A header row of the 13 columns of the import, then `extra` columns no one reads. */
function headerRow(extra = 0): string {
  const names = [...COLUMNS, ...Array.from({ length: extra }, (_, i) => `extra ${i + 1}`)];
  return `<row r="1">${names.map((name, i) => inline(`${columnName(i + 1)}1`, name)).join('')}</row>`;
}
const sheetHead = `<?xml version="1.0"?><worksheet ${NS}><sheetData>`;
const sheetTail = '</sheetData></worksheet>';

/** Repeats `unit` as many times as fit in `bytes` (at least once). */
const timesIn = (bytes: number, unit: string) => Math.max(1, Math.floor(bytes / Buffer.byteLength(unit)));

/** What the limits allow for `maxRows`, less a margin for the other parts. */
function room(maxRows: number) {
  const limits = inflateLimits(maxRows);
  return { total: limits.totalBytes - 64 * 1024, strings: limits.sharedStringsBytes - 1024 };
}

/** The header and one data row whose cells are shared strings 0 to 12. */
function sheetOfStrings(): Part {
  const data = `<row r="2">${COLUMNS.map((_, i) => `<c r="${columnName(i + 1)}2" t="s"><v>${i}</v></c>`).join('')}</row>`;
  return textPart('xl/worksheets/sheet1.xml', `${sheetHead}${headerRow()}${data}${sheetTail}`);
}

/** A small workbook of `rows` rows of the 13 columns, inline and shared strings (to warm a reader up). */
export const smallWorkbook = (rows = 1000): Part[] => [
  ...workbookParts(),
  textPart('xl/sharedStrings.xml', `<sst ${NS}>${COLUMNS.map((c) => `<si><t>${c}</t></si>`).join('')}</sst>`),
  piecesPart('xl/worksheets/sheet1.xml', contactRows(rows)),
];

export interface Crafted {
  name: string;
  /** what the workbook stresses */
  about: string;
  parts: () => Part[];
  /** what reading it gives: the rows the import would plan, or the answer refusing it */
  outcome: { rows: number } | { status: number; message: string };
}

/** The crafted workbooks for IMPORT_MAX_ROWS `maxRows`. */
export function craftedWorkbooks(maxRows: number): Crafted[] {
  const { total, strings } = room(maxRows);
  const sst = (unit: string) => bulkPart('xl/sharedStrings.xml', `<?xml version="1.0"?><sst ${NS}>`, unit, timesIn(strings - 100, unit), '</sst>');
  const distinctStrings = Math.min(maxRows * COLUMNS.length, timesIn(strings - 100, '<si><t>s0000000</t></si>'));
  const longRowCount = timesIn(total, inline('CV99999', 'a'.repeat(1000)).repeat(100));
  const longKnownRowCount = timesIn(total, inline('M99999', 'a'.repeat(1000)).repeat(COLUMNS.length));
  const wideRowCount = Math.min(maxRows, timesIn(total, '<c r="CV99999" t="s"><v>0</v></c>'.repeat(100)));
  const keptMiB = Math.floor(inflateLimits(maxRows).keptTextBytes / MiB);
  const half = (total - 990 * 300) / 2;
  const listed = { sheets: timesIn(half, SHEET_ENTRY), rels: timesIn(half, REL_ENTRY) };
  return [
    {
      name: 'shared-strings-tiny',
      about: 'the largest shared-strings table: 1.9 million strings of two letters',
      parts: () => [...workbookParts(), sst('<si><t>ab</t></si>'), sheetOfStrings()],
      outcome: { rows: 1 },
    },
    {
      name: 'shared-strings-empty',
      about: 'the most shared strings: 6.8 million empty ones (the one row refers to them: a blank row)',
      parts: () => [...workbookParts(), sst('<si/>'), sheetOfStrings()],
      outcome: { rows: 0 },
    },
    {
      name: 'shared-strings-runs',
      about: 'rich text: 1.1 million runs of two letters, 400 to a string',
      parts: () => [...workbookParts(), sst(`<si>${'<r><rPr><b/></rPr><t>ab</t></r>'.repeat(400)}</si>`), sheetOfStrings()],
      outcome: { rows: 1 },
    },
    {
      name: 'shared-strings-all-read',
      about: `the most shared strings kept: ${distinctStrings} (the table at its limit), each the cell of one row of the 13 columns`,
      parts: () => [...workbookParts(), piecesPart('xl/sharedStrings.xml', distinctTable(distinctStrings)), piecesPart('xl/worksheets/sheet1.xml', sharedRows(Math.floor(distinctStrings / COLUMNS.length) - 1))],
      outcome: { rows: Math.floor(distinctStrings / COLUMNS.length) - 1 },
    },
    {
      name: 'sheet-text-runaway',
      about: "one cell's text of 120 MiB, cut by an empty tag every MiB (each text under the 2 MiB limit)",
      parts: () => [
        ...workbookParts(),
        repeatedPart('xl/worksheets/sheet1.xml', `${sheetHead}${headerRow()}<row r="2"><c r="A2" t="inlineStr"><is><t>`, `${'a'.repeat(MiB - 4)}<b/>`, 120, `</t></is></c></row>${sheetTail}`),
      ],
      outcome: { status: 400, message: 'Row 2 has a cell longer than 1000 characters' },
    },
    {
      name: 'sheet-long-cells',
      about: `the longest cells: ${longRowCount} rows of 100 cells of 1,000 characters (129 MiB), 13 of them read`,
      parts: () => [...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', longRows(longRowCount, 87))],
      outcome: { rows: longRowCount },
    },
    {
      name: 'sheet-long-known-cells',
      about: `the longest cells, all read: ${longKnownRowCount} rows of the 13 columns of 1,000 characters (129 MiB)`,
      parts: () => [...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', longRows(longKnownRowCount, 0))],
      outcome: { status: 413, message: `The cells of the columns the import reads take more than ${keptMiB} MiB in this workbook, the most read for IMPORT_MAX_ROWS ${maxRows}` },
    },
    {
      name: 'sheet-most-rows',
      about: `the most rows: ${maxRows} rows of the 13 columns, each cell a short text of its own (inline, as the export writes them)`,
      parts: () => [...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', contactRows(maxRows))],
      outcome: { rows: maxRows },
    },
    {
      name: 'upload-at-size-limit',
      about: `the largest upload (19 MiB, under IMPORT_MAX_BYTES) of the most text kept: ${maxRows} rows of the 13 columns, ${UPLOAD_ROW_CHARS} random characters a row`,
      parts: () => [...workbookParts(), piecesPart('xl/worksheets/sheet1.xml', randomRows(maxRows))],
      outcome: { rows: maxRows },
    },
    {
      name: 'sheet-many-columns',
      about: `the most cells: ${wideRowCount} rows of 100 cells (128 MiB), each the same shared string`,
      parts: () => [...workbookParts(), textPart('xl/sharedStrings.xml', `<sst ${NS}><si><t>x</t></si></sst>`), piecesPart('xl/worksheets/sheet1.xml', manyColumnRows(wideRowCount))],
      outcome: { rows: wideRowCount },
    },
    {
      name: 'workbook-many-sheets',
      about: `the most sheets: a workbook.xml that lists ${listed.sheets} sheets and relationships of ${listed.rels} (129 MiB together), and 990 sheet parts`,
      parts: () => [
        bulkPart('xl/workbook.xml', `<?xml version="1.0"?><workbook ${NS} xmlns:r="${RELS}"><sheets>`, SHEET_ENTRY, listed.sheets, '</sheets></workbook>'),
        bulkPart('xl/_rels/workbook.xml.rels', `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`, REL_ENTRY, listed.rels, '</Relationships>'),
        textPart('xl/worksheets/sheet1.xml', `${sheetHead}${headerRow()}<row r="2">${inline('A2', 'Person')}</row>${sheetTail}`),
        ...Array.from({ length: 989 }, (_, i) => textPart(`xl/worksheets/sheet${i + 2}.xml`, `${sheetHead}<row r="1">${inline('A1', 'name')}</row>${sheetTail}`)),
      ],
      outcome: { rows: 1 },
    },
  ];
}

const SHEET_ENTRY = '<sheet name="S" sheetId="1" r:id="rId1"/>';
const REL_ENTRY = `<Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/>`;

/** A shared-strings table of `count` strings: the 13 column names, then s0000013, s0000014... */
function* distinctTable(count: number): Generator<string> {
  yield `<?xml version="1.0"?><sst ${NS}>`;
  for (let i = 0; i < count; i++) yield i < COLUMNS.length ? `<si><t>${COLUMNS[i]}</t></si>` : `<si><t>s${String(i).padStart(7, '0')}</t></si>`;
  yield '</sst>';
}

/** The header (13 columns and `extra` more) and `rows` rows of as many cells of 1,000 characters. */
function* longRows(rows: number, extra: number): Generator<string> {
  yield `${sheetHead}${headerRow(extra)}`;
  const width = COLUMNS.length + extra;
  for (let r = 2; r < rows + 2; r++) {
    let row = `<row r="${r}">`;
    for (let c = 1; c <= width; c++) row += inline(`${columnName(c)}${r}`, `${r}`.padEnd(1000, 'a'));
    yield `${row}</row>`;
  }
  yield sheetTail;
}

/** The header and `rows` rows of the 13 columns, every cell a text of its own (as the export writes them: inline). */
function* contactRows(rows: number): Generator<string> {
  yield `${sheetHead}${headerRow()}`;
  for (let r = 2; r < rows + 2; r++) {
    const cells = [`Person ${r}`, `SN${r}`, `p${r}@crafted.test`, `0170${r}`, `0180${r}`, `0190${r}`, `U${r}`, `D${r}`, `G${r}`, `K${r}`, `R${r}`, `S${r}`, `P${r}`];
    yield `<row r="${r}">${cells.map((text, i) => inline(`${columnName(i + 1)}${r}`, text)).join('')}</row>`;
  }
  yield sheetTail;
}

/** The header and `rows` rows of the 13 columns, cell by cell shared strings 13, 14, 15... (0 to 12 the header's). */
function* sharedRows(rows: number): Generator<string> {
  yield `${sheetHead}<row r="1">${COLUMNS.map((_, i) => `<c r="${columnName(i + 1)}1" t="s"><v>${i}</v></c>`).join('')}</row>`;
  for (let r = 2; r < rows + 2; r++) {
    yield `<row r="${r}">${COLUMNS.map((_, i) => `<c r="${columnName(i + 1)}${r}" t="s"><v>${(r - 1) * COLUMNS.length + i}</v></c>`).join('')}</row>`;
  }
  yield sheetTail;
}

/** Random text: hardly compressible, so that the upload is as large as the text is. */
const UPLOAD_ROW_CHARS = 182;

/** The header and `rows` rows of the 13 columns, UPLOAD_ROW_CHARS random letters and digits a row (a fixed seed). */
function* randomRows(rows: number): Generator<string> {
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let seed = 0x2545f491;
  const letter = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return ALPHABET[(seed >>> 0) % 64];
  };
  const per = Math.floor(UPLOAD_ROW_CHARS / COLUMNS.length);
  yield `${sheetHead}${headerRow()}`;
  for (let r = 2; r < rows + 2; r++) {
    const cells = COLUMNS.map(() => Array.from({ length: per }, letter).join(''));
    yield `<row r="${r}">${cells.map((text, i) => inline(`${columnName(i + 1)}${r}`, text)).join('')}</row>`;
  }
  yield sheetTail;
}

/** The header (13 columns and 87 more) and `rows` rows of 100 cells, each shared string 0. */
function* manyColumnRows(rows: number): Generator<string> {
  yield `${sheetHead}${headerRow(87)}`;
  for (let r = 2; r < rows + 2; r++) {
    let row = `<row r="${r}">`;
    for (let c = 1; c <= 100; c++) row += `<c r="${columnName(c)}${r}" t="s"><v>0</v></c>`;
    yield `${row}</row>`;
  }
  yield sheetTail;
}
