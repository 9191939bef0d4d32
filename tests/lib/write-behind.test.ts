import type { Knex } from 'knex';
import { acceptWritesBehind, dropWritesSince, finishWrites, settleWritesBehind, writeBehind, writeLast, writesMark } from '../../src/lib/db';

/**
 * The bookkeeping of writes sent behind a transaction's next statements (src/lib/db/write-behind.ts),
 * with writes that are plain promises: what waits, what is thrown and when, what is dropped. The
 * statements themselves, on both databases, are in tests/contacts/group-commit.test.ts.
 */
describe('writes sent behind a transaction', () => {
  /** a write that ends when the test says so */
  const gate = () => {
    let open!: () => void;
    let fail!: (err: Error) => void;
    const promise = new Promise<void>((resolve, reject) => ((open = resolve), (fail = reject)));
    return { promise, open, fail };
  };
  const settledWithin = async (promise: Promise<unknown>) => Promise.race([promise.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20))]);
  const newTrx = () => ({}) as Knex.Transaction;

  it('waits for each write where the transaction takes none behind', async () => {
    const trx = newTrx();
    const write = gate();
    const sent = writeBehind(trx, () => write.promise);
    expect(await settledWithin(sent)).toBe(false);
    write.open();
    expect(await settledWithin(sent)).toBe(true);
  });

  it('returns at once where the transaction takes them, and throws a failed one when they are settled, not before', async () => {
    const trx = newTrx();
    acceptWritesBehind(trx);
    const write = gate();
    expect(await settledWithin(writeBehind(trx, () => write.promise))).toBe(true);
    write.fail(new Error('refused by the database'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(settleWritesBehind(trx)).rejects.toThrow('refused by the database');
  });

  it('holds at most 64 writes in flight: the next waits for the oldest', async () => {
    const trx = newTrx();
    acceptWritesBehind(trx);
    const writes = Array.from({ length: 65 }, gate);
    for (const w of writes.slice(0, 64)) expect(await settledWithin(writeBehind(trx, () => w.promise))).toBe(true);
    const sixtyFifth = writeBehind(trx, () => writes[64].promise);
    expect(await settledWithin(sixtyFifth)).toBe(false);
    writes[0].open();
    expect(await settledWithin(sixtyFifth)).toBe(true);
  });

  it('runs the writes kept for last when the transaction finishes, without those of a part rolled back', async () => {
    const trx = newTrx();
    acceptWritesBehind(trx);
    const ran: string[] = [];
    await writeLast(trx, async () => ran.push('kept'));
    const mark = writesMark(trx);
    await writeLast(trx, async () => ran.push('rolled back'));
    dropWritesSince(trx, mark);
    expect(ran).toEqual([]);
    await finishWrites(trx);
    expect(ran).toEqual(['kept']);
  });

  it('runs a write kept for last at once where the transaction takes none behind', async () => {
    const ran: string[] = [];
    await writeLast(newTrx(), async () => ran.push('now'));
    expect(ran).toEqual(['now']);
  });
});
