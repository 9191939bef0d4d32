import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

/**
 * What the import scenario measures beside the import (transfer.ts), run in a worker thread of
 * its own: the bench's own event loop builds a 16 MB file and sends it, and a stall of its own
 * (a collection, the file's encoding: up to 220 ms seen) would be timed as the service's.
 * - get by id from two connections, each request sent once the last has answered (autocannon),
 *   cycling through `paths`;
 * - GET /health every `everyMs` whether or not the last has answered (Node's fetch), so that a
 *   stall of the service shows as the time each request it held waited.
 * It says 'asking' once both have begun, and when the parent posts a message, stops and answers
 * with get by id's figures, each health request's time and how many failed.
 */

export interface ProbeData {
  url: string;
  token: string;
  paths: string[];
  everyMs: number;
}

export interface ProbeResults {
  /** get by id: its rate and latencies (ms), and answers other than 2xx */
  beside: { requests_per_s: number; p50_ms: number; p99_ms: number; max_ms: number; non_2xx: number };
  times: number[];
  failed: number;
}

/** autocannon's own summing of its workers' results (not in its type declarations) */
const aggregate = (autocannon as unknown as { aggregateResult: (results: unknown[], opts: object) => autocannon.Result }).aggregateResult;

if (parentPort) {
  const port = parentPort;
  const { url, token, paths, everyMs } = workerData as ProbeData;
  let next = 0;
  const beside = autocannon({
    url,
    connections: 2,
    duration: 3600,
    headers: { authorization: `Bearer ${token}` },
    requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: paths[next++ % paths.length] }) }],
  });
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
    (beside as unknown as { stop: () => void }).stop();
    const [raw] = (await Promise.all([beside, ...pending])) as unknown as [{ totalCompletedRequests: number; duration: number }];
    // outside the main thread autocannon answers as to a worker of its own: its latencies as an
    // encoded histogram, which its own summing decodes, and no rate per second (counted here)
    const load = aggregate([raw], { url, connections: 2 });
    const figures = { requests_per_s: Math.round(raw.totalCompletedRequests / raw.duration), p50_ms: load.latency.p50, p99_ms: load.latency.p99, max_ms: load.latency.max, non_2xx: load.non2xx };
    port.postMessage({ beside: figures, times, failed } satisfies ProbeResults);
  });
}
