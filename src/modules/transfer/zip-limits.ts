import zlib from 'node:zlib';
import { AppError, ValidationError } from '../../lib/errors';
import { MAX_CELL_CHARS } from './columns';

/**
 * How far an .xlsx may inflate (docs/import-export.md, "Limits"). A workbook is a zip: 0.4 MB
 * can inflate to 400 MiB, so these hold while the parts are inflated, before any is parsed.
 * They grow with IMPORT_MAX_ROWS because a legitimate workbook does: 100,000 rows of the 13
 * columns measured 50 to 64 MB of sheet XML (exceljs's writers) and 11.4 MB of shared strings
 * (five distinct strings a row).
 */
export const XLSX_LIMITS = {
  /** All parts together: styles, theme, a list sheet, pictures... */
  baseBytes: 32 * 1024 * 1024,
  /** ...and per row: a 13-column row takes 500 to 640 bytes of XML, so this leaves room for ~25 more columns. */
  bytesPerRow: 1024,
  /** xl/sharedStrings.xml: parsed three times (xlsx-strings.ts), so bounded apart. */
  sharedStringsBaseBytes: 8 * 1024 * 1024,
  sharedStringsBytesPerRow: 256,
  /**
   * The longest stretch of an XML part the reader parses that holds no tag: one text, which the
   * XML parser builds as one string. A cell of MAX_CELL_CHARS characters takes at most ~10 KB
   * even escaped (Excel's own limit, 32,767 characters, ~330 KB); above 2 MiB a text is no cell
   * anyone typed.
   */
  maxTextBytes: 2 * 1024 * 1024,
  /**
   * What the rows keep of the cells of the columns the import reads (sheet-rows.ts): their text
   * as UTF-8, a byte between two cells, up to 8 a reference to a shared string and 6 a string
   * referred to. The sheet may inflate to 129 MiB, far more text than a CSV upload can carry;
   * a row of the 13 columns keeps 100 to 250 bytes.
   */
  keptTextBaseBytes: 4 * 1024 * 1024,
  keptTextBytesPerRow: 256,
  /** Parts of one workbook: a workbook of a few sheets has some 10 to 40. */
  maxParts: 1000,
} as const;

/** The limits for a file of at most `maxRows` data rows. */
export function inflateLimits(maxRows: number): { totalBytes: number; sharedStringsBytes: number; keptTextBytes: number } {
  const L = XLSX_LIMITS;
  return {
    totalBytes: L.baseBytes + maxRows * L.bytesPerRow,
    sharedStringsBytes: L.sharedStringsBaseBytes + maxRows * L.sharedStringsBytesPerRow,
    keptTextBytes: L.keptTextBaseBytes + maxRows * L.keptTextBytesPerRow,
  };
}

/** One part of the zip, as its central directory declares it. */
export interface ZipPart {
  name: string;
  rawName: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  /** Its deflated bytes: a view of the upload. */
  data: Buffer;
}

export const SHARED_STRINGS = 'xl/sharedStrings.xml';
/** A worksheet's part: the first of them in the zip is the one imported, as exceljs's streaming reader took it. */
export const WORKSHEET = /xl\/worksheets\/sheet\d+[.]xml/;
/** The parts the reader parses as XML (xlsx-sheet.ts, xlsx-strings.ts). */
const parsedAsXml = (name: string) => name === SHARED_STRINGS || WORKSHEET.test(name);

const unreadable = (why: string) => ValidationError.field('file', `The file is not a readable .xlsx workbook: ${why}`);
/** A size in MiB, rounded up (a size found) or down (a limit), so that one never reads as the other. */
const MiB = (bytes: number, round: (x: number) => number = Math.ceil) => `${round(bytes / (1024 * 1024))} MiB`;
const CHUNK = 64 * 1024;

/**
 * Checks an .xlsx zip before any part is parsed, and gives its parts in the order of their data:
 * 413 when its parts declare more than the limits, 400 when a part inflates to other than it
 * declares, holds a text longer than maxTextBytes, or the zip is damaged. Each part is inflated
 * as a stream and dropped: memory stays at a chunk whatever the ratio. The reader inflates the
 * parts it parses again (`inflated`), which is then byte for byte what was checked.
 */
