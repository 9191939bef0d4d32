import net from 'node:net';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import type { Config } from '../../src/config';
import { createDb, type Db } from '../../src/lib/db';
import { testConfig } from './config';
import { quietLogger } from './context';

/** A MySQL command packet as the client sent it: its command byte and, for text commands, its SQL. */
export interface SentCommand {
  /** COM_QUERY 0x03, COM_STMT_PREPARE 0x16, COM_STMT_EXECUTE 0x17, ... */
  command: number;
  /** the statement's text (COM_QUERY, COM_STMT_PREPARE); '' for the others */
  sql: string;
}

export const COM_QUERY = 0x03;
export const COM_STMT_PREPARE = 0x16;
export const COM_STMT_EXECUTE = 0x17;

/**
 * The command a chunk from the client starts with, when it starts a command (sequence id 0): the
 * driver writes each packet of its own, and the proxy sees the first of each round trip.
 */
function commandOf(chunk: Buffer): SentCommand | null {
  if (chunk.length < 5 || chunk[3] !== 0) return null;
  const command = chunk[4];
  const text = command === COM_QUERY || command === COM_STMT_PREPARE;
  return { command, sql: text ? chunk.subarray(5, 5 + chunk.readUIntLE(0, 3) - 1).toString('utf8') : '' };
}

interface Pair {
  client: net.Socket;
  server: net.Socket;
  /** what each side sent while frozen, in order, for when it thaws */
  toServer: Buffer[];
  toClient: Buffer[];
}

/**
 * A TCP proxy on loopback to a MySQL server, that can stop moving bytes in both directions, as a
 * server under SIGSTOP would (its kernel still accepts connections and bytes, nothing answers),
 * and move them again. `freezeAt` freezes it the moment the service sends a chosen command: the
 * calls before it are answered, that one and every later one are not, so each kind of database
 * call can be caught in flight. A connection that the service closes is closed on both sides
 * (what it sent while frozen is dropped, as a server drops a dead connection's bytes).
 */
export async function freezableProxy(target: { host: string; port: number }) {
  let frozen = false;
  let trigger: ((sent: SentCommand) => boolean) | null = null;
  /** the connection whose command froze the proxy (freezeAt) */
  let caught: Pair | null = null;
  const pairs = new Set<Pair>();

  const flush = (pair: Pair) => {
    for (const chunk of pair.toServer.splice(0)) pair.server.write(chunk);
    for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
  };

  const proxy = net.createServer((client) => {
    const pair: Pair = { client, server: net.connect(target.port, target.host), toServer: [], toClient: [] };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      pair.client.destroy();
      pair.server.destroy();
    };
    pair.client.on('close', end).on('error', end);
    pair.server.on('close', end).on('error', end);
    pair.client.on('data', (chunk: Buffer) => {
      const command = commandOf(chunk);
      if (command && !frozen && trigger?.(command)) {
        trigger = null;
        frozen = true;
        caught = pair;
      }
      if (frozen) pair.toServer.push(chunk);
      else pair.server.write(chunk);
    });
    pair.server.on('data', (chunk: Buffer) => {
      if (frozen) pair.toClient.push(chunk);
      else pair.client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));

  return {
    port: (proxy.address() as net.AddressInfo).port,
    /** stops moving bytes now */
    freeze: () => {
      frozen = true;
    },
    /** stops moving bytes when the service sends a command that `when` picks (that command included) */
    freezeAt: (when: (sent: SentCommand) => boolean) => {
      trigger = when;
    },
    get frozen() {
      return frozen;
    },
    /**
     * Whether the connection caught by `freezeAt` is still open after `withinMs` (false: the
     * service closed it; closing takes a round of I/O to reach the proxy).
     */
    caughtOpen: async (withinMs = 500) => {
      for (let waited = 0; caught !== null && pairs.has(caught) && waited < withinMs; waited += 10) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return caught !== null && pairs.has(caught);
    },
    /** moves bytes again, those held first */
    thaw: () => {
      frozen = false;
      trigger = null;
      caught = null;
      pairs.forEach(flush);
    },
    close: () => {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.server.destroy();
      }
      proxy.close();
    },
  };
}

export type FreezableProxy = Awaited<ReturnType<typeof freezableProxy>>;

/**
 * A service of its own (a fresh pool, nothing prepared yet) over the MySQL test database of
 * `ctx`, which it reaches through a freezable proxy; `env` adds the test's own settings (its
 * time limits, say). `close` thaws the proxy, ends the pool, then the proxy.
 */
export async function serviceBehindProxy(
  ctx: { config: Readonly<Config> },
  env: Record<string, string> = {},
): Promise<{ proxy: FreezableProxy; db: Db; app: Express; close: () => Promise<void> }> {
  const proxy = await freezableProxy({ host: ctx.config.db.host, port: ctx.config.db.port });
  const config = testConfig({
    DB_CLIENT: 'mysql',
    DATABASE_URL: '',
    DB_HOST: '127.0.0.1',
    DB_PORT: String(proxy.port),
    DB_USER: ctx.config.db.user,
    DB_PASSWORD: ctx.config.db.password,
    DB_NAME: ctx.config.db.database,
    ...env,
  });
  const db = createDb(config.db, quietLogger);
  const app = createApp({ db, config, logger: quietLogger });
  const close = async () => {
    proxy.thaw();
    await db.destroy();
    proxy.close();
  };
  return { proxy, db, app, close };
}
