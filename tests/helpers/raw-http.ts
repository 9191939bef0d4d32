import net from 'node:net';

export interface RawAnswer {
  status: number;
  /** header names in lower case */
  headers: Record<string, string>;
  body: string;
}

const INTERIM = 'HTTP/1.1 100 Continue\r\n\r\n';

/**
 * An HTTP/1.1 client on one raw socket, for tests that must decide exactly what the server has
 * read and when: it writes what it is told (nothing is added, the connection is kept alive
 * unless a request says otherwise) and reads answers that carry a Content-Length.
 */
export class RawClient {
  readonly socket: net.Socket;
  /** resolves when the connection is closed, by either side */
  readonly closed: Promise<void>;
  /** everything received, interim answers included */
  received = '';
  private buffer = '';
  private waiting: (() => void) | undefined;

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.setEncoding('latin1');
    this.socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.buffer += chunk;
      this.waiting?.();
    });
    // a reset is seen as the close that follows
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    void this.closed.then(() => this.waiting?.());
  }

  static async connect(port: number): Promise<RawClient> {
    const client = new RawClient(port);
    await new Promise((resolve, reject) => {
      client.socket.once('connect', resolve);
      client.socket.once('error', reject);
    });
    return client;
  }

  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  send(text: string): void {
    this.socket.write(text);
  }

  get(path: string, headers: Record<string, string> = {}): void {
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
    this.send(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('')}\r\n`);
  }

  /** Resolves once the server has answered `100 Continue` (it has read the request's headers). */
  async continued(): Promise<void> {
    while (!this.buffer.startsWith(INTERIM)) await this.more();
    this.buffer = this.buffer.slice(INTERIM.length);
  }

  /** The headers of the next answer, as soon as they are in (its body may still be coming). */
  async head(): Promise<Omit<RawAnswer, 'body'>> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) return parseHead(this.buffer.slice(0, end));
      await this.more();
    }
  }

  /** The next complete answer, taken off the buffer; rejects if the connection closes first. */
  async answer(): Promise<RawAnswer> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = parseHead(this.buffer.slice(0, end));
        const length = Number(head.headers['content-length']);
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.slice(end + 4, end + 4 + length);
          this.buffer = this.buffer.slice(end + 4 + length);
          return { ...head, body };
        }
      }
      await this.more();
    }
  }

  private more(): Promise<void> {
    if (this.isClosed) return Promise.reject(new Error(`connection closed; received: ${JSON.stringify(this.received)}`));
    return new Promise((resolve) => (this.waiting = resolve));
  }
}

function parseHead(text: string): Omit<RawAnswer, 'body'> {
  const [statusLine, ...lines] = text.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/**
 * The head of a POST whose body is not sent with it: with `Expect: 100-continue` the server
 * answers `100 Continue` once it has read these headers, so the test knows the request is in
 * flight, and its handler cannot answer before the body (sent when the test chooses) is in.
 */
export function postHead(path: string, body: string, extra: Record<string, string> = {}): string {
  const lines = Object.entries(extra).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\n${lines.join('')}\r\n`
  );
}
