import request from 'supertest';
import { changeDirectory } from '../../src/modules/contacts';
import { isMysql } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';

/**
 * A change of the directory that waits for the directory lock too long gives up with 503
 * Service unavailable and Retry-After, never a 500: past DB_QUERY_TIMEOUT_MS when another
 * process (another instance, say) holds the lock, and past DB_ACQUIRE_TIMEOUT_MS when a change of
 * the same process does (a long import, say: the changes of a process wait for each other before
 * they take a connection, tree/lock.ts). MySQL: the per-query limit is the driver's (SQLite waits
 * for its one connection instead).
 */
(isMysql() ? describe : describe.skip)('a write that waits too long for the directory lock', () => {
  const ctx = setupTestContext({ DB_QUERY_TIMEOUT_MS: '1000', DB_ACQUIRE_TIMEOUT_MS: '1500' });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  it('answers 503 with Retry-After when another connection holds the lock past DB_QUERY_TIMEOUT_MS', async () => {
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked = () => undefined as void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // a transaction outside this process's queue, as another instance's would be
    const holder = ctx.db.transaction(async (trx) => {
      await trx('directory_state').where({ id: 1 }).increment('version', 1);
      locked();
      await held;
    });
    await isLocked;
    try {
      const res = await request(ctx.app).put(`/api/contacts/${admin.id}`).set(bearer(admin)).send({ name: 'Waited Too Long' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'error', message: 'Service unavailable' });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      release();
      await holder;
    }
  });

  it('answers 503 with Retry-After when a change of the same process holds it past DB_ACQUIRE_TIMEOUT_MS', async () => {
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked = () => undefined as void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    // another connection holds the lock (as an import does) until released
    const holder = changeDirectory(ctx.db, async () => {
      locked();
      await held;
    });
    await isLocked;
    try {
      const res = await request(ctx.app).put(`/api/contacts/${admin.id}`).set(bearer(admin)).send({ name: 'Waited Too Long' });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ status: 'error', message: 'Service unavailable' });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      release();
      await holder;
    }
  });
});
