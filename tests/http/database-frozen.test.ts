import net from 'node:net';
import request from 'supertest';
import type { Express } from 'express';
import { createApp } from '../../src/app';
import { createDb, type Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { isMysql, testConfig } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { contractApp } from '../helpers/openapi';

/**
 * A MariaDB server that freezes while the service holds open connections to it, as under
 * SIGSTOP: the service reaches the test database through a proxy on loopback that can stop
 * forwarding in both directions and start again. A query on a connection already open answers
 * 503 within DB_QUERY_TIMEOUT_MS (that connection is dropped), a new connection within
 * DB_CONNECT_TIMEOUT_MS, /ready within DB_ACQUIRE_TIMEOUT_MS; once the server answers again,
 * so does the service. MySQL only: SQLite has no server to freeze.
 */
const LIMIT_MS = 1000;
const describeMysql = isMysql() ? describe : describe.skip;

/** A TCP proxy to `target` that can stop moving bytes (`freeze`) and move them again (`thaw`). */
async function freezableProxy(target: { host: string; port: number }) {
  let frozen = false;
  const pairs = new Set<{ client: net.Socket; server: net.Socket }>();
  const link = (pair: { client: net.Socket; server: net.Socket }) => {
    pair.client.pipe(pair.server);
    pair.server.pipe(pair.client);
  };
  const unlink = (pair: { client: net.Socket; server: net.Socket }) => {
    pair.client.unpipe(pair.server);
    pair.server.unpipe(pair.client);
    pair.client.pause();
    pair.server.pause();
  };
  const proxy = net.createServer((client) => {
    const pair = { client, server: net.connect(target.port, target.host) };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      pair.client.destroy();
      pair.server.destroy();
    };
    pair.client.on('close', end).on('error', end);
    pair.server.on('close', end).on('error', end);
    if (frozen) unlink(pair);
    else link(pair);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: (proxy.address() as net.AddressInfo).port,
    freeze: () => {
      frozen = true;
      pairs.forEach(unlink);
    },
    thaw: () => {
      frozen = false;
      pairs.forEach(link);
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

describeMysql('a database server that freezes with connections open', () => {
  const ctx = setupTestContext();
  let proxy: Awaited<ReturnType<typeof freezableProxy>>;
  let db: Db;
  let app: Express;
  let user: TestUser;

  beforeAll(async () => {
    user = await createUser(ctx);
    proxy = await freezableProxy({ host: ctx.config.db.host, port: ctx.config.db.port });
    const config = testConfig({
      DB_CLIENT: 'mysql',
      DATABASE_URL: '',
      DB_HOST: '127.0.0.1',
      DB_PORT: String(proxy.port),
      DB_USER: ctx.config.db.user,
      DB_PASSWORD: ctx.config.db.password,
      DB_NAME: ctx.config.db.database,
      DB_QUERY_TIMEOUT_MS: String(LIMIT_MS),
      DB_CONNECT_TIMEOUT_MS: String(LIMIT_MS),
      DB_ACQUIRE_TIMEOUT_MS: String(LIMIT_MS),
    });
    db = createDb(config.db, createLogger({ level: 'silent' }));
    app = contractApp(createApp({ db, config, logger: createLogger({ level: 'silent' }) }));
  });

  afterAll(async () => {
    proxy.thaw();
    await db.destroy();
    proxy.close();
  });

  async function timed(send: () => Promise<request.Response>) {
    const start = Date.now();
    const res = await send();
    return { res, ms: Date.now() - start };
  }

  test('answers 503 within the time limits while frozen, and 200 again once thawed', async () => {
    const read = () => request(app).get(`/api/contacts/${user.id}`).set(bearer(user));
    // through the proxy, with connections in the pool
    expect((await read()).status).toBe(200);
    expect((await request(app).get('/ready')).status).toBe(200);

    proxy.freeze();
    // a query on an open connection: the query time limit, and that connection is dropped
    const first = await timed(read);
    expect(first.res.status).toBe(503);
    expect(first.res.body).toEqual({ status: 'error', message: 'Service unavailable' });
    expect(Number(first.res.headers['retry-after'])).toBeGreaterThan(0);
    expect(first.ms).toBeLessThan(LIMIT_MS * 2 + 1500);
    // the next ones wait at most the connect or acquire limit each
    const second = await timed(read);
    expect(second.res.status).toBe(503);
    expect(second.ms).toBeLessThan(LIMIT_MS * 2 + 1500);
    const ready = await timed(() => request(app).get('/ready'));
    expect(ready.res.status).toBe(503);
    expect(ready.ms).toBeLessThan(LIMIT_MS + 1500);

    proxy.thaw();
    let res = await read();
    // a request already waiting on the thawed server may still fail once; then it answers
    for (let i = 0; i < 5 && res.status !== 200; i++) res = await read();
    expect(res.status).toBe(200);
    expect(res.body.data.contact.id).toBe(user.id);
  });
});
