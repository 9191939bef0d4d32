import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { TMP_DIR } from '../helpers/config';
import { unique } from '../helpers/factory';

const ROOT = path.join(__dirname, '..', '..');
const START_TIMEOUT_MS = 60_000;
/** every server this file started, so that none outlives a failed test */
const started: Running[] = [];
const EXIT_TIMEOUT_MS = 5_000;

jest.setTimeout(START_TIMEOUT_MS + 30_000);

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

interface Running {
  child: ChildProcess;
  port: number;
  records: Array<Record<string, unknown>>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `tsx src/server.ts` on a fresh SQLite file and resolves once it logs that it listens. */
async function startServer(file: string, choosePort = true): Promise<Running> {
  const port = choosePort ? await freePort() : 0;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(DB_|DATABASE_URL|REDIS_URL|RATE_LIMIT|LOGIN_RATE|CORS_|TRUST_PROXY|BODY_LIMIT|JEST|TEST_)/.test(key)) delete env[key];
  }
  Object.assign(env, {
    NODE_ENV: 'development',
    PORT: String(port),
    DB_CLIENT: 'sqlite',
    SQLITE_FILENAME: file,
    LOG_LEVEL: 'info',
    BCRYPT_COST: '4',
  });
  // `node --import tsx`, not `node_modules/.bin/tsx`: the tsx CLI runs the script in a second
  // process and relays signals to it, and when that process does not acknowledge a signal
  // within 2 x 30 ms (a loaded machine) it SIGKILLs it, exit 143, which is no test of ours.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const records: Array<Record<string, unknown>> = [];
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time; stderr: ${stderr}`)), START_TIMEOUT_MS);
    let buffered = '';
    child.stdout!.on('data', (chunk) => {
      buffered += String(chunk);
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push(record);
        if (record.msg === 'directory service listening') {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
  const running = { child, port, records, exited, stderr: () => stderr };
  started.push(running);
  return running;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}

describe('graceful shutdown (src/server.ts)', () => {
  const file = path.join(TMP_DIR, `${unique('shutdown-')}.sqlite3`);
  let server: Running;
  const sockets: net.Socket[] = [];

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    for (const running of started) {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGKILL');
        await running.exited;
      }
    }
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  });

  test('on SIGTERM it finishes the request in flight, closes and exits 0', async () => {
    fs.mkdirSync(TMP_DIR, { recursive: true });
    server = await startServer(file);
    const base = `http://127.0.0.1:${server.port}`;

    // a request served over a keep-alive connection, which must not hold the shutdown up
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(200);

    // a request in flight: its headers are read (the server answers 100 Continue) before
    // SIGTERM, and its body is sent after
    const body = JSON.stringify({ email: 'nobody@example.test', password: 'Not-the-password-1' });
    const socket = net.connect(server.port, '127.0.0.1');
    sockets.push(socket);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    let onData = () => undefined as void;
    socket.on('data', (chunk) => {
      answer += String(chunk);
      onData();
    });
    // the server closes the connection after its answer (Connection: close)
    const answered = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const continued = new Promise<void>((resolve) => {
      onData = () => {
        if (answer.includes('100 Continue')) resolve();
      };
    });
    socket.write(
      `POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
    );
    await within(continued, EXIT_TIMEOUT_MS, 'the 100 Continue');

    server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // still running: it waits for the request in flight
    expect({ exitCode: server.child.exitCode, log: server.records.slice(-3).map((r) => r.msg), stderr: server.stderr() }).toEqual({
      exitCode: null,
      log: expect.any(Array),
      stderr: expect.any(String),
    });
    // and it no longer takes new connections
    await expect(fetch(`${base}/health`)).rejects.toThrow();

    // (written, not ended: a client that half-closes its side aborts its own request)
    socket.write(body);
    await within(answered, EXIT_TIMEOUT_MS, 'the answer to the request in flight');
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
    expect(answer).toContain('Invalid credentials');

    const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGTERM');
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = server.records.map((r) => r.msg);
    expect(messages).toContain('shutting down: finishing requests in flight');
    expect(messages[messages.length - 1]).toBe('stopped');
  });

  test('on SIGINT it closes and exits 0', async () => {
    server = await startServer(file);
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    server.child.kill('SIGINT');
    const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.records.map((r) => r.msg)).toContain('stopped');
  });

  test('with PORT=0 the listening line names the port it actually listens on', async () => {
    server = await startServer(file, false);
    try {
      const listening = server.records.find((r) => r.msg === 'directory service listening')!;
      expect(listening.port).not.toBe(0);
      expect((await fetch(`http://127.0.0.1:${String(listening.port)}/health`)).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
      await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGTERM');
    }
  });
});
