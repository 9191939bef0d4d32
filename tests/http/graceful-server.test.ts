import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net from 'node:net';
import { serveGracefully, type GracefulServer } from '../../src/lib/http/graceful-server';
import { RawClient } from '../helpers/raw-http';

/**
 * serveGracefully on a plain http.createServer(), in this process, driven from raw sockets so
 * that each test decides exactly what is in flight when close() is called. No timings: every
 * wait is for an event (a request reaching the handler, bytes, a close).
 */

/** A handler that answers `/fast` at once and holds `/slow` until the test releases it. */
function testServer() {
  const held: Array<{ req: IncomingMessage; res: ServerResponse }> = [];
  const handled: string[] = [];
  let onHeld = () => undefined as void;
  const server = http.createServer();
  // keep-alive connections never time out here: no test passes because that timer closed one
  server.keepAliveTimeout = 0;
  const graceful: GracefulServer = serveGracefully(server, (req, res) => {
    handled.push(req.url ?? '');
    if (req.url?.startsWith('/slow')) {
      held.push({ req, res });
      onHeld();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 2 }).end('ok');
  });
  const nextHeld = async () => {
    while (held.length === 0) await new Promise<void>((resolve) => (onHeld = resolve));
    return held.shift()!;
  };
  return { server, graceful, handled, nextHeld };
}

let current: ReturnType<typeof testServer> | undefined;
const clients: RawClient[] = [];

async function start() {
  current = testServer();
  const accepted: net.Socket[] = [];
  current.server.on('connection', (socket: net.Socket) => accepted.push(socket));
  await new Promise<void>((resolve) => current!.server.listen(0, '127.0.0.1', resolve));
  const { port } = current.server.address() as net.AddressInfo;
  const client = async () => {
    const c = await RawClient.connect(port);
    clients.push(c);
    return c;
  };
  /** Resolves once the server has read `bytes` bytes from this client (so its parser has seen them). */
  const serverRead = async (c: RawClient, bytes: number) => {
    const ours = () => accepted.find((s) => s.remotePort === c.socket.localPort);
    while ((ours()?.bytesRead ?? 0) < bytes) await new Promise((resolve) => setImmediate(resolve));
  };
  return { ...current, port, client, serverRead };
}

/** Whether a promise has settled: looked at after the pending callbacks of this turn ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

afterEach(() => {
  for (const c of clients.splice(0)) c.socket.destroy();
  current?.server.closeAllConnections();
  current?.server.close();
  current = undefined;
});

describe('serveGracefully', () => {
  test('close() with nothing in flight closes the idle keep-alive connection, refuses new connections and resolves', async () => {
    const { graceful, port, client } = await start();
    const idle = await client();
    idle.get('/fast');
    expect(await idle.answer()).toMatchObject({ status: 200, body: 'ok', headers: { connection: 'keep-alive' } });

    await graceful.close();
    await idle.closed;
    await expect(RawClient.connect(port)).rejects.toThrow(/ECONNREFUSED/);
  });

  test('a request in flight at close() is finished with Connection: close, its connection closed after it; close() waits for it', async () => {
    const { graceful, client, nextHeld } = await start();
    const busy = await client();
    busy.get('/slow');
    const { res } = await nextHeld();

    const closing = graceful.close();
    expect(graceful.inFlight).toBe(1);
    expect(await settled(closing)).toBe(false);
    expect(busy.isClosed).toBe(false);

    res.writeHead(200, { 'Content-Length': 4 }).end('done');
    expect(await busy.answer()).toMatchObject({ status: 200, body: 'done', headers: { connection: 'close' } });
    await busy.closed;
    await closing;
    expect(graceful.inFlight).toBe(0);
  });

  test('a response whose headers went out before close() (keep-alive) still ends, then its connection is closed, not kept', async () => {
    const { graceful, handled, client, nextHeld } = await start();
    const busy = await client();
    busy.get('/slow');
    const { res } = await nextHeld();
    res.writeHead(200, { 'Content-Length': 6 });
    res.write('par');
    expect((await busy.head()).headers.connection).toBe('keep-alive');

    const closing = graceful.close();
    expect(await settled(closing)).toBe(false);
    res.end('tly');
    expect(await busy.answer()).toMatchObject({ status: 200, body: 'partly' });
    // a client that reuses the connection anyway finds it closed, or is refused
    busy.get('/fast');
    const next = await Promise.race([busy.closed.then(() => 'closed'), busy.answer().then((a) => a.status)]);
    expect(['closed', 503]).toContain(next);
    await busy.closed;
    await closing;
    expect(handled).toEqual(['/slow']);
  });

  test('a request whose headers are read after close() never reaches the handler: 503 envelope, Retry-After: 5, Connection: close', async () => {
    const { graceful, handled, client, nextHeld, serverRead } = await start();
    // one request held in flight, so that close() waits and the late request meets a closing server
    const busy = await client();
    busy.get('/slow');
    const { res } = await nextHeld();
    // headers begun before close(), ended after
    const late = await client();
    late.send('GET /fast HTTP/1.1\r\nHo');
    await serverRead(late, 21);

    const closing = graceful.close();
    late.send('st: test\r\n\r\n');
    const refusal = await late.answer();
    expect(refusal).toMatchObject({ status: 503, headers: { 'retry-after': '5', connection: 'close' } });
    expect(refusal.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(refusal.body)).toEqual({ status: 'error', message: 'Service unavailable' });
    await late.closed;
    expect(handled).toEqual(['/slow']);
    expect(graceful.refused).toBe(1);

    res.writeHead(200, { 'Content-Length': 0 }).end();
    await closing;
  });

  test('with nothing in flight, a client half way through its headers does not hold close(): its connection is closed', async () => {
    const { graceful, handled, client, serverRead } = await start();
    const half = await client();
    half.send('GET /fast HTTP/1.1\r\nHo');
    await serverRead(half, 21);

    await graceful.close();
    await half.closed;
    expect(handled).toEqual([]);
  });

  test('a pipelined request queued behind one in flight does not keep close() waiting when its connection goes', async () => {
    const { graceful, handled, client, nextHeld } = await start();
    const piped = await client();
    piped.send('GET /slow HTTP/1.1\r\nHost: test\r\n\r\nGET /fast HTTP/1.1\r\nHost: test\r\n\r\n');
    await nextHeld();
    while (handled.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(graceful.inFlight).toBe(2);

    const closing = graceful.close();
    expect(await settled(closing)).toBe(false);
    // the client gives up: neither response can be written now
    piped.socket.destroy();
    await closing;
    expect(graceful.inFlight).toBe(0);
  });

  test('close() called twice returns the same promise', async () => {
    const { graceful } = await start();
    const first = graceful.close();
    expect(graceful.close()).toBe(first);
    await first;
  });
});
