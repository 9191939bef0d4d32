import request from 'supertest';
import { changeDirectory } from '../../src/modules/contacts';
import { isMysql } from '../helpers/config';
import { setupTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';

/**
 * A change of the directory that waits for the directory lock longer than DB_QUERY_TIMEOUT_MS
 * (a long import holding it, say) gives up with 503 Service unavailable and Retry-After, never
 * a 500. MySQL: the per-query limit is the driver's (SQLite waits for its one connection instead).
 */
(isMysql() ? describe : describe.skip)('a write that waits too long for the directory lock', () => {
  const ctx = setupTestContext({ DB_QUERY_TIMEOUT_MS: '1000' });
  let admin: TestUser;
  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
  });

  it('answers 503 with Retry-After when the lock stays held past DB_QUERY_TIMEOUT_MS', async () => {
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
