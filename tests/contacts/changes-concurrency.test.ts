import type { Express } from 'express';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createDb, type Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { changeDirectory } from '../../src/modules/contacts';
import { updateContact } from '../../src/modules/contacts/data/contact.writer';
import { findUserRow } from '../../src/modules/contacts/data/users.queries';
import { isMysql } from '../helpers/config';
import { quietLogger, setupOwnTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUser, unique, type TestUser } from '../helpers/factory';
import { contractApp } from '../helpers/openapi';

/**
 * The change feed's promise (issue 24): a client that stores next_cursor and polls sees every
 * committed change exactly once, in commit order, while many writers commit at once. On MySQL
 * the writers go through two apps, each with its own pool and its own queue of changes, as two
 * processes would: they meet at the directory lock's row, and a version allocated by one waits
 * for the other's commit. On SQLite one connection serializes everything; the test still proves
 * the bookkeeping. A database of its own, so the rows committed are exactly this file's.
 */

const ctx = setupOwnTestContext('feedrace', { RATE_LIMIT_MAX: '1000000', DB_POOL_MAX: '12' });

interface Seen {
  version: number;
  contactId: number;
  type: string;
}

const positionOf = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8').split('.').map(Number) as [number, number];
const keyOf = (s: { version: number; contactId: number }) => `${s.version}.${s.contactId}`;

let admin: TestUser;
let parents: number[];
let leaves: number[];
let second: { app: Express; db: Db } | null = null;
beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Super_admin' });
  parents = [];
  for (let i = 0; i < 5; i++) parents.push((await createUser(ctx, { unit_id: admin.unit_id })).id);
  leaves = [];
  for (let i = 0; i < 40; i++) leaves.push((await createUser(ctx, { unit_id: admin.unit_id, parent_id: parents[i % 5] })).id);
  if (isMysql()) {
    const db = createDb(ctx.config.db, quietLogger);
    second = { db, app: contractApp(createApp({ db, config: ctx.config, logger: createLogger({ level: 'silent' }) })) };
  }
});
afterAll(async () => {
  await second?.db.destroy();
});

/** Follows the feed from `cursor` until a page says has_more false; what it saw, in order. */
async function catchUp(app: Express, cursor: string, seen: Seen[], limit: number): Promise<{ cursor: string; pages: number }> {
  let pages = 0;
  for (;;) {
    const res = await request(app).get(`/api/contacts/changes?cursor=${cursor}&limit=${limit}`).set(bearer(admin));
    expect(res.status).toBe(200);
    pages++;
    for (const c of res.body.data.changes) {
      const [version, contactId] = positionOf(c.cursor);
      expect(contactId).toBe(c.contact_id);
      seen.push({ version, contactId, type: c.type });
    }
    cursor = res.body.data.next_cursor;
    if (!res.body.data.has_more) return { cursor, pages };
  }
}

describe('GET /api/contacts/changes under 50 concurrent writers', () => {
  test('a poller following next_cursor sees exactly the rows committed: each once, in (version, contact) order, none missed', async () => {
    const designationId = await anyDesignationId(ctx);
    const list = await request(ctx.app).get('/api/contacts?limit=1').set(bearer(admin));
    const start = String(list.headers['x-changes-cursor']);
    const appOf = (i: number) => (second && i % 2 === 1 ? second.app : ctx.app);

    // 17 creates, 17 updates and 16 moves, each of a contact of its own: one row each
    const writes = Array.from({ length: 50 }, (_, i) => {
      const k = Math.floor(i / 3);
      if (i % 3 === 0) {
        const tag = unique('RC').slice(0, 40);
        const body = { name: `Race ${tag}`, service_no: tag, email: `${tag.toLowerCase()}@race.test`, phone: '01700000000', unit_id: admin.unit_id, designation_id: designationId, parent_id: parents[k % 5] };
        return { kind: 'created', send: () => request(appOf(i)).post('/api/contacts').set(bearer(admin)).send(body) };
      }
      if (i % 3 === 1) {
        const id = leaves[k];
        return { kind: 'updated', id, send: () => request(appOf(i)).put(`/api/contacts/${id}`).set(bearer(admin)).send({ phone: `019${String(i).padStart(8, '0')}` }) };
      }
      const leaf = 20 + k;
      return { kind: 'moved', id: leaves[leaf], send: () => request(appOf(i)).put(`/api/contacts/${leaves[leaf]}/move`).set(bearer(admin)).send({ parent_id: parents[(leaf + 1) % 5] }) };
    });

    const seen: Seen[] = [];
    let writing = true;
    let cursor = start;
    let pollsDuringWrites = 0;
    const poller = (async () => {
      while (writing) {
        ({ cursor } = await catchUp(ctx.app, cursor, seen, 4));
        pollsDuringWrites++;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const answers = await Promise.all(writes.map((w) => w.send()));
    writing = false;
    await poller;
    await catchUp(ctx.app, cursor, seen, 4);

    expect(answers.map((a) => a.status)).toEqual(writes.map((w) => (w.kind === 'created' ? 201 : 200)));
    const committed = (
      await ctx.db('contact_changes')
        .where('version', '>', positionOf(start)[0])
        .orderBy([{ column: 'version' }, { column: 'contact_id' }])
        .select('version', 'contact_id', 'type')
    ).map((r) => ({ version: Number(r.version), contactId: Number(r.contact_id), type: String(r.type) }));

    // what the poller saw is exactly what committed, in the same order: nothing missed, nothing twice
    expect(seen).toEqual(committed);
    for (let i = 1; i < seen.length; i++) {
      expect(seen[i].version > seen[i - 1].version || (seen[i].version === seen[i - 1].version && seen[i].contactId > seen[i - 1].contactId)).toBe(true);
    }
    // and what committed is every write, one row each, each its own version
    const expected = writes.map((w, i) => ({ id: w.kind === 'created' ? answers[i].body.data.contact.id : w.id, type: w.kind }));
    expect(committed.map((c) => `${c.contactId}:${c.type}`).sort()).toEqual(expected.map((e) => `${e.id}:${e.type}`).sort());
    expect(new Set(committed.map((c) => c.version)).size).toBe(50);
    expect(new Set(seen.map(keyOf)).size).toBe(50);
    expect(pollsDuringWrites).toBeGreaterThan(0);
  });

  (isMysql() ? test : test.skip)(
    'a change that holds the lock is not passed by: a poll meanwhile stops before its version, and the next poll after its commit gets it',
    async () => {
      const leaf = leaves[39];
      const { cursor: before } = await catchUp(ctx.app, String((await request(ctx.app).get('/api/contacts?limit=1').set(bearer(admin))).headers['x-changes-cursor']), [], 100);
      let release = () => undefined as void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let locked = () => undefined as void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      // the version is allocated and the row written now; the commit waits for the gate
      const change = changeDirectory(second!.db, async (trx) => {
        await updateContact(trx, (await findUserRow(trx, leaf))!, { name: 'Race Held Open' });
        locked();
        await gate;
      });
      await holding;
      const meanwhile: Seen[] = [];
      const during = await catchUp(ctx.app, before, meanwhile, 100);
      expect(meanwhile.filter((s) => s.contactId === leaf)).toEqual([]);
      release();
      await change;
      const after: Seen[] = [];
      await catchUp(ctx.app, during.cursor, after, 100);
      expect(after.filter((s) => s.contactId === leaf).map((s) => s.type)).toEqual(['updated']);
    },
  );
});
