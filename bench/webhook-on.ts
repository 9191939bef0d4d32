import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Figures } from './load';

/**
 * A write scenario with one webhook subscribed (issue 24 item 4: a move's cost with one
 * subscribed webhook within 10% of its cost without): a receiver on 127.0.0.1 that answers 204
 * at once, and a load that subscribes a hook to `contact.*` before its turn and removes it after,
 * so that the turns without it (alternate, load.ts) run with no hook at all. The services run
 * with WEBHOOKS_ALLOW_PRIVATE=true (serviceEnv) for the loopback target.
 */

export const WEBHOOK_ON = ', one webhook subscribed';

export interface Receiver {
  url: string;
  /** deliveries received so far */
  received: () => number;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function call(url: string, token: string, method: string, path: string, body?: unknown): Promise<{ data?: { webhook?: { id: number } } }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? {} : ((await res.json()) as { data?: { webhook?: { id: number } } });
}

/** `load` with a hook subscribed to every contact change for its duration. */
export function withWebhook(url: string, token: string, receiver: Receiver, load: (seconds: number) => Promise<Figures>) {
  return async (seconds: number): Promise<Figures> => {
    const created = await call(url, token, 'POST', '/api/webhooks', { url: receiver.url, events: ['contact.*'], description: 'bench' });
    const id = created.data?.webhook?.id;
    try {
      return await load(seconds);
    } finally {
      if (id) await call(url, token, 'DELETE', `/api/webhooks/${id}`);
    }
  };
}
