import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { TMP_DIR } from '../helpers/config';
import { unique } from '../helpers/factory';
import { START_TIMEOUT_MS, startServer, stopAll, within, type Running } from '../helpers/server-process';

/**
 * src/server.ts in its own process (SQLite only: the process is what is tested, not the
 * database), stopped by a signal. The tests wait for events (a log line, an answer, a close),
 * not for time.
 */
const EXIT_TIMEOUT_MS = 5_000;
const SHUTTING_DOWN = 'shutting down: finishing requests in flight';

jest.setTimeout(START_TIMEOUT_MS + 30_000);

describe('graceful shutdown (src/server.ts)', () => {
  const file = path.join(TMP_DIR, `${unique('shutdown-')}.sqlite3`);
  let server: Running;
  const sockets: net.Socket[] = [];
  const start = (settings: Record<string, string> = {}, choosePort = true) => startServer(file, settings, choosePort);

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await stopAll();
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  });

  test('on SIGTERM it finishes the request in flight, closes and exits 0', async () => {
    fs.mkdirSync(TMP_DIR, { recursive: true });
    server = await start();
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
    // (not a fixed pause: on a loaded machine the server may take the signal later than that)
    await within(server.logged(SHUTTING_DOWN), EXIT_TIMEOUT_MS, 'the shutdown line');
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
    // (not "the last line": pino writes asynchronously, and at the exit its last lines may
    // overtake a write still in the thread pool)
    expect(messages).toContain('stopped');
  });

  test('on SIGINT it closes and exits 0', async () => {
    server = await start();
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    server.child.kill('SIGINT');
    const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.records.map((r) => r.msg)).toContain('stopped');
  });

  test('with PORT=0 the listening line names the port it actually listens on', async () => {
    server = await start({}, false);
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