export async function checkedXlsx(file: Buffer, maxRows: number): Promise<ZipPart[]> {
  const parts = directoryOf(file);
  const limits = inflateLimits(maxRows);
  const strings = parts.filter((p) => p.name === SHARED_STRINGS).reduce((sum, p) => sum + p.size, 0);
  if (strings > limits.sharedStringsBytes) {
    throw new AppError(413, `The workbook's shared strings inflate to ${MiB(strings)}; at most ${MiB(limits.sharedStringsBytes, Math.floor)} are read for IMPORT_MAX_ROWS ${maxRows}`);
  }
  const total = parts.reduce((sum, p) => sum + p.size, 0);
  if (total > limits.totalBytes) {
    throw new AppError(413, `The workbook inflates to ${MiB(total)}; at most ${MiB(limits.totalBytes, Math.floor)} are read for IMPORT_MAX_ROWS ${maxRows}`);
  }
  for (const part of parts) await inflatePart(part);
  return parts;
}

/** The inflated bytes of a checked part, 64 KiB at a time; the inflater stops when the caller does. */
export async function* inflated(part: ZipPart): AsyncGenerator<Buffer> {
  if (part.method === 0) {
    for (let at = 0; at < part.data.length; at += CHUNK) yield part.data.subarray(at, at + CHUNK);
    return;
  }
  const inflater = zlib.createInflateRaw({ chunkSize: CHUNK });
  inflater.end(part.data);
  try {
    for await (const chunk of inflater) yield chunk as Buffer;
  } finally {
    inflater.destroy();
  }
}

/** The parts of the central directory, in the order of their data, each checked to lie inside the file and apart from the others. */
function directoryOf(zip: Buffer): ZipPart[] {
  const end = endOfDirectory(zip);
  const count = zip.readUInt16LE(end + 10);
  const directoryStart = zip.readUInt32LE(end + 16);
  if (count === 0xffff || directoryStart === 0xffffffff) throw unreadable('a ZIP64 archive');
  if (count > XLSX_LIMITS.maxParts) throw new AppError(413, `The workbook has ${count} parts; at most ${XLSX_LIMITS.maxParts} are read`);
  const parts: ZipPart[] = [];
  const names = new Set<string>();
  for (let at = directoryStart, i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== 0x02014b50) throw unreadable('its central directory is damaged');
    const [nameLength, extraLength, commentLength] = [zip.readUInt16LE(at + 28), zip.readUInt16LE(at + 30), zip.readUInt16LE(at + 32)];
    if (at + 46 + nameLength + extraLength + commentLength > end) throw unreadable('its central directory is damaged');
    const rawName = zip.subarray(at + 46, at + 46 + nameLength);
    const declared = { size: zip.readUInt32LE(at + 24), compressedSize: zip.readUInt32LE(at + 20), offset: zip.readUInt32LE(at + 42) };
    const sizes = zip64Sizes(zip.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), declared);
    const flags = zip.readUInt16LE(at + 8);
    const part = { name: rawName.toString('utf8'), rawName, method: zip.readUInt16LE(at + 10), crc: zip.readUInt32LE(at + 16), ...sizes, data: zip.subarray(0, 0) };
    if (flags & 0x1) throw unreadable(`${part.name} is encrypted`);
    if (part.method !== 0 && part.method !== 8) throw unreadable(`${part.name} is compressed by method ${part.method}, not deflate`);
    if (names.has(part.name)) throw unreadable(`it holds ${part.name} twice`);
    names.add(part.name);
    parts.push(part);
    at += 46 + nameLength + extraLength + commentLength;
  }
  parts.sort((a, b) => a.offset - b.offset);
  let free = 0; // the first byte no part holds yet: parts must not overlap, or a few bytes would inflate many times
  for (const part of parts) {
    if (part.offset < free || part.offset + 30 > directoryStart || zip.readUInt32LE(part.offset) !== 0x04034b50) throw unreadable(`the entry of ${part.name} is damaged`);
    const [nameLength, extraLength] = [zip.readUInt16LE(part.offset + 26), zip.readUInt16LE(part.offset + 28)];
    if (!zip.subarray(part.offset + 30, part.offset + 30 + nameLength).equals(part.rawName)) throw unreadable(`the entry of ${part.name} names another part`);
    const dataStart = part.offset + 30 + nameLength + extraLength;
    free = dataStart + part.compressedSize;
    if (free > directoryStart) throw unreadable(`${part.name} runs past the end of the data`);
    part.data = zip.subarray(dataStart, free);
  }
  return parts;
}

