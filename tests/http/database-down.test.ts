import net from 'node:net';
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { createDb, type Db } from '../../src/lib/db';
import { TokenService } from '../../src/modules/access';
import { testConfig } from '../helpers/config';
import { contractApp } from '../helpers/openapi';
import { quietLogger } from '../helpers/context';
import { memoryLogger } from './http-helpers';

/**
 * A database that cannot be reached: a MySQL address where nothing listens (the server is down)
 * and one that accepts connections and never answers (a frozen server, or a network that drops
 * packets). Every request that needs the database answers 503 `Service unavailable` with
 * Retry-After within the connect and acquire timeouts, /ready answers 503, /health 200, and the
 * outage is logged once per interval, not once per request. Neither needs a database server,
 * so the file runs in both suites.
 */

const TIMEOUT_MS = 800;
const opened: Array<{ db: Db; close?: () => void }> = [];

async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never says a word: the MySQL handshake never comes. */
async function silentServer(): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = () => {
    for (const socket of sockets) socket.destroy();
    server.close();
  };
  return { port: (server.address() as net.AddressInfo).port, close };
}

function appOn(port: number, close?: () => void) {
  const config = testConfig({
    DB_CLIENT: 'mysql',
    DB_HOST: '127.0.0.1',
    DB_PORT: String(port),
    DB_USER: 'nobody',
    DB_PASSWORD: 'none',
    DB_NAME: 'unreachable',
    DB_CONNECT_TIMEOUT_MS: String(TIMEOUT_MS),
    DB_ACQUIRE_TIMEOUT_MS: String(TIMEOUT_MS),
  });
  const db = createDb(config.db, quietLogger);
  opened.push({ db, close });
  const log = memoryLogger();
  // every answer is checked against the OpenAPI document, as the suite's other apps are
  const app = contractApp(createApp({ db, config, logger: log.logger }));
  // a well-signed token: the request gets as far as reading its user, which needs the database
  const token = new TokenService(config.jwt).signAccess({ id: 1, role_name: 'Super_admin', organization_id: 1, token_version: 0 });
  return { app, log, auth: { Authorization: `Bearer ${token}` } };
}

afterAll(async () => {
  for (const { db, close } of opened) {
    close?.();
    await db.destroy();
  }
});

function expectUnavailable(res: request.Response): void {
  expect(res.status).toBe(503);
  expect(res.body).toEqual({ status: 'error', message: 'Service unavailable' });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

async function timed(send: () => Promise<request.Response>): Promise<{ res: request.Response; ms: number }> {
  const start = Date.now();
  const res = await send();
  return { res, ms: Date.now() - start };
}

describe.each([
  ['down (nothing listens)', async () => appOn(await closedPort())],
  ['frozen (never answers)', async () => {
    const silent = await silentServer();
    return appOn(silent.port, silent.close);
  }],
])('a database that is %s', (_label, open) => {
  let app: Express;
  let log: ReturnType<typeof memoryLogger>;
  let auth: Record<string, string>;

  beforeAll(async () => {
    ({ app, log, auth } = await open());
  });

  test('a signed-in read, a sign-in and a write each answer 503 with Retry-After, in a few seconds', async () => {
    for (const send of [
      () => request(app).get('/api/contacts/1').set(auth),
      () => request(app).post('/api/auth/login').send({ email: 'someone@example.test', password: 'Secret123' }),
      () => request(app).post('/api/units').set(auth).send({ name: 'Anything' }),
    ]) {
      const { res, ms } = await timed(send);
      expectUnavailable(res);
      expect(ms).toBeLessThan(TIMEOUT_MS * 2 + 2000);
    }
  });

  test('/ready answers 503 within the timeout, /health 200', async () => {
    const { res, ms } = await timed(() => request(app).get('/ready'));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'error', message: 'Database unavailable' });
    expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
    expect((await request(app).get('/health')).status).toBe(200);
  });

  test('logs the outage once per 10 s, not once per request, and no request line as an error', async () => {
    for (let i = 0; i < 6; i++) expectUnavailable(await request(app).get('/api/contacts/1').set(auth));
    const records = log.records();
    // nine requests met the outage in this describe; each line stands for 10 s of them
    const outage = records.filter((r) => r.msg === 'database unavailable');
    const span = Date.parse(String(outage[outage.length - 1].time)) - Date.parse(String(outage[0].time));
    expect(outage.length).toBeGreaterThanOrEqual(1);
    expect(outage.length).toBeLessThanOrEqual(1 + Math.floor(span / 10_000));
    expect(outage.length).toBeLessThan(9);
    // knex's own warning about each failed connection attempt is kept to one line as well
    expect(records.filter((r) => r.msg === 'database warning').length).toBeLessThanOrEqual(2);
    // the 503s are logged as answers given on purpose, and nothing is logged as an unexpected error
    expect(records.filter((r) => r.msg === 'request completed' && r.level === 50)).toEqual([]);
    expect(records.filter((r) => r.msg === 'unexpected error')).toEqual([]);
  });
});
