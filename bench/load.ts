/**
 * The load side of the benchmark: the processes it starts (the service, the bare handler), a
 * scenario driven with autocannon, and loads run in turns so that their ratio compares like
 * with like. bench/run.ts decides what runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';

/**
 * The environment of a service started for a measurement: as deployed (production, warn-level
 * logs), the rate limit out of the way (it measures throughput, not the brute-force limits), and
 * the configured first administrator, who signs in to drive it.
 */
export function serviceEnv(admin: { email: string; password: string }, port: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    RATE_LIMIT_MAX: '10000000',
    JWT_SECRET: process.env.JWT_SECRET || 'bench-access-secret-0123456789abcdefghij',
    JWT_REFRESH_SECRET: process.env.JWT_REFRESH_SECRET || 'bench-refresh-secret-0123456789abcdefghij',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
    // the write scenarios with a webhook subscribed deliver to a receiver on 127.0.0.1 (webhook-on.ts)
    WEBHOOKS_ALLOW_PRIVATE: 'true',
    // glibc as the image sets it (Dockerfile): its thresholds fixed, so that large freed blocks
    // go back to the system, and two arenas, where each thread (the search walk thread, say)
    // would get one of its own that keeps what it freed
    MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072',
    MALLOC_TRIM_THRESHOLD_: process.env.MALLOC_TRIM_THRESHOLD_ ?? '131072',
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  };
}

/** An access token of the administrator. */
export async function signIn(url: string, admin: { email: string; password: string }): Promise<string> {
  const login = await fetch(`${url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: admin.email, password: admin.password }),
  });
  if (!login.ok) throw new Error(`cannot sign in as ${admin.email}: ${login.status}`);
  return ((await login.json()) as { data: { token: string } }).data.token;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a child process and waits until `readyUrl` answers 200. Its standard output (the
 * service's log lines, warnings and errors only: LOG_LEVEL=warn) goes to a file in the system's
 * temporary folder, named on stderr, so that a 5xx in a run can be looked up afterwards.
 */
export async function start(command: string, args: string[], env: NodeJS.ProcessEnv, readyUrl: string): Promise<ChildProcess> {
  const log = path.join(os.tmpdir(), `bench-${new URL(readyUrl).port}.log`);
  const child = spawn(command, args, { env, stdio: ['ignore', fs.openSync(log, 'w'), 'inherit'] });
  process.stderr.write(`${args.at(-1)} on port ${new URL(readyUrl).port}: its log in ${log}\n`);
  let exited: number | null = null;
  child.on('exit', (code) => (exited = code ?? -1));
  for (let waited = 0; waited < 60_000; waited += 200) {
    if (exited !== null) throw new Error(`${args.join(' ')} exited with ${exited}`);
    const ok = await fetch(readyUrl).then((r) => r.status !== 503, () => false);
    if (ok) return child;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  child.kill('SIGKILL');
  throw new Error(`${args.join(' ')} did not start`);
}

/**
 * Waits until a service's search index is built (GET /ready's `search_index`; each service
 * builds it at start): a scenario measured during the build would measure SQL and the build.
 */
export async function indexBuilt(url: string): Promise<void> {
  for (let waited = 0; waited < 300_000; waited += 500) {
    const state = await fetch(`${url}/ready`).then(async (r) => ((await r.json()) as { data?: { search_index?: string } }).data?.search_index, () => undefined);
    if (state === 'built' || state === 'off') return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url}: the search index was not built in 5 minutes`);
}

/** The highest resident set size a process has had since it started, in MiB (Linux /proc VmHWM); null elsewhere. */
export function rssHighWater(pid: number): number | null {
  try {
    const kb = Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return kb ? Math.round(kb / 1024) : null;
  } catch {
    return null; // not Linux, or the process is gone
  }
}

/** The highest resident set size of a process while `work` runs, in MiB (Linux /proc). */
export async function peakRss<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; peakMb: number | null }> {
  let peak = 0;
  const sample = () => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      peak = Math.max(peak, kb);
    } catch {
      // not Linux, or the process is gone
    }
  };
  const timer = setInterval(sample, 100);
  try {
    const result = await work();
    sample();
    return { result, peakMb: peak ? Math.round(peak / 1024) : null };
  } finally {
    clearInterval(timer);
  }
}

export interface Scenario {
  name: string;
  target: string;
  method?: 'GET' | 'PUT' | 'PATCH';
  /** a fresh path (and body, and method when the scenario mixes them) per request */
  next: () => { path: string; body?: string; method?: 'GET' | 'PUT' | 'PATCH' };
  /** connections of its own (the bench's --connections otherwise) */
  connections?: number;
  /** send the ETag of a first GET of the path as If-None-Match on every request (a 304 is the answer) */
  revalidate?: boolean;
  /** more request headers (Accept-Encoding, say) */
  headers?: Record<string, string>;
  /** time the first byte of the body too, one request at a time (a streamed answer: firstBytesOf) */
  firstBytes?: boolean;
}

