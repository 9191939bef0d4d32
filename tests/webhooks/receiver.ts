import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A webhook receiver for the tests: a real HTTP server on 127.0.0.1 that keeps every request
 * it gets, answers as the test tells it (a status, `hang` past the sender's time-out, `reset`
 * the connection, a status once a promise settles or after a delay), and checks a signature as the Standard Webhooks specification says a
 * receiver should (https://www.standardwebhooks.com/): HMAC-SHA256 with the secret's base64
 * part as the key, over `<webhook-id>.<webhook-timestamp>.<body>`, compared in constant time
 * with each `v1,` signature of the header.
 */

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  id: string;
}

export type Answer = number | 'hang' | 'reset' | { status: number; after?: Promise<unknown>; delayMs?: number };

export class Receiver {
  readonly received: Received[] = [];
  /** answers for the next requests, in order; then `fallback` */
  readonly script: Answer[] = [];
  fallback: Answer = 200;
  private server: Server | null = null;
  private readonly hanging = new Set<ServerResponse>();

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ headers: req.headers, body, id: String(req.headers['webhook-id']) });
        const answer = this.script.shift() ?? this.fallback;
        if (answer === 'hang') this.hanging.add(res);
        else if (answer === 'reset') req.socket.destroy();
        else if (typeof answer === 'number') res.writeHead(answer).end('ok');
        else {
          const delayed = new Promise((resolve) => setTimeout(resolve, answer.delayMs ?? 0));
          void Promise.all([answer.after, delayed]).then(() => {
            if (!res.destroyed) res.writeHead(answer.status).end('ok');
          });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  /** Requests of one hook (by the `_<hook id>` its event ids end in). */
  of(hookId: number): Received[] {
    return this.received.filter((r) => r.id.endsWith(`_${hookId}`));
  }

  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** Whether one of the header's signatures is the secret's signature of the request (a receiver's check). */
export function verifies(secret: string, r: Received): boolean {
  const id = String(r.headers['webhook-id']);
  const timestamp = String(r.headers['webhook-timestamp']);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${r.body}`).digest();
  return String(r.headers['webhook-signature'])
    .split(' ')
    .some((s) => {
      const [version, sig] = s.split(',');
      const given = Buffer.from(sig ?? '', 'base64');
      return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
    });
}

/** Waits until `check` holds (polling), at most `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
