import http from 'node:http';

/**
 * What a stream client asks: GET /ready (a database query) or a login that fails (bcrypt), whose
 * body goes once the server has answered `100 Continue` to its headers, so that the test can
 * send a signal while the server certainly has that request in flight (see `beforeBody`).
 */
export type StreamKind = 'ready' | 'login';

const REQUESTS: Record<StreamKind, { method: string; path: string; body?: string; status: number }> = {
  ready: { method: 'GET', path: '/ready', status: 200 },
  login: {
    method: 'POST',
    path: '/api/auth/login',
    body: JSON.stringify({ email: 'stream@example.test', password: 'Not-the-password-1' }),
    status: 401,
  },
};

/** One request of a stream client, as that client saw it. */
export interface Sent {
  id: string;
  kind: StreamKind;
  /** its bytes were handed to the kernel ('finish') before the signal was sent */
  sentBeforeSignal: boolean;
  /** the signal was sent between the server's `100 Continue` and its body */
  inFlightAtSignal: boolean;
  /**
   * http.request() was called after the server logged that it is shutting down, so certainly
   * after it took the signal (one started between the kill and that line may reach it before)
   */
  startedAfterShutdown: boolean;
  status?: number;
  /** its answer's Connection header */
  connection?: string;
  /** the application answered it: its X-Request-Id came back (a refusal while stopping has none) */
  served: boolean;
  /** the whole answer arrived (as long as its Content-Length) and is a JSON envelope */
  complete: boolean;
  error?: string;
}

/** The status the application answers to this kind of request. */
export const expectedStatus = (kind: StreamKind) => REQUESTS[kind].status;

/** Sends `sent` over a keep-alive agent and records what came back; never rejects. */
function send(agent: http.Agent, port: number, sent: Sent, state: StreamState): Promise<void> {
  const { method, path, body } = REQUESTS[sent.kind];
  return new Promise((resolve) => {
    let settled = false;
    const done = (error?: Error) => {
      if (settled) return;
      settled = true;
      if (error) sent.error = (error as NodeJS.ErrnoException).code ?? error.message;
      resolve();
    };
    const headers: Record<string, string> = { 'X-Request-Id': sent.id };
    if (body) Object.assign(headers, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Expect: '100-continue' });
    const req = http.request({ agent, host: '127.0.0.1', port, method, path, headers });
    req.on('finish', () => (sent.sentBeforeSignal = !state.signalled));
    req.on('error', done);
    req.on('continue', () => {
      const before = state.signalled;
      void Promise.resolve(state.beforeBody?.()).then(() => {
        sent.inFlightAtSignal = !before && state.signalled;
        req.end(body);
      });
    });
    req.on('response', (res) => {
      sent.status = res.statusCode;
      sent.connection = res.headers.connection;
      sent.served = res.headers['x-request-id'] === sent.id;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', done);
      res.on('end', () => {
        // answered without its body being asked for: that connection is not reused
        if (!req.writableEnded) req.destroy();
        try {
          const envelope = JSON.parse(text) as { status?: unknown };
          sent.complete = res.complete && (envelope.status === 'success' || envelope.status === 'error');
        } catch {
          sent.complete = false;
        }
        done();
      });
    });
    if (!body) req.end();
  });
}

export interface StreamState {
  /** the test has sent the signal */
  signalled: boolean;
  /** the server has logged that it is shutting down */
  shutdownSeen: boolean;
  /** the server process has exited: the streams stop */
  exited: boolean;
  /** called after a `100 Continue`; the body is sent once what it returns has resolved */
  beforeBody?: () => Promise<void> | undefined;
}

/**
 * A keep-alive client (its own agent, one connection at a time) that sends its next request as
 * soon as it has an answer, until the server has exited. Before the signal it stops at its
 * first failure (which the test then reports); after it, it tries again every 10 ms.
 */
export async function streamClient(name: string, kind: StreamKind, port: number, sent: Sent[], state: StreamState): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; !state.exited; i += 1) {
      const one: Sent = {
        id: `${name}-${i}`,
        kind,
        sentBeforeSignal: false,
        inFlightAtSignal: false,
        startedAfterShutdown: state.shutdownSeen,
        served: false,
        complete: false,
      };
      sent.push(one);
      await send(agent, port, one, state);
      if (one.error === undefined && one.status === expectedStatus(kind)) continue;
      if (!state.signalled) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    agent.destroy();
  }
}
