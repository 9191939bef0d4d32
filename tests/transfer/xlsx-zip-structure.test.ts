import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { AppError } from '../../src/lib/errors';
import { readSheet } from '../../src/modules/transfer/sheet';
import { UploadStorageError } from '../../src/modules/transfer/nameless-file';
import { SpooledFile } from '../../src/modules/transfer/zip-source';
import { openTemporaryFiles } from './transfer-support';
import { NS, textPart, workbookParts, zipOf, type Part } from './xlsx-zip';

/**
 * How the reader takes a workbook's zip apart (zip-directory.ts, zip-limits.ts), given whole (a
 * Buffer) and as a request's body streams in (written to a temporary file and read from there,
 * zip-source.ts): the same rows, the same refusal, and no file left behind.
 */

const sheet = (rows: string) => textPart('xl/worksheets/sheet1.xml', `<?xml version="1.0"?><worksheet ${NS}><sheetData>${rows}</sheetData></worksheet>`);
const inline = (ref: string, text: string) => `<c r="${ref}" t="inlineStr"><is><t>${text}</t></is></c>`;
const goodParts = (): Part[] => [...workbookParts(), sheet(`<row r="1">${inline('A1', 'name')}${inline('B1', 'service_no')}</row><row r="2">${inline('A2', 'Ada')}${inline('B2', 'SN-1')}</row>`)];

/** The offsets of a zip made by zipOf: each part's local header, the central directory's entries, the end record. */
function layout(zip: Buffer) {
  const end = zip.length - 22;
  const directoryStart = zip.readUInt32LE(end + 16);
  const entries: number[] = [];
  for (let at = directoryStart; at < end; at += 46 + zip.readUInt16LE(at + 28)) entries.push(at);
  return { end, directoryStart, entries, locals: entries.map((at) => zip.readUInt32LE(at + 42)) };
}


/** What openTemporaryFiles() gave once the last piece of a streamed file was taken, the temporary file then written whole. */
let whileRead: string[] = [];

/** The file given whole, and streamed in pieces of 100 bytes. */
const sources = [
  ['whole', (file: Buffer) => file],
  [
    'streamed',
    (file: Buffer) => {
      function* pieces() {
        for (let at = 0; at < file.length; at += 100) yield file.subarray(at, at + 100);
        whileRead = openTemporaryFiles();
      }
      // a piece is pulled only when the reader asks for it, as from a network
      return Readable.from(pieces(), { objectMode: false, highWaterMark: 1 });
    },
  ],
] as const;

const refusal = (message: string, status = 400) => ({ status, ...(status === 400 ? { errors: [{ field: 'file', message: `The file is not a readable .xlsx workbook: ${message}` }] } : { message }) });

