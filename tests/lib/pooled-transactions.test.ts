import { createDb, inTransaction, type Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { loadSnapshot } from '../../src/modules/contacts/search/columns';
import { isMysql, testConfig } from '../helpers/config';
import { setupTestContext } from '../helpers/context';

/**
 * A pooled connection is never lent while a transaction holds it (src/lib/db/pool-guard.ts,
 * stream.ts). knex's `.stream()` released its connection twice; when a transaction had been
 * waiting for the pool, the second release gave the transaction's connection to the next
 * caller, whose statements then committed or rolled back with that transaction: under a mixed
 * load of searches and moves that answered 500 and left contacts with a wrong depth and order key.
 *
 * Each case uses a pool of one connection, so that every statement waits for the one before:
 * a read that streams the directory holds it, a transaction waits for it, and a plain write,
 * sent once the transaction has begun, must wait for the transaction's end and then commit on
 * its own. Before the fix the write ran inside the transaction and was rolled back with it.
 *
 * MySQL only: SQLite has one connection, and knex queues every statement behind an open
 * transaction (and the project reads SQLite without streaming).
 */
(isMysql() ? describe : describe.skip)('a pooled connection and the transactions', () => {
  const ctx = setupTestContext();
  const TABLE = `pool_probe_${process.pid}`;
  let db: Db;
  let errors: string[];

  beforeEach(async () => {
    await ctx.db.schema.dropTableIfExists(TABLE);
    await ctx.db.schema.createTable(TABLE, (t) => t.integer('id').primary());
    errors = [];
    const logger = createLogger({ level: 'error' });
    logger.error = ((_obj: unknown, msg: string) => errors.push(msg)) as unknown as typeof logger.error;
    db = createDb(testConfig({ DB_POOL_MAX: '1' }).db, logger);
  });

  afterEach(async () => {
    await db.destroy();
    await ctx.db.schema.dropTableIfExists(TABLE);
  });

  /**
   * Runs `read`, and once it holds the pool's connection (`holding`), a transaction
   * that inserts row 1, waits and fails, and once that transaction has inserted, a plain insert
   * of row 2. Returns the ids left in the table.
   */
  async function readThenTransactionThenWrite(read: () => Promise<unknown>, holding: () => Promise<void>): Promise<number[]> {
    let begun!: () => void;
    const inserted = new Promise<void>((resolve) => (begun = resolve));
    const reading = read();
    await holding();
    const failing = inTransaction(db, async (trx) => {
      await trx(TABLE).insert({ id: 1 });
      begun();
      await new Promise((resolve) => setTimeout(resolve, 200));
      throw new Error('the transaction fails');
    });
    await inserted;
    // sent now (a knex query runs when it is awaited or then'd)
    const write = db(TABLE).insert({ id: 2 }).then(() => undefined);
    await expect(failing).rejects.toThrow('the transaction fails');
    await write;
    await reading;
    return (await ctx.db(TABLE).orderBy('id').pluck('id')).map(Number);
  }

  test('a write sent while a transaction holds the connection commits on its own after the search index has streamed the directory', async () => {
    // the snapshot reads the directory's versions first, then streams its contacts
    const streaming = () => new Promise<void>((resolve) => db.once('query-response', () => setImmediate(resolve)));
    expect(await readThenTransactionThenWrite(() => loadSnapshot(db), streaming)).toEqual([2]);
    expect(errors).toEqual([]);
  });

  test("knex's own stream, which releases twice, cannot hand a transaction's connection to another caller", async () => {
    const knexStream = async () => {
      for await (const row of db('users').select('id').limit(50).stream()) void row;
    };
    expect(await readThenTransactionThenWrite(knexStream, async () => undefined)).toEqual([2]);
    expect(errors).toEqual(['refused to release a connection that is not lent or that a transaction holds']);
  });

  test('a connection left inside a transaction is destroyed, not lent: the next statement runs on a fresh one', async () => {
    const client = db.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<unknown> };
    const conn = (await client.acquireConnection()) as { query(sql: string, cb: (err: unknown) => void): void };
    await new Promise((resolve, reject) => conn.query('BEGIN', (err) => (err ? reject(err) : resolve(null))));
    await new Promise((resolve, reject) => conn.query(`INSERT INTO ${TABLE} (id) VALUES (3)`, (err) => (err ? reject(err) : resolve(null))));
    await client.releaseConnection(conn);
    await inTransaction(db, async (trx) => {
      await trx(TABLE).insert({ id: 4 });
    });
    expect((await ctx.db(TABLE).orderBy('id').pluck('id')).map(Number)).toEqual([4]);
    expect(errors).toEqual(['destroyed a pooled connection left inside a transaction']);
  });
});

/**
 * Every transaction on MySQL reads committed data, as each connection's level from its start
 * (lib/db/connection.ts): no SET TRANSACTION goes before each BEGIN, one round trip less before
 * the directory lock.
 */
(isMysql() ? describe : describe.skip)('the isolation level of a transaction', () => {
  const ctx = setupTestContext();

  it('reads committed data in every transaction without setting it per transaction', async () => {
    const sent: string[] = [];
    const note = (q: { sql: string }) => sent.push(q.sql);
    ctx.db.on('query', note);
    try {
      const level = await inTransaction(ctx.db, async (trx) => {
        const [rows] = await trx.raw("SHOW VARIABLES WHERE Variable_name IN ('tx_isolation', 'transaction_isolation')");
        return (rows as Array<{ Value: string }>).map((r) => r.Value);
      });
      expect(new Set(level)).toEqual(new Set(['READ-COMMITTED']));
    } finally {
      ctx.db.off('query', note);
    }
    expect(sent.filter((sql) => /SET TRANSACTION/i.test(sql))).toEqual([]);
  });
});
