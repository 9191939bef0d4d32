import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RETRY_AFTER_SECONDS, SERVICE_UNAVAILABLE } from './respond';

export interface GracefulServer {
  /** Requests whose headers have been read and whose response is not done yet. */
  readonly inFlight: number;
  /** Requests answered 503 because they arrived after close(). */
  readonly refused: number;
  /**
   * Stops the server without cutting a request short:
   * - it stops accepting connections at once, and closes the idle keep-alive ones at once;
   * - a request in flight is finished; its response says `Connection: close` (when its headers
   *   are not sent yet) and its connection is closed after it in any case;
   * - a request read after close() (pipelined, or its headers still arriving at close()) is not
   *   handed to the application: it is answered 503 with `Retry-After` and `Connection: close`;
   * - once no request is in flight, every connection left (none, or clients half way through
   *   sending headers) is closed.
   * Resolves when no request is in flight and every connection is closed. Calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}

const REFUSAL = JSON.stringify(SERVICE_UNAVAILABLE);

/**
 * Serves `handler` on `server` (which must have no other 'request' listener: make it with
 * `http.createServer()` and no handler) and counts the requests in flight on each connection,
 * so that `close()` can stop as described there.
 *
 * Why not `server.close()` alone: Node 20 closes the connections idle at that moment, but a
 * connection busy then stays open after its response and keeps being served the next requests
 * of a keep-alive client, so a server under load never runs out of requests to finish.
 */
export function serveGracefully(server: Server, handler: RequestListener): GracefulServer {
  /** responses not done yet, by connection (a connection with pipelined requests has several) */
  const open = new Map<Socket, Set<ServerResponse>>();
  let inFlight = 0;
  let refused = 0;
  let closing = false;
  let closed: Promise<void> | undefined;

  let listenerClosed = false;
  let resolveClosed = () => undefined as void;
  const settle = () => {
    if (!closing || inFlight > 0) return;
    // no request in flight: what is left are connections whose next request is not complete
    server.closeAllConnections();
    // the server's 'close' may come before the last connections' own 'close' events
    if (listenerClosed) resolveClosed();
  };

  const track = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    let pending = open.get(socket);
    if (!pending) {
      pending = new Set();
      open.set(socket, pending);
    }
    pending.add(res);
    inFlight += 1;
    const done = () => {
      res.off('close', done);
      socket.off('close', done);
      if (!pending.delete(res)) return;
      inFlight -= 1;
      if (pending.size === 0) open.delete(socket);
      if (!closing) return;
      // its response ended with its headers sent before close() (so without `Connection: close`),
      // or it was cut: the connection is not kept for a next request either way (as Node closes
      // one after `Connection: close`: the end of what was written goes out, then it is destroyed)
      if (pending.size === 0 && !socket.destroyed) socket.destroySoon();
      settle();
    };
    res.once('close', done);
    // a response queued behind another one (pipelining) gets no 'close' when its connection goes
    socket.once('close', done);
  };

  const refuse = (res: ServerResponse) => {
    refused += 1;
    res.writeHead(503, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(REFUSAL),
      'Retry-After': String(RETRY_AFTER_SECONDS),
      Connection: 'close',
    });
    res.end(REFUSAL);
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    track(req, res);
    if (closing) refuse(res);
    else handler(req, res);
  });

  return {
    get inFlight() {
      return inFlight;
    },
    get refused() {
      return refused;
    },
    close() {
      if (closed) return closed;
      closing = true;
      closed = new Promise<void>((resolve) => (resolveClosed = resolve));
      // called once every connection is closed (at once, with an error, when it never listened)
      server.close(() => {
        listenerClosed = true;
        settle();
      });
      for (const pending of open.values()) {
        // the last response of each connection closes it; one queued before it still goes out
        const last = [...pending].at(-1);
        if (last && !last.headersSent) last.shouldKeepAlive = false;
      }
      // (server.close() does this too on Node 20; said here as it is half of the contract)
      server.closeIdleConnections();
      settle();
      return closed;
    },
  };
}
