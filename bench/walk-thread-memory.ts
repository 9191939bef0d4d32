/**
 * What a search walk thread (src/modules/contacts/search/walkers.ts) costs before it walks: starts
 * the built thread's entry three times in turn, as walkers.ts starts it (heap capped at 64 MiB, 4 MiB of walks kept),
 * and prints how many modules it loaded and how much RSS it added to this process, with the
 * machine. A thread's walks add only their candidates' small arrays; the index it walks is the
 * service's, in shared memory.
 *
 *   npm run build && npx tsx bench/walk-thread-memory.ts
 */
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

const MiB = 2 ** 20;
const entry = path.resolve(__dirname, '../dist/src/modules/contacts/search/walk-thread.js');

async function start(): Promise<{ modules: number; rssMiB: number }> {
  const before = process.memoryUsage().rss;
  const source = `require(${JSON.stringify(entry)}); require('node:worker_threads').parentPort.postMessage(Object.keys(require.cache).length);`;
  const worker = new Worker(source, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64 }, workerData: { keptBytes: 4 * MiB } });
  const modules = await new Promise<number>((resolve, reject) => worker.once('message', resolve).once('error', reject));
  // the thread's start settles (its heap, its arena) before the reading
  await new Promise((resolve) => setTimeout(resolve, 300));
  const rssMiB = (process.memoryUsage().rss - before) / MiB;
  await worker.terminate();
  return { modules, rssMiB };
}

async function main(): Promise<void> {
  console.warn(`node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`);
  for (let run = 1; run <= 3; run++) {
    const { modules, rssMiB } = await start();
    console.warn(`start ${run}: ${modules} modules, +${rssMiB.toFixed(1)} MiB RSS`);
  }
}

void main();
