import { Readable, pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { AppError, ValidationError } from '../../lib/errors';
import { MAX_CELL_CHARS } from './columns';
import { directoryOf, unreadable, type ZipPart } from './zip-directory';
import { CHUNK, type ZipSource } from './zip-source';

export type { ZipPart } from './zip-directory';

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

export const SHARED_STRINGS = 'xl/sharedStrings.xml';
/** A worksheet's part: the first of them in the zip is the one imported, as exceljs's streaming reader took it. */
export const WORKSHEET = /xl\/worksheets\/sheet\d+[.]xml/;
/** The parts the reader parses as XML (xlsx-sheet.ts, xlsx-strings.ts). */
const parsedAsXml = (name: string) => name === SHARED_STRINGS || WORKSHEET.test(name);

/** A size in MiB, rounded up (a size found) or down (a limit), so that one never reads as the other. */
const MiB = (bytes: number, round: (x: number) => number = Math.ceil) => `${round(bytes / (1024 * 1024))} MiB`;

/**
 * Checks an .xlsx zip before any part is parsed, and gives its parts in the order of their data:
 * 413 when its parts declare more than the limits, 400 when a part inflates to other than it
 * declares, holds a text longer than maxTextBytes, or the zip is damaged. Each part is inflated
 * as a stream and dropped: memory stays at a chunk whatever the ratio. The reader inflates the
 * parts it parses again (`inflated`), which is then byte for byte what was checked.
 */
export async function checkedXlsx(file: ZipSource, maxRows: number): Promise<ZipPart[]> {
  const parts = await directoryOf(file);
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
    yield* part.source.chunks(part.dataStart, part.dataEnd);
    return;
  }
  const inflater = inflaterOf(part);
  try {
    for await (const chunk of inflater) yield chunk as Buffer;
  } finally {
    inflater.destroy();
  }
}

/** An inflater fed the part's deflated bytes as it takes them; an error reading them is the inflater's. */
function inflaterOf(part: ZipPart): zlib.InflateRaw {
  const inflater = zlib.createInflateRaw({ chunkSize: CHUNK });
  pipeline(Readable.from(part.source.chunks(part.dataStart, part.dataEnd), { objectMode: false }), inflater, () => undefined);
  return inflater;
}

/**
 * Inflates one part as a stream, counting: more bytes than it declares stop the inflating at
 * once (a directory that lies), and at its end the count, the CRC and the compressed length must
 * be the declared ones. The XML parts the reader parses are scanned for a text over maxTextBytes.
 */
async function inflatePart(part: ZipPart): Promise<void> {
  const scanTexts = parsedAsXml(part.name) ? textLength(part.name) : undefined;
  let [size, crc] = [0, 0];
  const take = (chunk: Buffer) => {
    size += chunk.length;
    if (size > part.size) throw unreadable(`${part.name} inflates to more than the ${part.size} bytes its directory declares`);
    crc = zlib.crc32(chunk, crc);
    scanTexts?.(chunk);
  };
  if (part.method === 0) {
    for await (const chunk of part.source.chunks(part.dataStart, part.dataEnd)) take(chunk);
  } else {
    const inflater = inflaterOf(part);
    try {
      for await (const chunk of inflater) take(chunk as Buffer);
    } catch (err) {
      if (err instanceof AppError) throw err;
      throw unreadable(`${part.name} cannot be inflated`);
    }
    if (inflater.bytesWritten !== part.compressedSize) throw unreadable(`${part.name} has data past its end`);
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
