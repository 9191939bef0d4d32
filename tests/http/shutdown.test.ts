import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { TMP_DIR } from '../helpers/config';
import { unique } from '../helpers/factory';
import { postHead, RawClient } from '../helpers/raw-http';
import { expectedStatus, streamClient, type Sent, type StreamState } from '../helpers/request-stream';
import { START_TIMEOUT_MS, startServer, stopAll, until, within, type Running } from '../helpers/server-process';

/**
 * src/server.ts in its own process (SQLite only: the process is what is tested, not the
 * database), stopped by a signal. The tests wait for events (a log line, an answer, a close),
 * not for time; one bound only: with keep-alive connections left open the exit must come well
 * before the keep-alive timeout, which a server waiting for those connections would need.
 */
const EXIT_TIMEOUT_MS = 5_000;
const SHUTTING_DOWN = 'shutting down: finishing requests in flight';
/** how soon after its last answer the server must exit with keep-alive connections open (see the test) */
const IDLE_EXIT_MS = 4_000;
/** the administrator the first server seeds (the file is shared by the servers of this file) */
const ADMIN_EMAIL = 'admin@example.test';
const ADMIN_PASSWORD = 'Shutdown-admin-1';

jest.setTimeout(START_TIMEOUT_MS + 30_000);

describe('graceful shutdown (src/server.ts)', () => {
  const file = path.join(TMP_DIR, `${unique('shutdown-')}.sqlite3`);
  let server: Running;
  const sockets: net.Socket[] = [];
  const start = (settings: Record<string, string> = {}, choosePort = true) =>
    startServer(file, { ADMIN_EMAIL, ADMIN_PASSWORD, ...settings }, choosePort);

  const connect = async (port: number) => {
    const client = await RawClient.connect(port);
    sockets.push(client.socket);
    return client;
  };
  const wrongLogin = JSON.stringify({ email: 'nobody@example.test', password: 'Not-the-password-1' });

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

  test('under a stream of keep-alive requests, SIGTERM: each request sent before it gets its full answer, none started after it is served (no 200), exit 0 before the force timeout', async () => {
    // the force timeout (exit 1) far off, so an exit 0 is a shutdown that ran out of requests;
    // rate limits out of the way of the logins
    server = await start({ SHUTDOWN_TIMEOUT_MS: '20000', RATE_LIMIT_MAX: '1000000', LOGIN_RATE_LIMIT_MAX: '1000000', LOGIN_IP_RATE_LIMIT_MAX: '1000000' });

    // one request certainly in flight at the signal, on a keep-alive connection: its headers
    // are read (100 Continue) before, its body is sent after
    const held = await connect(server.port);
    held.send(postHead('/api/auth/login', wrongLogin, { 'X-Request-Id': 'held' }));
    await within(held.continued(), EXIT_TIMEOUT_MS, 'the 100 Continue');

    // and the stream: four keep-alive clients, two on /ready (a query), two logging in (bcrypt,
    // in the thread pool, and a body sent after the server's 100 Continue)
    const state: StreamState = { signalled: false, shutdownSeen: false, exited: false };
    const shutdown = server.logged(SHUTTING_DOWN);
    void shutdown.then(() => (state.shutdownSeen = true));
    void server.exited.then(() => (state.exited = true));
    const kinds = ['ready', 'ready', 'login', 'login'] as const;
    const streams: Sent[][] = kinds.map(() => []);
    let stopped = false;
    const loops = kinds.map((kind, n) => streamClient(`${kind}-${n}`, kind, server.port, streams[n], state).finally(() => (stopped = true)));
    const answered = (n: number) => streams[n].filter((one) => one.status === expectedStatus(kinds[n])).length;
    // under way: each client has had 20 answers (or one has stopped, which fails below)
    await within(until(() => kinds.every((_, n) => answered(n) >= 20) || stopped), START_TIMEOUT_MS, 'the stream');
    expect(streams.flat().filter((one) => one.error !== undefined || ((one.status ?? 0) > 0 && one.status !== expectedStatus(one.kind)))).toEqual([]);

    // the signal goes while a login of the stream is in flight: after its 100 Continue, and its
    // body once the server has taken the signal
    const killed = new Promise<void>((resolve) => {
      state.beforeBody = () => {
        if (state.signalled) return undefined;
        server.child.kill('SIGTERM');
        state.signalled = true;
        resolve();
        return shutdown;
      };
    });
    await within(killed, 30_000, 'a login of the stream in flight');
    // the server cannot exit while the held request waits for its body: first each client has
    // had a request, started once the server said it is shutting down, come to an end
    const endedAfterShutdown = (n: number) => streams[n].some((one) => one.startedAfterShutdown && (one.status !== undefined || one.error !== undefined));
    await within(until(() => kinds.every((_, n) => endedAfterShutdown(n)) || stopped), 30_000, 'a request after the shutdown from each client');
    held.send(wrongLogin);
    const heldAnswer = await within(held.answer(), EXIT_TIMEOUT_MS, 'the answer to the held request');
    // the held client reuses its connection anyway: it is not served
    held.get('/health', { 'X-Request-Id': 'held-after-signal' });
    const afterHeld = await Promise.race([held.closed.then(() => 'closed'), held.answer().then((a) => a.status)]);
    const exit = await within(server.exited, 30_000, 'the exit after SIGTERM');
    await Promise.all(loops);

    expect({ status: heldAnswer.status, connection: heldAnswer.headers.connection }).toEqual({ status: 401, connection: 'close' });
    expect(['closed', 503]).toContain(afterHeld);
    expect(exit).toEqual({ code: 0, signal: null });
    const messages = server.records.map((r) => r.msg);
    expect(messages).not.toContain('shutdown timed out; exiting');
    expect(messages).toContain('stopped');

    const sent = streams.flat();
    const atSignal = sent.filter((one) => one.inFlightAtSignal);
    expect(atSignal).toEqual([expect.objectContaining({ status: 401, served: true, complete: true, connection: 'close' })]);
    const before = sent.filter((one) => one.sentBeforeSignal);
    const after = sent.filter((one) => one.startedAfterShutdown);
    expect(before.length).toBeGreaterThanOrEqual(80);
    expect(before.filter((one) => !(one.served && one.complete && one.status === expectedStatus(one.kind)))).toEqual([]);
    expect(after.length).toBeGreaterThanOrEqual(kinds.length);
    expect(after.filter((one) => one.served || one.status === 200)).toEqual([]);
    // the server's side: its access log (one line for each request the application handled)
    const logged = new Map(server.records.filter((r) => r.req !== undefined).map((r) => [(r.req as { id: string }).id, r]));
    expect(logged.get('held')).toMatchObject({ msg: 'request completed', res: { statusCode: 401 } });
    expect(['held-after-signal', ...after.map((one) => one.id)].filter((id) => logged.has(id))).toEqual([]);
  });

  test('a request in flight at SIGTERM on a keep-alive connection gets its complete answer with Connection: close, the server closes the connection, exit 0', async () => {
    server = await start();
    const client = await connect(server.port);
    // the connection is kept alive after a first answer
    client.get('/health');
    expect((await within(client.answer(), EXIT_TIMEOUT_MS, 'the first answer')).headers.connection).toBe('keep-alive');

    const body = JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    client.send(postHead('/api/auth/login', body));
    await within(client.continued(), EXIT_TIMEOUT_MS, 'the 100 Continue');
    server.child.kill('SIGTERM');
    // its body, in two parts, once the server has taken the signal (sent at once, the request
    // could be answered before the server gets to the signal)
    await within(server.logged(SHUTTING_DOWN), EXIT_TIMEOUT_MS, 'the shutdown line');
    client.send(body.slice(0, 10));
    await new Promise((resolve) => setImmediate(resolve));
    client.send(body.slice(10));

    const answer = await within(client.answer(), EXIT_TIMEOUT_MS, 'the answer to the request in flight');
    expect({ status: answer.status, connection: answer.headers.connection }).toEqual({ status: 200, connection: 'close' });
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'success', message: 'Login successful' });
    // closed by the server: this client never closes its side
    await within(client.closed, EXIT_TIMEOUT_MS, 'the server closing the connection');
    expect(await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGTERM')).toEqual({ code: 0, signal: null });
    expect(server.records.map((r) => r.msg)).toContain('stopped');
  });

  test('keep-alive connections left idle, before SIGTERM or after their last answer, do not hold the exit: exit 0 well before the 5 s keep-alive timeout', async () => {
    server = await start();
    // idle at the signal
    const idle = await connect(server.port);
    idle.get('/health');
    expect((await within(idle.answer(), EXIT_TIMEOUT_MS, 'the first answer')).status).toBe(200);
    // busy at the signal, idle after its answer; neither client ever closes its side
    const busy = await connect(server.port);
    busy.send(postHead('/api/auth/login', wrongLogin));
    await within(busy.continued(), EXIT_TIMEOUT_MS, 'the 100 Continue');
    server.child.kill('SIGTERM');
    await within(server.logged(SHUTTING_DOWN), EXIT_TIMEOUT_MS, 'the shutdown line');
    busy.send(wrongLogin);
    expect((await within(busy.answer(), EXIT_TIMEOUT_MS, 'the answer to the request in flight')).status).toBe(401);

    // Node closes a keep-alive connection left idle after keepAliveTimeout (5 s) + 1 s: a server
    // that waited for that could not exit within IDLE_EXIT_MS of the last answer
    const exit = await within(server.exited, IDLE_EXIT_MS, 'the exit with keep-alive connections open');
    expect(exit).toEqual({ code: 0, signal: null });
  });

  test('on SIGINT it closes and exits 0', async () => {
    server = await start();
    expect((await fetch(`http://127.0.0.1:${server.port}/health`)).status).toBe(200);
    server.child.kill('SIGINT');
    const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGINT');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.records.map((r) => r.msg)).toContain('stopped');
  });

  test('with a search walk thread running, SIGTERM ends it with the rest: exit 0 and `stopped`', async () => {
    server = await start({ SEARCH_THREADS: '1', SEARCH_THREADS_FROM: '0', METRICS_ENABLED: 'true' });
    const base = `http://127.0.0.1:${server.port}`;
    const login = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: ADMIN_EMAIL, password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const { token } = ((await login.json()) as { data: { token: string } }).data;
    const search = await fetch(`${base}/api/contacts/search?q=admin`, { headers: { Authorization: `Bearer ${token}` } });
    expect(search.status).toBe(200);
    // the walk ran on the thread, which thus runs now
    expect(await (await fetch(`${base}/metrics`)).text()).toMatch(/^directory_search_walks_total\{on="thread"\} [1-9]/m);
    server.child.kill('SIGTERM');
    const exit = await within(server.exited, EXIT_TIMEOUT_MS, 'the exit after SIGTERM');
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