/** The ETag a GET of the scenario's path answers now. */
async function currentETag(url: string, scenario: Scenario, token: string | null): Promise<string> {
  const res = await fetch(`${url}${scenario.next().path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  await res.arrayBuffer();
  const tag = res.headers.get('etag');
  if (!res.ok || !tag) throw new Error(`${scenario.name}: no ETag to revalidate (${res.status})`);
  return tag;
}

export async function drive(url: string, scenario: Scenario, token: string | null, connections: number, seconds: number) {
  const etag = scenario.revalidate ? await currentETag(url, scenario, token) : null;
  const result = await autocannon({
    url,
    connections: scenario.connections ?? connections,
    duration: seconds,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...scenario.headers },
    requests: [
      {
        method: scenario.method ?? 'GET',
        setupRequest: (req) => {
          const { path: p, body, method } = scenario.next();
          // headers of its own: autocannon writes a body's Content-Length into the headers
          // object it is given, which a GET after a PUT would otherwise send too
          const { 'Content-Length': _length, ...headers } = req.headers ?? {};
          return { ...req, path: p, ...(method ? { method } : {}), body: body ?? '', headers: { ...headers, ...(etag ? { 'if-none-match': etag } : {}) } };
        },
      },
    ],
  });
  return {
    name: scenario.name,
    target: scenario.target,
    requests_per_s: Math.round(result.requests.average),
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    total: result.requests.total,
    non_2xx: result.non2xx,
    status_304: result['3xx'],
    status_5xx: result['5xx'],
    errors: result.errors + result.timeouts,
  };
}

export type Figures = Awaited<ReturnType<typeof drive>>;

/**
 * One request of a scenario before its timed run, timed on its own: what a cold cache or a
 * buffer pool that other scenarios have filled costs the first caller (a summary computed for
 * the first time, say), which would otherwise stall the timed run's connections.
 */
export async function firstRequest(url: string, scenario: Scenario, token: string) {
  const { path: p, body, method } = scenario.next();
  const started = performance.now();
  const res = await fetch(`${url}${p}`, {
    method: method ?? scenario.method ?? 'GET',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...scenario.headers },
    body,
    signal: AbortSignal.timeout(300_000),
  });
  await res.arrayBuffer();
  return { first_ms: Math.round(performance.now() - started), first_status: res.status };
}

/** One GET of `url`, its body read as it comes: its status, the time to the first byte of the body and to its end (ms), and its bytes. */
export async function timed(url: string, token: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}`, ...headers }, signal: AbortSignal.timeout(300_000) });
  const reader = res.body!.getReader();
  let firstByte: number | null = null;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    firstByte ??= performance.now() - started;
    if (done) break;
    bytes += value.length;
  }
  return { status: res.status, first_ms: firstByte, total_ms: performance.now() - started, bytes };
}

/**
 * The time to the first byte of the body and to its end of `runs` requests of the scenario, one
 * after another (timed): the median and the slowest of each, in ms.
 */
export async function firstBytesOf(url: string, scenario: Scenario, token: string, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t = await timed(`${url}${scenario.next().path}`, token, scenario.headers);
    if (t.status >= 300) throw new Error(`${scenario.name} answered ${t.status}`);
    times.push(t);
  }
  const median = (xs: number[]) => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
  const first = times.map((t) => t.first_ms);
  return { first_byte_p50_ms: median(first), first_byte_max_ms: Math.round(Math.max(...first)), whole_p50_ms: median(times.map((t) => t.total_ms)) };
}

/** One set of figures for slices of one run: requests over the whole time, the median p50, the worst p99. */
function combined(slices: Figures[], seconds: number): Figures {
  const sum = (pick: (f: Figures) => number) => slices.reduce((total, f) => total + pick(f), 0);
  const p50s = slices.map((f) => f.p50_ms).sort((x, y) => x - y);
  return {
    ...slices[0],
    requests_per_s: Math.round(sum((f) => f.total) / seconds),
    p50_ms: p50s[Math.floor(p50s.length / 2)],
    p99_ms: Math.max(...slices.map((f) => f.p99_ms)),
    total: sum((f) => f.total),
    non_2xx: sum((f) => f.non_2xx),
    status_304: sum((f) => f.status_304),
    status_5xx: sum((f) => f.status_5xx),
    errors: sum((f) => f.errors),
  };
}

const ROUNDS = 5;

/**
 * Runs loads in turns, a fifth of the time each, after a second of each to warm up: the speed
 * of a shared machine drifts over minutes, and a ratio of two runs taken minutes apart
 * measured that drift as much as the service.
 */
export async function alternate(loads: Array<(seconds: number) => Promise<Figures>>, seconds: number): Promise<Figures[]> {
  for (const load of loads) await load(1);
  const slices: Figures[][] = loads.map(() => []);
  for (let i = 0; i < ROUNDS; i++) {
    for (const [j, load] of loads.entries()) slices[j].push(await load(seconds / ROUNDS));
  }
  return slices.map((s) => combined(s, seconds));
}

/** How many requests of `route` a service with METRICS_ENABLED=true counted, every method and status. */
export async function requestsCounted(url: string, route: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('http_request_duration_seconds_count{') && line.includes(`route="${route}"`)) total += Number(line.split(' ').pop());
  }
  return total;
}
