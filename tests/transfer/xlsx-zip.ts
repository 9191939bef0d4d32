import zlib from 'node:zlib';

/**
 * Workbooks made byte by byte, for the tests of what an .xlsx may cost to read: zip bombs
 * (import-bomb.test.ts), the worst workbooks within the limits (xlsx-crafted.ts) and how a
 * sheet is read (xlsx-reading.test.ts).
 */

export const MiB = 1024 * 1024;

/** A part of a zip: its deflated bytes, its real size and CRC, and the sizes its directory declares (a lie when told). */
export interface Part {
  name: string;
  deflated: Buffer;
  size: number;
  crc: number;
  declared?: { size?: number; compressedSize?: number };
}

/**
 * A part whose text is `head`, then `unit` `times` over, then `tail`, deflated without ever
 * holding the whole: each piece is a separate full-flushed deflate stream, so the repeated unit
 * is compressed once and its bytes concatenated (1 MiB of one character is ~1 KB deflated).
 */
export function repeatedPart(name: string, head: string, unit: string, times: number, tail: string): Part {
  const full = { finishFlush: zlib.constants.Z_FULL_FLUSH };
  const unitBytes = Buffer.from(unit);
  let crc = zlib.crc32(head);
  for (let i = 0; i < times; i++) crc = zlib.crc32(unitBytes, crc);
  crc = zlib.crc32(tail, crc);
  const block = zlib.deflateRawSync(unitBytes, full);
  const deflated = Buffer.concat([zlib.deflateRawSync(head, full), ...Array<Buffer>(times).fill(block), zlib.deflateRawSync(tail)]);
  return { name, deflated, size: Buffer.byteLength(head) + unitBytes.length * times + Buffer.byteLength(tail), crc };
}

/** repeatedPart for a small unit: repeated a block of some 64 KiB at a time, which deflates to a few hundred bytes. */
export function bulkPart(name: string, head: string, unit: string, times: number, tail: string): Part {
  const perBlock = Math.max(1, Math.floor((64 * 1024) / Buffer.byteLength(unit)));
  return repeatedPart(name, head, unit.repeat(perBlock), Math.floor(times / perBlock), unit.repeat(times % perBlock) + tail);
}

export const textPart = (name: string, text: string): Part => repeatedPart(name, text, '', 0, '');

/** A part of `pieces` in turn, deflated a MiB at a time as it is made (text too varied to repeat, too large to hold as one string). */
export function piecesPart(name: string, pieces: Iterable<string>): Part {
  const out: Buffer[] = [];
  let [size, crc, pending] = [0, 0, ''];
  const flush = (last: boolean) => {
    const bytes = Buffer.from(pending);
    size += bytes.length;
    crc = zlib.crc32(bytes, crc);
    out.push(zlib.deflateRawSync(bytes, { level: 6, ...(last ? {} : { finishFlush: zlib.constants.Z_FULL_FLUSH }) }));
    pending = '';
  };
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= MiB) flush(false);
  }
  flush(true);
  return { name, deflated: Buffer.concat(out), size, crc };
}

/** A zip of `parts` (deflated), its directory and local headers declaring what each part says. */
export function zipOf(parts: readonly Part[]): Buffer {
  const chunks: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const size = part.declared?.size ?? part.size;
    const compressedSize = part.declared?.compressedSize ?? part.deflated.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(part.crc, 14);
    local.writeUInt32LE(compressedSize, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    local.copy(central, 6, 4, 30);
    central.writeUInt32LE(offset, 42);
    chunks.push(local, name, part.deflated);
    directory.push(central, name);
    offset += local.length + name.length + part.deflated.length;
  }
  const centralDirectory = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(centralDirectory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, centralDirectory, end]);
}

export const NS = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
export const RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

/** The parts around a sheet: what a reader needs to find the first worksheet. */
export function workbookParts(): Part[] {
  return [
    textPart('xl/workbook.xml', `<?xml version="1.0"?><workbook ${NS} xmlns:r="${RELS}"><sheets><sheet name="Contacts" sheetId="1" r:id="rId1"/></sheets></workbook>`),
    textPart(
      'xl/_rels/workbook.xml.rels',
      `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${RELS}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
    ),
  ];
}

/** A one-cell sheet whose cell is shared string 0. */
export const oneCellSheet = () => textPart('xl/worksheets/sheet1.xml', `<?xml version="1.0"?><worksheet ${NS}><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`);

/** A workbook whose one shared string is `mib` MiB of one letter. */
export function sharedStringBomb(mib: number): Part[] {
  const strings = repeatedPart('xl/sharedStrings.xml', `<?xml version="1.0"?><sst ${NS} count="1" uniqueCount="1"><si><t>`, 'a'.repeat(MiB), mib, '</t></si></sst>');
  return [...workbookParts(), strings, oneCellSheet()];
}

/** A workbook whose sheet is `mib` MiB of one row repeated (16,912 rows a MiB). */
export function sheetBomb(mib: number): Part[] {
  const row = '<row r="2"><c r="A2" t="inlineStr"><is><t>x</t></is></c></row>';
  const unit = row.repeat(Math.floor(MiB / row.length));
  return [...workbookParts(), repeatedPart('xl/worksheets/sheet1.xml', `<?xml version="1.0"?><worksheet ${NS}><sheetData>`, unit, mib, '</sheetData></worksheet>')];
}

/** The letters of column `n` (from 1): A, B, ... Z, AA... */
export function columnName(n: number): string {
  let name = '';
  for (let k = n; k > 0; k = Math.floor((k - 1) / 26)) name = String.fromCharCode(65 + ((k - 1) % 26)) + name;
  return name;
}
