import { createReadStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { mapHeader } from '../../src/modules/transfer/columns';
import { readRows } from '../../src/modules/transfer/import.rows';
import { readSheet } from '../../src/modules/transfer/sheet';

/**
 * Reads one upload as the import does (readSheet, then readRows) in a process of its own, and
 * prints how far its resident memory grew, as one line of JSON. Run by xlsx-memory.test.ts as
 * `node --expose-gc --max-old-space-size=384 --import tsx xlsx-memory-probe.ts FILE WARM-UP-FILE MAX-ROWS`
 * (384 MiB: the heap the service runs with, Dockerfile).
 *
 * A small workbook is read first, as an earlier upload would have warmed the service up (its
 * code compiled), and the garbage collected. From there the peak is the larger of the kernel's
 * high-water mark (VmHWM, reset through /proc/self/clear_refs) and process.memoryUsage.rss()
 * sampled every millisecond. The upload streams from disk after the start, as a request's body
 * streams in (written to a temporary file, zip-source.ts).
 * `sheet_mib`: the growth up to the end of readSheet (the upload received and parsed, its rows held);
 * `read_mib`: up to the end of readRows (the ImportRows the import then plans, as for a CSV of
 * those rows). `sheet_ms`, `read_ms`: how long each took.
 */

const MiB = 1024 * 1024;
const mib = (bytes: number) => Math.round((bytes / MiB) * 10) / 10;
const highWaterMark = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024;

/** The outcome of reading `file`: how many rows the import would plan, or the error's status and first message. */
async function readAsTheImportDoes(file: Readable, maxRows: number, parsed: () => void = () => {}): Promise<Record<string, unknown>> {
  try {
    const sheet = await readSheet(file, maxRows);
    parsed();
    const { rows } = await readRows(sheet, mapHeader(sheet.header), false);
    return { rows: rows.length };
  } catch (err) {
    const e = err as { status?: number; message?: string; errors?: Array<{ message: string }> };
    return { status: e.status ?? 500, message: e.errors?.[0]?.message ?? e.message };
  }
}

async function main(): Promise<void> {
  const [path, warmUpPath, maxRowsArg] = process.argv.slice(2);
  const maxRows = Number(maxRowsArg);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  await readAsTheImportDoes(createReadStream(warmUpPath), maxRows);
  gc();
  gc();

  const before = process.memoryUsage.rss();
  writeFileSync('/proc/self/clear_refs', '5');
  let sampled = before;
  const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage.rss())), 1);
  const peak = () => Math.max(sampled, process.memoryUsage.rss(), highWaterMark());
  const started = performance.now();
  // streamed from disk as a request's body streams in: the route writes it to a temporary file and reads it from there
  const file = createReadStream(path);
  let sheet: { mib: number; ms: number } | null = null;
  const outcome = await readAsTheImportDoes(file, maxRows, () => (sheet = { mib: mib(peak() - before), ms: Math.round(performance.now() - started) }));
  const read = { mib: mib(peak() - before), ms: Math.round(performance.now() - started) };
  clearInterval(sampler);
  const parsed = (sheet as { mib: number; ms: number } | null) ?? read; // readSheet refused it
  process.stdout.write(`${JSON.stringify({ ...outcome, file_mib: mib(statSync(path).size), sheet_mib: parsed.mib, sheet_ms: parsed.ms, read_mib: read.mib, read_ms: read.ms })}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