/** Where the end-of-central-directory record starts: the last signature whose comment ends the file. */
function endOfDirectory(zip: Buffer): number {
  const signature = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
  if (zip.length < 22) throw unreadable('it has no central directory');
  for (let at = zip.lastIndexOf(signature, zip.length - 22); at >= 0; at = at > 0 ? zip.lastIndexOf(signature, at - 1) : -1) {
    if (at + 22 + zip.readUInt16LE(at + 20) === zip.length) return at;
  }
  throw unreadable('it has no central directory');
}

/** The sizes and offset a ZIP64 extra field holds for those the 32-bit fields mark 0xffffffff. */
function zip64Sizes(extra: Buffer, fields: { size: number; compressedSize: number; offset: number }) {
  const out = { ...fields };
  for (let at = 0; at + 4 <= extra.length; at += 4 + extra.readUInt16LE(at + 2)) {
    if (extra.readUInt16LE(at) !== 0x0001) continue;
    let next = at + 4;
    for (const key of ['size', 'compressedSize', 'offset'] as const) {
      if (fields[key] !== 0xffffffff) continue;
      if (next + 8 > at + 4 + extra.readUInt16LE(at + 2)) throw unreadable('a ZIP64 field is damaged');
      out[key] = Number(extra.readBigUInt64LE(next));
      next += 8;
    }
  }
  if (Object.values(out).some((v) => v === 0xffffffff)) throw unreadable('a ZIP64 field is missing');
  return out;
}

/**
 * Inflates one part as a stream, counting: more bytes than it declares stop the inflating at
 * once (a directory that lies), and at its end the count, the CRC and the compressed length must
 * be the declared ones. The XML parts the reader parses are scanned for a text over maxTextBytes.
 */
async function inflatePart(part: ZipPart): Promise<void> {
  const { data } = part;
  const scanTexts = parsedAsXml(part.name) ? textLength(part.name) : undefined;
  let [size, crc] = [0, 0];
  const take = (chunk: Buffer) => {
    size += chunk.length;
    if (size > part.size) throw unreadable(`${part.name} inflates to more than the ${part.size} bytes its directory declares`);
    crc = zlib.crc32(chunk, crc);
    scanTexts?.(chunk);
  };
  if (part.method === 0) {
    for (let at = 0; at < data.length; at += CHUNK) take(data.subarray(at, at + CHUNK));
  } else {
    const inflater = zlib.createInflateRaw({ chunkSize: CHUNK });
    inflater.end(data);
    try {
      for await (const chunk of inflater) take(chunk as Buffer);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw unreadable(`${part.name} cannot be inflated`);
    }
    if (inflater.bytesWritten !== data.length) throw unreadable(`${part.name} has data past its end`);
  }
  if (size !== part.size) throw unreadable(`${part.name} inflates to ${size} bytes, not the ${part.size} its directory declares`);
  if (crc !== part.crc) throw unreadable(`${part.name} fails its CRC check`);
}

/**
 * The longest run of bytes since a tag began (`<` then a name; a comment, CDATA or processing
 * instruction does not end a text): an upper bound on any text saxes builds whole.
 */
function textLength(part: string): (chunk: Buffer) => void {
  const max = XLSX_LIMITS.maxTextBytes;
  let [runSoFar, afterLtSoFar] = [0, false];
  return (chunk) => {
    let [run, afterLt] = [runSoFar, afterLtSoFar];
    for (let i = 0; i < chunk.length; ) {
      if (afterLt) {
        const b = chunk[i++];
        run = b !== 0x21 && b !== 0x3f ? 2 : run + 1; // 0x21 '!', 0x3f '?'
        afterLt = b === 0x3c; // '<'
      } else {
        // every byte up to the next '<' (found natively: a byte loop took 1.1 s over 128 MiB) adds one
        const lt = chunk.indexOf(0x3c, i);
        const end = lt === -1 ? chunk.length : lt + 1;
        [run, afterLt, i] = [run + end - i, lt !== -1, end];
      }
      if (run > max) throw ValidationError.field('file', `The workbook's ${part} holds a text longer than ${max} bytes; a cell holds at most ${MAX_CELL_CHARS} characters`);
    }
    [runSoFar, afterLtSoFar] = [run, afterLt];
  };
}
