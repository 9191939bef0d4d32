/**
 * A cold start (issue 27 items 1 and 5): starts the built service as the image starts it
 * (production, heap capped at 384 MiB, semi-spaces at 8 MiB), polls `GET /ready` every 200 ms
 * from its launch, and prints when `/ready` first answers 200, when its search index is built,
 * and the process's peak RSS until then (VmHWM). Runs one after another:
 *
 *   npm run build && DB_CLIENT=mysql DB_NAME=directory_million npx tsx bench/cold-start.ts [--runs 3]
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { loadConfig } from '../src/config';
import { freePort, rssHighWater, serviceEnv } from './load';

async function once(): Promise<string> {
  const port = await freePort();
  const launched = Date.now();
  const child = spawn(process.execPath, ['--max-old-space-size=384', '--max-semi-space-size=8', 'dist/src/server.js'], {
    env: serviceEnv(loadConfig(process.env).admin, port),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    let ready: number | null = null;
    for (let waited = 0; waited < 300_000; waited += 200) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}`);
      const res = await fetch(`http://127.0.0.1:${port}/ready`).catch(() => null);
      if (!res) continue;
      const state = ((await res.json()) as { data?: { search_index?: string } }).data?.search_index;
      if (res.status === 200) ready ??= Date.now() - launched;
      if (state === 'built') return `/ready 200 after ${ready} ms, search_index built after ${Date.now() - launched} ms, peak RSS ${rssHighWater(child.pid!)} MiB`;
    }
    throw new Error('the search index was not built in 5 minutes');
  } finally {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--runs');
  const runs = at > 0 ? Number(process.argv[at + 1]) : 3;
  console.warn(`${os.cpus().length} CPUs (${os.cpus()[0]?.model}), Node ${process.version}, ${process.env.DB_CLIENT ?? 'sqlite'} ${process.env.DB_NAME ?? ''}`);
  for (let run = 0; run < runs; run++) console.warn(await once());
}

void main();
