import { AppError, ValidationError } from '../../lib/errors';
import type { ZipSource } from './zip-source';

/** One part of the zip, as its central directory declares it. */
export interface ZipPart {
  name: string;
  rawName: Buffer;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  /** The file it lies in, and where its deflated bytes start and end. */
  source: ZipSource;
  dataStart: number;
  dataEnd: number;
}

export const unreadable = (why: string) => ValidationError.field('file', `The file is not a readable .xlsx workbook: ${why}`);

/** The most parts read of one workbook: a workbook of a few sheets has some 10 to 40. */
const MAX_PARTS = 1000;
/** The most bytes of central directory read: 1,000 entries of 46 bytes and a name of up to ~1,000. */
const MAX_DIRECTORY_BYTES = 1024 * 1024;
/** The end-of-central-directory record: 22 bytes, then a comment of up to 65,535. */
const END_RECORD = 22;
const LOCAL_HEADER = 30;

/** The parts of the central directory, in the order of their data, each checked to lie inside the file and apart from the others. */
export async function directoryOf(zip: ZipSource): Promise<ZipPart[]> {
  if (zip.size < END_RECORD) throw unreadable('it has no central directory');
  const tailStart = Math.max(0, zip.size - END_RECORD - 0xffff);
  const tail = await zip.read(tailStart, zip.size - tailStart);
  const record = tail.subarray(endOfDirectory(tail));
  const end = zip.size - record.length;
  const count = record.readUInt16LE(10);
  const directoryStart = record.readUInt32LE(16);
  if (count === 0xffff || directoryStart === 0xffffffff) throw unreadable('a ZIP64 archive');
  if (count > MAX_PARTS) throw new AppError(413, `The workbook has ${count} parts; at most ${MAX_PARTS} are read`);
  if (directoryStart > end) throw unreadable('its central directory is damaged');
  if (end - directoryStart > MAX_DIRECTORY_BYTES) throw unreadable(`its central directory takes more than ${MAX_DIRECTORY_BYTES} bytes`);
  const directory = await zip.read(directoryStart, end - directoryStart);
  const parts: ZipPart[] = [];
  const names = new Set<string>();
  for (let at = 0, i = 0; i < count; i++) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== 0x02014b50) throw unreadable('its central directory is damaged');
    const [nameLength, extraLength, commentLength] = [directory.readUInt16LE(at + 28), directory.readUInt16LE(at + 30), directory.readUInt16LE(at + 32)];
    if (at + 46 + nameLength + extraLength + commentLength > directory.length) throw unreadable('its central directory is damaged');
    const rawName = directory.subarray(at + 46, at + 46 + nameLength);
    const declared = { size: directory.readUInt32LE(at + 24), compressedSize: directory.readUInt32LE(at + 20), offset: directory.readUInt32LE(at + 42) };
    const sizes = zip64Sizes(directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength), declared);
    const flags = directory.readUInt16LE(at + 8);
    const part = { name: rawName.toString('utf8'), rawName, method: directory.readUInt16LE(at + 10), crc: directory.readUInt32LE(at + 16), ...sizes, source: zip, dataStart: 0, dataEnd: 0 };
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
    const headerEnd = part.offset + LOCAL_HEADER + part.rawName.length;
    if (part.offset < free || headerEnd > directoryStart) throw unreadable(`the entry of ${part.name} is damaged`);
    const header = await zip.read(part.offset, headerEnd - part.offset);
    if (header.readUInt32LE(0) !== 0x04034b50) throw unreadable(`the entry of ${part.name} is damaged`);
    const [nameLength, extraLength] = [header.readUInt16LE(26), header.readUInt16LE(28)];
    if (nameLength !== part.rawName.length || !header.subarray(LOCAL_HEADER).equals(part.rawName)) throw unreadable(`the entry of ${part.name} names another part`);
    part.dataStart = headerEnd + extraLength;
    part.dataEnd = free = part.dataStart + part.compressedSize;
    if (free > directoryStart) throw unreadable(`${part.name} runs past the end of the data`);
  }
  return parts;
}

/** Where the end-of-central-directory record starts in the file's last bytes: the last signature whose comment ends the file. */
function endOfDirectory(tail: Buffer): number {
  const signature = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
  for (let at = tail.lastIndexOf(signature, tail.length - END_RECORD); at >= 0; at = at > 0 ? tail.lastIndexOf(signature, at - 1) : -1) {
    if (at + END_RECORD + tail.readUInt16LE(at + 20) === tail.length) return at;
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
