import request from 'supertest';
import type { Express } from 'express';
import { inTransaction, isUnavailable, writeRows, type Db } from '../../src/lib/db';
import { isMysql } from '../helpers/config';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { COM_QUERY, COM_STMT_EXECUTE, COM_STMT_PREPARE, serviceBehindProxy, type FreezableProxy, type SentCommand } from '../helpers/freezable-proxy';
import { contractApp } from '../helpers/openapi';
import { unfilteredListCursor } from '../../src/modules/contacts';

/**
 * A MariaDB server that freezes while the service holds open connections to it, as under
 * SIGSTOP: the service reaches the test database through a proxy on loopback that can stop
 * forwarding in both directions, at once or the moment the service sends a chosen statement,
 * and start again. Every kind of database call the service makes (knex's builder and raw
 * statements, a transaction under the directory lock, a streamed read, a prepared statement
 * being prepared or executed, the session's coalesced read, LOAD DATA) ends within
 * DB_QUERY_TIMEOUT_MS when caught in flight, its connection closed, not lent again; the request
 * answers 503 (a request may try once more on a new connection, which the connect or acquire
 * limit ends); once the server answers again, so does the service. MySQL only: SQLite has no
 * server to freeze.
 */
const LIMIT_MS = 1000;
/** a call's limit, one more wait for a new connection, and slack for a loaded machine */
const ANSWER_WITHIN_MS = LIMIT_MS * 2 + 1500;
const describeMysql = isMysql() ? describe : describe.skip;

/** Whether a command is a prepared statement's PREPARE (or a text query) whose SQL `sql` picks. */
const prepared = (sql: (text: string) => boolean) => (c: SentCommand) => c.command === COM_STMT_PREPARE && sql(c.sql);
const query = (sql: (text: string) => boolean) => (c: SentCommand) => c.command === COM_QUERY && sql(c.sql);
/** The `n`th EXECUTE of a prepared statement from now on. */
const nthExecute = (n: number) => {
  let seen = 0;
  return (c: SentCommand) => c.command === COM_STMT_EXECUTE && ++seen === n;
};
/** the session's read carries the read versions (users.queries.ts sessionSource) */
const isSession = (sql: string) => sql.includes('`directory_version`');

