import { parentPort, workerData } from 'node:worker_threads';

/**
 * The import scenario's health probe (transfer.ts), run in a worker thread of its own: the
 * bench's own event loop builds a 16 MB file, sends it and runs autocannon beside it, and a
 * stall of its own (a collection, the file's encoding: up to 220 ms seen) would be timed as the
 * service's. It says 'asking' once it has begun to ask GET /health every `everyMs` (Node's
 * fetch), and when the parent posts a message, answers with each request's time and how many failed.
 */

export interface ProbeData {
  url: string;
  everyMs: number;
}

export interface ProbeTimes {
  times: number[];
  failed: number;
}

if (parentPort) {
  const port = parentPort;
  const { url, everyMs } = workerData as ProbeData;
  const times: number[] = [];
  const pending: Array<Promise<void>> = [];
  let failed = 0;
  const ask = () => {
    const sent = performance.now();
    pending.push(
      fetch(`${url}/health`, { signal: AbortSignal.timeout(60_000) })
        .then(async (res) => {
          await res.arrayBuffer();
          if (!res.ok) failed++;
          times.push(performance.now() - sent);
        })
        .catch(() => void failed++),
    );
  };
  const timer = setInterval(ask, everyMs);
  port.postMessage('asking');
  port.once('message', async () => {
    clearInterval(timer);
    await Promise.all(pending);
    port.postMessage({ times, failed } satisfies ProbeTimes);
  });
}
