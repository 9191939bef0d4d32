import type { Db } from './types';

/** `SELECT 1` against the database: true when it answers. */
export async function ping(db: Db): Promise<boolean> {
  try {
    await db.raw('select 1 as ok');
    return true;
  } catch {
    return false;
  }
}

/** Waits (up to `timeoutMs`) until no query holds or waits for a connection: for a clean shutdown. */
export async function drain(db: Db, timeoutMs: number): Promise<void> {
  const pool = (db.client as { pool?: { numUsed(): number; numPendingAcquires(): number } }).pool;
  const deadline = Date.now() + timeoutMs;
  while (pool && pool.numUsed() + pool.numPendingAcquires() > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