describeMysql('a database server that freezes with connections open', () => {
  // a database of its own: on the shared one, another file's import holds the directory lock for
  // seconds, and a change here, limited to LIMIT_MS, answered 503 again after the thaw
  const ctx = setupOwnTestContext('frozen');
  let user: TestUser;

  beforeAll(async () => {
    user = await createUser(ctx, { role: 'Admin' });
  });

  /** a service of its own (a fresh pool, nothing prepared yet) behind a freezable proxy, each test */
  let service: Awaited<ReturnType<typeof serviceBehindProxy>>;
  let proxy: FreezableProxy;
  let db: Db;
  let app: Express;

  beforeEach(async () => {
    service = await serviceBehindProxy(ctx, {
      DB_QUERY_TIMEOUT_MS: String(LIMIT_MS),
      DB_CONNECT_TIMEOUT_MS: String(LIMIT_MS),
      DB_ACQUIRE_TIMEOUT_MS: String(LIMIT_MS),
    });
    ({ proxy, db } = service);
    app = contractApp(service.app);
  });

  afterEach(async () => {
    await service.close();
  });

  /** The answer and how long it took; a request still unanswered after 5 limits is one that hangs. */
  async function timed(send: () => request.Test): Promise<{ res: request.Response | null; ms: number }> {
    const start = Date.now();
    try {
      const res = await send().timeout(LIMIT_MS * 5);
      return { res, ms: Date.now() - start };
    } catch (err) {
      if ((err as { timeout?: unknown }).timeout) return { res: null, ms: Date.now() - start };
      throw err;
    }
  }

  function expectUnavailable(answer: { res: request.Response | null; ms: number }) {
    expect(answer.res?.status ?? `no answer within ${answer.ms} ms`).toBe(503);
    expect(answer.res!.body).toEqual({ status: 'error', message: 'Service unavailable' });
    expect(Number(answer.res!.headers['retry-after'])).toBeGreaterThan(0);
    expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
  }

  /** Sends until answered with `status` (a request already waiting on the thawed server may still fail once). */
  async function answersAgain(send: () => request.Test, status = 200): Promise<request.Response> {
    let res = await send();
    for (let i = 0; i < 5 && res.status !== status; i++) res = await send();
    expect(res.status).toBe(status);
    return res;
  }

  const pool = () => (db.client as { pool: { numUsed(): number; numPendingAcquires(): number } }).pool;

  test('answers 503 within the time limits while frozen, and 200 again once thawed', async () => {
    const read = () => request(app).get(`/api/contacts/${user.id}`).set(bearer(user));
    // through the proxy, with connections in the pool
    expect((await read()).status).toBe(200);
    expect((await request(app).get('/ready')).status).toBe(200);

    proxy.freeze();
    // a query on an open connection: the query time limit, and that connection is dropped
    expectUnavailable(await timed(read));
    // the next ones wait at most the connect or acquire limit each
    expectUnavailable(await timed(read));
    const ready = await timed(() => request(app).get('/ready'));
    expect(ready.res?.status).toBe(503);
    expect(ready.ms).toBeLessThan(LIMIT_MS + 1500);

    proxy.thaw();
    const res = await answersAgain(read);
    expect(res.body.data.contact.id).toBe(user.id);
  });

  const get = (path: string) => () => request(app).get(path).set(bearer(user));
  const phone = () => `017${String(Date.now()).slice(-8)}`;

  /**
   * Each kind of call, caught in flight: `warm` sends the request once before (so that its
   * statements are prepared on the pooled connection), `at` picks the statement the server
   * freezes at. The request answers 503 in time, holds no connection after, and the connection
   * that was caught is closed by the service (not returned to the pool with a statement in flight).
   */
  const calls: Array<{ call: string; warm?: boolean; at: () => (c: SentCommand) => boolean; send: () => () => request.Test }> = [
    { call: "knex's check of the server version, on the pool's first connection", at: () => query((sql) => sql.startsWith('select version()')), send: () => get('/api/auth/profile') },
    { call: "the session's coalesced read, being prepared (any authenticated request)", at: () => prepared(isSession), send: () => get('/api/auth/profile') },
    { call: "the session's coalesced read, executed prepared", warm: true, at: () => nthExecute(1), send: () => get('/api/auth/profile') },
    { call: 'GET /api/contacts/:id: the coalesced read by id, being prepared', at: () => prepared((sql) => !isSession(sql)), send: () => get(`/api/contacts/${user.id}`) },
    { call: 'GET /api/contacts/:id: the coalesced read by id, executed prepared', warm: true, at: () => nthExecute(2), send: () => get(`/api/contacts/${user.id}`) },
    { call: 'GET /api/contacts/statistics: the streamed read of the directory', at: () => query((sql) => sql.startsWith('select `id`, `unit_id`') && sql.includes('order by `id`')), send: () => get('/api/contacts/statistics') },
    { call: 'GET /api/contacts/statistics: a count (query builder)', at: () => query((sql) => sql.includes('as `units`')), send: () => get('/api/contacts/statistics') },
    { call: 'GET /api/audit-events (query builder)', at: () => query((sql) => sql.includes('from `audit_events`')), send: () => get('/api/audit-events') },
    // a numbered page's ids come from the search index, its rows by ids (prepared, as the search's below); after a cursor, SQL reads the page
    { call: 'GET /api/contacts after a cursor: a page of the list (query builder)', warm: true, at: () => query((sql) => sql.startsWith('select `u`.`id`')), send: () => get(`/api/contacts?limit=5&cursor=${unfilteredListCursor(user.id, 0)}`) },
    { call: 'GET /api/contacts/search: the page by ids (prepared)', at: () => prepared((sql) => sql.includes('`u`.`depth`')), send: () => get(`/api/contacts/search?q=${encodeURIComponent(user.name)}`) },
  ];

  test.each(calls)('$call: 503 within the limit, the connection closed, answered once thawed', async ({ warm, at, send }) => {
    const call = send();
    if (warm) expect((await call()).status).toBe(200);
    proxy.freezeAt(at());
    const frozen = await timed(call);
    expect(proxy.frozen).toBe(true);
    expectUnavailable(frozen);
    expect(pool().numUsed()).toBe(0);
    // the connection caught in flight, closed by the service (a frozen server cannot close it)
    expect(await proxy.caughtOpen()).toBe(false);

    proxy.thaw();
    await answersAgain(call);
  });

  /** A change of a contact (a transaction under the directory lock) caught at `at`: 503 in time, nothing changed, then changed once thawed. */
  test.each([
    { step: 'taking the directory lock (knex raw)', at: query((sql) => sql.startsWith('UPDATE directory_state SET version')) },
    { step: 'writing the row (query builder in the transaction)', at: query((sql) => sql.startsWith('update `users`')) },
    { step: 'committing', at: query((sql) => sql.startsWith('COMMIT')) },
  ])('PUT /api/contacts/:id frozen while $step: 503 within the limit, nothing written, written once thawed', async ({ at }) => {
    const update = (value: string) => () => request(app).put(`/api/contacts/${user.id}`).set(bearer(user)).send({ phone: value });
    const before = (await ctx.db('users').where({ id: user.id }).first('phone')).phone;
    proxy.freezeAt(at);
    const frozen = await timed(update(phone()));
    expect(proxy.frozen).toBe(true);
    expectUnavailable(frozen);
    expect(pool().numUsed()).toBe(0);
    expect(await proxy.caughtOpen()).toBe(false);
    // the server rolled back what the closed connection left open
    expect((await ctx.db('users').where({ id: user.id }).first('phone')).phone).toBe(before);

    proxy.thaw();
    const value = phone();
    await answersAgain(update(value));
    expect((await ctx.db('users').where({ id: user.id }).first('phone')).phone).toBe(value);
  });

  test('LOAD DATA (writeRows of many rows) frozen in flight fails as unavailable within the limit', async () => {
    const table = `frozen_rows_${process.pid}`;
    proxy.freezeAt(query((sql) => sql.startsWith('LOAD DATA')));
    const start = Date.now();
    const failure = await inTransaction(db, async (trx) => {
      await trx.raw('CREATE TEMPORARY TABLE ?? (id INT PRIMARY KEY)', [table]);
      await writeRows(trx, table, Array.from({ length: 500 }, (_, i) => ({ id: i + 1 })));
    }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(proxy.frozen).toBe(true);
    expect(isUnavailable(failure)).toBe(true);
    expect(Date.now() - start).toBeLessThan(LIMIT_MS + 1500);
    expect(pool().numUsed()).toBe(0);
    expect(await proxy.caughtOpen()).toBe(false);

    proxy.thaw();
    await inTransaction(db, async (trx) => {
      await trx.raw('CREATE TEMPORARY TABLE ?? (id INT PRIMARY KEY)', [table]);
      await writeRows(trx, table, Array.from({ length: 500 }, (_, i) => ({ id: i + 1 })));
      expect(Number((await trx(table).count({ n: '*' }))[0].n)).toBe(500);
      await trx.raw('DROP TEMPORARY TABLE ??', [table]);
    });
  });
});
