/**
 * What the in-memory search index of the current database holds (issue 27): builds one snapshot
 * and prints its heap, its array buffers (the typed arrays: postings and columns) and the growth
 * of the process's RSS during the build. Run with the GC exposed, so the figures are retained memory:
 *
 *   DB_CLIENT=mysql DB_NAME=directory_bench node --expose-gc --import tsx bench/index-memory.ts
 */
import os from 'node:os';
import { loadConfig } from '../src/config';
import { createDb } from '../src/lib/db';
// the bench measures the snapshot itself, which the contacts module keeps inside
// eslint-disable-next-line import-x/no-restricted-paths
import { SearchSnapshot } from '../src/modules/contacts/search/snapshot';

const MiB = 2 ** 20;
const gc = (globalThis as { gc?: () => void }).gc;

async function main(): Promise<void> {
  if (!gc) throw new Error('run node with --expose-gc');
  const db = createDb(loadConfig().db);
  try {
    gc();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
    const started = Date.now();
    const snapshot = await SearchSnapshot.load(db);
    const ms = Date.now() - started;
    clearInterval(sampler);
    gc();
    const after = process.memoryUsage();
    console.warn(`${os.cpus().length} CPUs (${os.cpus()[0]?.model}), Node ${process.version}; ${snapshot.size} contacts, built in ${ms} ms`);
    console.warn(`retained: heap ${((after.heapUsed - before.heapUsed) / MiB).toFixed(1)} MiB, array buffers ${((after.arrayBuffers - before.arrayBuffers) / MiB).toFixed(1)} MiB`);
    console.warn(`RSS: +${((peakRss - before.rss) / MiB).toFixed(0)} MiB at the build's peak, +${((after.rss - before.rss) / MiB).toFixed(0)} MiB after it`);
  } finally {
    await db.destroy();
  }
}

void main();
