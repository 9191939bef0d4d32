import request from 'supertest';
import { isMysql } from '../helpers/config';
import { setupOwnTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';
import { holdDirectoryLock } from '../helpers/tree';

/**
 * A change of the directory that waits for the directory lock too long gives up with 503
 * Service unavailable and Retry-After, never a 500: past DB_QUERY_TIMEOUT_MS when another
 * process (another instance, say) holds the lock, and past DB_ACQUIRE_TIMEOUT_MS when a change of
 * the same process does (a long import, say: the changes of a process wait for each other before
 * they take a connection, tree/lock.ts). MySQL: the per-query limit is the driver's (SQLite waits
 * for its one connection instead).
 */
(isMysql() ? describe : describe.skip)('a write that waits too long for the directory lock', () => {
  // a database of its own: on the shared one, another file's import holds the directory lock
  // too, for longer than these limits; they leave room for this file's own set-up statements
  const ctx = setupOwnTestContext('lockwait', { DB_QUERY_TIMEOUT_MS: '3000', DB_ACQUIRE_TIMEOUT_MS: '4000' });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  /** A contact's update while `lock` holds the directory lock: 503 with Retry-After. */
  async function updateWhileHeld(lock: { release: () => Promise<void> }) {
    try {
      const res = await request(ctx.app).put(`/api/contacts/${admin.id}`).set(bearer(admin)).send({ name: 'Waited Too Long' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'error', message: 'Service unavailable' });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await lock.release();
    }
  }

  it('answers 503 with Retry-After when another connection holds the lock past DB_QUERY_TIMEOUT_MS', async () => {
    // a transaction outside this process's queue, as another instance's would be
    await updateWhileHeld(await holdDirectoryLock(ctx.db, { outsideQueue: true }));
  });

  it('answers 503 with Retry-After when a change of the same process holds it past DB_ACQUIRE_TIMEOUT_MS', async () => {
    // as a long import does
    await updateWhileHeld(await holdDirectoryLock(ctx.db));
  });
});
