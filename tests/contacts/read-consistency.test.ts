import request from 'supertest';
import { createDb, type Db } from '../../src/lib/db';
import { changeDirectory } from '../../src/modules/contacts';
import { atOneVersion } from '../../src/modules/contacts/data/tree/one-version';
import { isMysql } from '../helpers/config';
import { quietLogger, setupOwnTestContext } from '../helpers/context';
import { bearer, createUser, type TestUser } from '../helpers/factory';

/**
 * A listing of a subtree reads the subtree's range of order keys and then the rows in that range:
 * several statements. Under READ COMMITTED (MySQL) each statement sees what committed before it,
 * and on SQLite another request's transaction may run between two of them, so a move committed
 * in between used to give a range from before the move and rows from after it: an empty listing
 * of a contact that has children (seen once in CI on MariaDB). The reads now see one directory
 * version. This test moves a parent back and forth while listing its subtree: every listing must
 * hold exactly its children, counted. A database of its own, so no other file's writes interleave.
 */

const ctx = setupOwnTestContext('readrace', { RATE_LIMIT_MAX: '1000000', DB_POOL_MAX: '8' });

let admin: TestUser;
let roots: [number, number];
let parent: number;
let children: number[];
beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Super_admin' });
  const unit_id = admin.unit_id;
  roots = [(await createUser(ctx, { unit_id })).id, (await createUser(ctx, { unit_id })).id];
  parent = (await createUser(ctx, { unit_id, parent_id: roots[0] })).id;
  children = [];
  for (let i = 0; i < 5; i++) children.push((await createUser(ctx, { unit_id, parent_id: parent })).id);
});

const READS = isMysql() ? 300 : 150;

test('a subtree listing holds exactly the subtree while its root moves back and forth', async () => {
  let reading = true;
  let moves = 0;
  const mover = (async () => {
    while (reading) {
      const res = await request(ctx.app)
        .put(`/api/contacts/${parent}/move`)
        .set(bearer(admin))
        .send({ parent_id: roots[(moves + 1) % 2] });
      expect(res.status).toBe(200);
      moves++;
    }
  })();

  const wrong: string[] = [];
  const want = [...children].sort((a, b) => a - b);
  try {
    for (let i = 0; i < READS; i++) {
      const search = i % 3 === 2 ? '&search=test' : '';
      const res = await request(ctx.app).get(`/api/contacts?parent_id=${parent}&format=flat&limit=50${search}`).set(bearer(admin));
      expect(res.status).toBe(200);
      const ids = res.body.data.contacts.map((c: { id: number }) => c.id).sort((a: number, b: number) => a - b);
      const total = res.body.data.statistics.total_contacts;
      if (JSON.stringify(ids) !== JSON.stringify(want) || total !== want.length) wrong.push(`read ${i}${search}: ids ${ids}, total ${total}`);
    }
  } finally {
    reading = false;
    await mover;
  }
  // the race needs moves to commit while the reads run
  expect(moves).toBeGreaterThan(20);
  expect(wrong).toEqual([]);
}, 120_000);

test('an export of a subtree holds each of its contacts once while its root moves back and forth', async () => {
  let reading = true;
  let moves = 0;
  const mover = (async () => {
    while (reading) {
      const res = await request(ctx.app).put(`/api/contacts/${parent}/move`).set(bearer(admin)).send({ parent_id: roots[(moves + 1) % 2] });
      expect(res.status).toBe(200);
      moves++;
    }
  })();
  const wrong: string[] = [];
  try {
    for (let i = 0; i < READS / 3; i++) {
      const res = await request(ctx.app).get(`/api/contacts/export?root_id=${parent}&format=csv`).set(bearer(admin));
      expect(res.status).toBe(200);
      // the header and the subtree's six contacts, the root first
      const lines = res.text.trim().split(/\r?\n/);
      if (lines.length !== 7) wrong.push(`export ${i}: ${lines.length - 1} contacts`);
    }
  } finally {
    reading = false;
    await mover;
  }
  expect(moves).toBeGreaterThan(5);
  expect(wrong).toEqual([]);
}, 120_000);

describe('a read that keeps losing the race (atOneVersion)', () => {
  const version = async (db: Db) => Number((await db('directory_state').where({ id: 1 }).first('version')).version);

  test('runs last while no change can commit: a change started meanwhile waits for the read to end', async () => {
    // another process's handle on MySQL (a pool and a queue of its own); on SQLite the same one
    const other = isMysql() ? createDb(ctx.config.db, quietLogger) : ctx.db;
    try {
      let calls = 0;
      let pending: Promise<unknown> | null = null;
      const seen = await atOneVersion(ctx.db, null, async (at) => {
        calls++;
        // the first attempts each see a change commit before they end
        if (calls <= 3) {
          await changeDirectory(ctx.db, async () => undefined);
          return null;
        }
        // the last one: a change started now must not commit before this read ends
        pending = changeDirectory(other, async () => undefined);
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { at: at.directory, stored: await version(ctx.db) };
      });
      expect(calls).toBe(4);
      expect(seen).not.toBeNull();
      expect(seen!.stored).toBe(seen!.at);
      await pending;
      expect(await version(ctx.db)).toBe(seen!.at + 1);
    } finally {
      if (other !== ctx.db) await other.destroy();
    }
  });
});