describe.each(sources)('a workbook\'s zip, given %s', (how, given) => {
  beforeEach(() => (whileRead = []));
  // a streamed workbook is read from a temporary file that has no name while it is read, and is closed once read, whatever the outcome
  afterEach(() => {
    expect(openTemporaryFiles()).toEqual([]);
    if (how === 'streamed') expect(whileRead).toEqual([expect.stringMatching(/directory-import-\w+\/upload\.xlsx \(deleted\)$/)]);
  });

  it('reads the rows of a well-formed workbook, with a comment after its end record', async () => {
    const file = zipOf(goodParts());
    file.writeUInt16LE(7, file.length - 2);
    const read = await readSheet(given(Buffer.concat([file, Buffer.from('comment')])), 10);
    expect(read.header).toEqual(['name', 'service_no']);
    expect(read.cellsOf(0)).toEqual(['Ada', 'SN-1']);
  });

  it('reads a part stored without compression (method 0)', async () => {
    const text = `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1">${inline('A1', 'name')}</row><row r="2">${inline('A2', 'Bo')}</row></sheetData></worksheet>`;
    const file = zipOf([...workbookParts(), { name: 'xl/worksheets/sheet1.xml', deflated: Buffer.from(text), size: Buffer.byteLength(text), crc: zlib.crc32(text) }]);
    const { entries, locals } = layout(file);
    file.writeUInt16LE(0, entries[2] + 10);
    file.writeUInt16LE(0, locals[2] + 8);
    expect((await readSheet(given(file), 10)).cellsOf(0)).toEqual(['Bo']);
  });

  it('refuses a file cut before its end record (400: it has no central directory)', async () => {
    const file = zipOf(goodParts());
    await expect(readSheet(given(file.subarray(0, file.length - 5)), 10)).rejects.toMatchObject(refusal('it has no central directory'));
  });

  /** A field of the zip written over: where (from its layout), how wide, with what. */
  type Edit = { at: (l: ReturnType<typeof layout>) => number; bytes: 2 | 4; value: number };
  const entry = (offset: number) => (l: ReturnType<typeof layout>) => l.entries[2] + offset; // the sheet's directory entry
  const endRecord = (offset: number) => (l: ReturnType<typeof layout>) => l.end + offset;
  test.each<[string, Edit, ReturnType<typeof refusal>]>([
    ['a directory that starts past its end record', { at: endRecord(16), bytes: 4, value: 0x7fffffff }, refusal('its central directory is damaged')],
    ['a directory that counts more entries than it holds', { at: endRecord(10), bytes: 2, value: 4 }, refusal('its central directory is damaged')],
    ['more than 1,000 parts, with 413', { at: endRecord(10), bytes: 2, value: 1001 }, refusal('The workbook has 1001 parts; at most 1000 are read', 413)],
    ['a ZIP64 archive', { at: endRecord(16), bytes: 4, value: 0xffffffff }, refusal('a ZIP64 archive')],
    ['an encrypted part', { at: entry(8), bytes: 2, value: 1 }, refusal('xl/worksheets/sheet1.xml is encrypted')],
    ['a part compressed other than by deflate', { at: entry(10), bytes: 2, value: 12 }, refusal('xl/worksheets/sheet1.xml is compressed by method 12, not deflate')],
  ])('refuses %s', async (_what, edit, refused) => {
    const file = zipOf(goodParts());
    const at = edit.at(layout(file));
    if (edit.bytes === 2) file.writeUInt16LE(edit.value, at);
    else file.writeUInt32LE(edit.value, at);
    await expect(readSheet(given(file), 10)).rejects.toMatchObject(refused);
  });

  it('refuses a central directory of more than 1 MiB (400)', async () => {
    const file = zipOf(goodParts());
    const { directoryStart } = layout(file);
    // 1 MiB of padding before the directory, which the end record says starts at the padding
    const padded = Buffer.concat([file.subarray(0, directoryStart), Buffer.alloc(1024 * 1024), file.subarray(directoryStart)]);
    await expect(readSheet(given(padded), 10)).rejects.toMatchObject(refusal('its central directory takes more than 1048576 bytes'));
  });

  it('refuses a part named twice (400)', async () => {
    const [workbook, rels, sheetPart] = goodParts();
    const file = zipOf([workbook, sheetPart, { ...rels, name: sheetPart.name }]);
    await expect(readSheet(given(file), 10)).rejects.toMatchObject(refusal('it holds xl/worksheets/sheet1.xml twice'));
  });

  it('refuses two parts whose data overlap (400: the entry is damaged), so that no bytes inflate twice', async () => {
    const file = zipOf(goodParts());
    const { entries, locals } = layout(file);
    file.writeUInt32LE(locals[1], entries[2] + 42);
    await expect(readSheet(given(file), 10)).rejects.toMatchObject(refusal('the entry of xl/worksheets/sheet1.xml is damaged'));
  });

  it('refuses a local header that names another part (400)', async () => {
    const file = zipOf(goodParts());
    const { locals } = layout(file);
    file.write('X', locals[2] + 30);
    await expect(readSheet(given(file), 10)).rejects.toMatchObject(refusal('the entry of xl/worksheets/sheet1.xml names another part'));
  });

  it('refuses a part that fails its CRC check (400)', async () => {
    const file = zipOf(goodParts());
    const { entries } = layout(file);
    file.writeUInt32LE((file.readUInt32LE(entries[2] + 16) ^ 1) >>> 0, entries[2] + 16);
    await expect(readSheet(given(file), 10)).rejects.toMatchObject(refusal('xl/worksheets/sheet1.xml fails its CRC check'));
  });

  it('refuses a part with bytes after its deflated data, over 64 KiB into it (400: it has data past its end)', async () => {
    // text too varied to deflate well, so that the trailing bytes come in a later read than the stream's end
    const cells = Array.from({ length: 4000 }, (_, i) => `<row r="${i + 2}">${inline(`A${i + 2}`, randomBytes(16).toString('base64'))}</row>`).join('');
    const part = sheet(`<row r="1">${inline('A1', 'name')}</row>${cells}`);
    expect(part.deflated.length).toBeGreaterThan(64 * 1024);
    const file = zipOf([...workbookParts(), { ...part, deflated: Buffer.concat([part.deflated, Buffer.from('trailing')]) }]);
    await expect(readSheet(given(file), 10_000)).rejects.toMatchObject(refusal('xl/worksheets/sheet1.xml has data past its end'));
  });
});

describe('the temporary file of a streamed workbook (zip-source.ts)', () => {
  async function* pieces(...parts: Array<Buffer | Error>) {
    for (const part of parts) {
      if (part instanceof Error) throw part;
      yield part;
    }
  }

  it('is a fault of the server, naming the directory, when it cannot be written (not a 400 of the file)', async () => {
    const refused = SpooledFile.of(pieces(Buffer.from('PK\u0003\u0004')), '/nonexistent-directory-of-the-test');
    await expect(refused).rejects.toBeInstanceOf(UploadStorageError);
    await expect(refused).rejects.toThrow(/^The upload cannot be written to \/nonexistent-directory-of-the-test while it is read: ENOENT/);
  });

  it('passes on an error of the stream as it is (a body past its limit stays a 413), and closes the file', async () => {
    const tooLarge = new AppError(413, 'Import file too large');
    await expect(SpooledFile.of(pieces(Buffer.from('PK\u0003\u0004'), tooLarge))).rejects.toBe(tooLarge);
    expect(openTemporaryFiles()).toEqual([]);
  });

  it('reads back what was written, at any offset and in chunks of 64 KiB', async () => {
    const bytes = randomBytes(200_000);
    const file = await SpooledFile.of(pieces(bytes.subarray(0, 70_000), bytes.subarray(70_000)));
    try {
      expect(file.size).toBe(bytes.length);
      expect(await file.read(69_990, 20)).toEqual(bytes.subarray(69_990, 70_010));
      const chunks: Buffer[] = [];
      for await (const chunk of file.chunks(1000, 199_000)) chunks.push(chunk);
      expect(chunks.map((c) => c.length)).toEqual([65_536, 65_536, 65_536, 1_392]);
      expect(Buffer.concat(chunks)).toEqual(bytes.subarray(1000, 199_000));
    } finally {
      await file.close();
    }
    expect(openTemporaryFiles()).toEqual([]);
  });
});
