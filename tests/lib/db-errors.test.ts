import { safeError } from '../../src/lib/logger';
import { openTestDb } from '../helpers/context';

/**
 * A failed query's error carries the driver's message only: knex's copy of the statement and
 * of its values (a password hash, say) is taken off where the error is made, whatever its
 * code, so no log line can show them.
 */
test('a failed query leaves no SQL and no value in its error', async () => {
  const { db, cleanup } = openTestDb();
  try {
    const secret = '$2b$12$secret-hash-never-logged';
    const err = await db('users')
      .insert({ password_hash: secret, no_such_column: 1 })
      .then(() => null, (e: unknown) => e as Error);
    expect(typeof err?.message).toBe('string');
    for (const text of [err!.message, JSON.stringify(safeError(err))]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain('password_hash');
      expect(text).toContain('no_such_column');
    }
  } finally {
    await db.destroy();
    cleanup();
  }
});
