import type { Knex } from 'knex';
import { writeBehind } from '../../src/lib/db';
import { NotFoundError } from '../../src/lib/errors';
import { AuditTrail, type Actor } from '../../src/modules/audit';
import { changeDirectory, contactGrams } from '../../src/modules/contacts';
import { updateContact } from '../../src/modules/contacts/data/contact.writer';
import { findUserRow } from '../../src/modules/contacts/data/users.queries';
import { providerChange } from '../../src/modules/contacts/write/lifecycle';
import { CONTACT_TAKEN } from '../../src/modules/contacts/write/contact-rules';
import { UNCONDITIONAL } from '../../src/lib/http/conditional';
import { permissionList } from '../../src/modules/access/grants';
import { changeStamp, markSearchChanged } from '../../src/modules/contacts/data/tree/lock';
import { isMysql } from '../helpers/config';
import { setupOwnTestContext, setupTestContext } from '../helpers/context';
import { createUser, type TestUser } from '../helpers/factory';
import { holdDirectoryLock } from '../helpers/tree';

/**
 * The changes that queue up while one holds the directory lock run next in one transaction,
 * each in a savepoint, and commit together (data/tree/change-queue.ts, lockedChange). These tests queue
 * changes behind a held lock, so that they form one group, and prove what each caller hears and
 * what the database keeps.
 */
describe('changes queued behind the directory lock commit together', () => {
  // a database of its own: the tests compare the directory's version, which another file's write
  // bumps on MySQL's shared test database (a run beside the others took one version in between)
  const ctx = setupOwnTestContext('groupcommit');
  let contacts: TestUser[];
  beforeAll(async () => {
    contacts = [];
    for (let i = 0; i < 4; i++) contacts.push(await createUser(ctx));
  });

  const nameOf = async (id: number) => (await ctx.db('users').where({ id }).first('name')).name as string;
  const rename = (trx: Knex.Transaction, id: number, name: string) => trx('users').where({ id }).update({ name });

  it('rolls back a change that fails with a 4xx alone, its writes undone, and commits the others', async () => {
    const [a, b, c] = contacts;
    const before = await nameOf(a.id);
    const lock = await holdDirectoryLock(ctx.db);
    const failing = changeDirectory(ctx.db, async (trx) => {
      await rename(trx, a.id, 'Written Then Refused');
      throw new NotFoundError('Contact not found');
    });
    const first = changeDirectory(ctx.db, async (trx) => (await rename(trx, b.id, 'Grouped First'), changeStamp(trx)));
    const second = changeDirectory(ctx.db, async (trx) => (await rename(trx, c.id, 'Grouped Second'), changeStamp(trx)));
    await lock.release();

    await expect(failing).rejects.toThrow(NotFoundError);
    // each change of the group has a directory version of its own, in the order of the queue
    const [v1, v2] = await Promise.all([first, second]);
    expect(v2).toBe(v1 + 1);
    expect(await nameOf(a.id)).toBe(before);
    expect(await nameOf(b.id)).toBe('Grouped First');
    expect(await nameOf(c.id)).toBe('Grouped Second');
  });

  it('runs each change of a group again alone after a failure that is not a 4xx, so only the failing one fails', async () => {
    const [a, b, c] = contacts;
    const before = await nameOf(b.id);
    const lock = await holdDirectoryLock(ctx.db);
    let runsOfB = 0;
    const ok1 = changeDirectory(ctx.db, (trx) => rename(trx, a.id, 'Survived A Broken Group'));
    const broken = changeDirectory(ctx.db, async (trx) => {
      runsOfB++;
      await rename(trx, b.id, 'Written Then Broken');
      throw new TypeError('a defect, not a refusal');
    });
    const ok2 = changeDirectory(ctx.db, (trx) => rename(trx, c.id, 'Survived Too'));
    await lock.release();

    await expect(broken).rejects.toThrow(TypeError);
    await expect(ok1).resolves.toBe(1);
    await expect(ok2).resolves.toBe(1);
    // once in the group, once alone
    expect(runsOfB).toBe(2);
    expect(await nameOf(a.id)).toBe('Survived A Broken Group');
    expect(await nameOf(b.id)).toBe(before);
    expect(await nameOf(c.id)).toBe('Survived Too');
  });

  it('takes the lock once for the group, a version for each change, and bumps the search version once however many changes marked it', async () => {
    const [a, b, c] = contacts;
    const state = async () => ctx.db('directory_state').where({ id: 1 }).first('version', 'search_version');
    const before = await state();
    const lock = await holdDirectoryLock(ctx.db);
    const searched = (id: number, name: string) =>
      changeDirectory(ctx.db, async (trx) => {
        await rename(trx, id, name);
        markSearchChanged(trx);
        return changeStamp(trx);
      });
    const stamps = Promise.all([searched(a.id, 'Searched A'), searched(b.id, 'Searched B'), searched(c.id, 'Searched C')]);
    await lock.release();
    const got = await stamps;
    const after = await state();
    // the held lock's own change took one version, the group three
    expect(got).toEqual([Number(before.version) + 2, Number(before.version) + 3, Number(before.version) + 4]);
    expect(Number(after.version)).toBe(Number(before.version) + 4);
    expect(Number(after.search_version)).toBe(Number(before.search_version) + 1);
  });

  it('writes the search grams of the group once, as the last change of each contact left them, and none of a change rolled back to its savepoint', async () => {
    // contacts of their own: the other tests rename theirs in SQL, which leaves their grams behind
    const [a, b] = [await createUser(ctx), await createUser(ctx)];
    const gramsOf = async (id: number) => (await ctx.db('contact_search_grams').where({ contact_id: id }).orderBy('gram').pluck('gram')).map(Number);
    const expected = async (id: number) => contactGrams((await findUserRow(ctx.db, id))!).sort((x, y) => x - y);
    const renamed = (id: number, name: string, refuse = false) =>
      changeDirectory(ctx.db, async (trx) => {
        await updateContact(trx, (await findUserRow(trx, id))!, { name });
        if (refuse) throw new NotFoundError('Contact not found');
      });
    const bBefore = await gramsOf(b.id);
    const lock = await holdDirectoryLock(ctx.db);
    // a gram that the first rename adds and the second removes again, and the reverse
    const changes = [renamed(a.id, 'Qqzz Interim'), renamed(a.id, 'Wwyy Final'), renamed(b.id, 'Never Kept Xxvv', true)];
    await lock.release();
    await Promise.allSettled(changes);
    await expect(changes[2]).rejects.toThrow(NotFoundError);
    expect(await nameOf(a.id)).toBe('Wwyy Final');
    expect(await gramsOf(a.id)).toEqual(await expected(a.id));
    expect(await gramsOf(b.id)).toEqual(bBefore);
    expect(await gramsOf(b.id)).toEqual(await expected(b.id));
  });

  // SQLite has one connection, which the group's transaction holds: a read beside it would wait
  (isMysql() ? it : it.skip)('commits the group once: a change sees the earlier ones of its group, which no other connection sees before the commit', async () => {
    const [a, , , d] = contacts;
    const before = await nameOf(a.id);
    const lock = await holdDirectoryLock(ctx.db);
    const writer = changeDirectory(ctx.db, (trx) => rename(trx, a.id, 'Not Yet Committed'));
    const reader = changeDirectory(ctx.db, async (trx) => ({
      inside: (await trx('users').where({ id: a.id }).first('name')).name,
      outside: await nameOf(a.id),
    }));
    // a change that asks to run alone ends the group: it sees the group committed
    const alone = changeDirectory(ctx.db, async () => nameOf(a.id), undefined, { alone: true });
    const afterAlone = changeDirectory(ctx.db, (trx) => rename(trx, d.id, 'After The One Alone'));
    await lock.release();

    await writer;
    expect(await reader).toEqual({ inside: 'Not Yet Committed', outside: before });
    expect(await alone).toBe('Not Yet Committed');
    await afterAlone;
    expect(await nameOf(d.id)).toBe('After The One Alone');
  });
});

/**
 * A change of the directory sends what it does not read back (its savepoint, its audit entry)
 * behind its next statements instead of waiting a round trip for each (lib/db/write-behind.ts).
 * These tests prove that nothing of that is lost or outlives a rollback.
 */
describe('writes sent behind a change of the directory', () => {
  const ctx = setupTestContext();
  const audit = new AuditTrail({ enabled: true });
  const actorFor = (requestId: string): Actor => ({
    userId: null, roleId: 0, roleName: 'Super_admin', organizationId: null, email: null, serviceNo: null,
    permissions: new Set(), versions: { directory: 0, search: 0, account: 0, reference: 0, locations: 0 },
    requestId, client: { ip: null, userAgent: null },
  } as unknown as Actor);
  const entriesOf = async (requestId: string) => {
    const events = await ctx.db('audit_events').where({ request_id: requestId }).pluck('id');
    const targets = await ctx.db('audit_event_targets').whereIn('event_id', events.length > 0 ? events : [0]).pluck('target_id');
    return { events: events.length, targets: targets.map(Number).sort((x, y) => x - y) };
  };
  // target ids of this test's own, so that another file's entries on a shared database do not count
  const targets = [1, 2, 3].map((i) => 900_000_000 + (process.pid % 1000) * 1000 + i);
  const orphanTargets = async () =>
    Number((await ctx.db('audit_event_targets as t').leftJoin('audit_events as e', 'e.id', 't.event_id').whereIn('t.target_id', targets).whereNull('e.id').count({ n: '*' }).first())!.n);

  it("undoes a refused change's audit entry and its targets with the change, and keeps the other changes' entries", async () => {
    const tag = `behind-${Date.now()}`;
    const lock = await holdDirectoryLock(ctx.db);
    const recorded = (name: string, refuse: boolean) =>
      changeDirectory(ctx.db, async (trx) => {
        // a change of many: its targets are written after the entry, once its id is known
        await audit.record(trx, actorFor(`${tag}-${name}`), { action: 'contact.bulk_move', targetType: 'contact', targetId: null, targetIds: targets });
        if (refuse) throw new NotFoundError('Contact not found');
      });
    const changes = [recorded('kept-1', false), recorded('refused', true), recorded('kept-2', false)];
    await lock.release();
    await Promise.allSettled(changes);

    await expect(changes[1]).rejects.toThrow(NotFoundError);
    expect(await entriesOf(`${tag}-kept-1`)).toEqual({ events: 1, targets });
    expect(await entriesOf(`${tag}-kept-2`)).toEqual({ events: 1, targets });
    expect(await entriesOf(`${tag}-refused`)).toEqual({ events: 0, targets: [] });
    // a target row written after the rollback to the savepoint would outlive its entry
    expect(await orphanTargets()).toBe(0);
  });

  it("writes the targets of a group's audit entries in one statement, each with its own entry, none of a refused change", async () => {
    const tag = `together-${Date.now()}`;
    const inserts: string[] = [];
    // knex's query event sees MySQL's INSERTs; SQLite's bulk INSERTs run on a prepared statement beside it
    const seen = (q: { sql: string }) => /^insert into `audit_event_targets`/i.test(q.sql) && inserts.push(q.sql);
    const lock = await holdDirectoryLock(ctx.db);
    const recorded = (i: number, refuse: boolean) =>
      changeDirectory(ctx.db, async (trx) => {
        await audit.record(trx, actorFor(`${tag}-${i}`), { action: 'contact.update', targetType: 'contact', targetId: targets[i] });
        if (refuse) throw new NotFoundError('Contact not found');
      });
    ctx.db.on('query', seen);
    const changes = [recorded(0, false), recorded(1, true), recorded(2, false)];
    await lock.release();
    await Promise.allSettled(changes);
    ctx.db.off('query', seen);

    await expect(changes[1]).rejects.toThrow(NotFoundError);
    expect(await entriesOf(`${tag}-0`)).toEqual({ events: 1, targets: [targets[0]] });
    expect(await entriesOf(`${tag}-1`)).toEqual({ events: 0, targets: [] });
    expect(await entriesOf(`${tag}-2`)).toEqual({ events: 1, targets: [targets[2]] });
    if (isMysql()) expect(inserts).toHaveLength(1);
    expect(await orphanTargets()).toBe(0);
  });

  it('fails the group when a write sent behind fails: each change runs again alone, and only the one whose write failed fails', async () => {
    const [a, b] = [await createUser(ctx), await createUser(ctx)];
    const lock = await holdDirectoryLock(ctx.db);
    const runs = { a: 0, bad: 0, b: 0 };
    const renamed = (id: number, key: 'a' | 'b') =>
      changeDirectory(ctx.db, async (trx) => {
        runs[key]++;
        await trx('users').where({ id }).update({ name: `Behind ${key}` });
      });
    const ok1 = renamed(a.id, 'a');
    const broken = changeDirectory(ctx.db, async (trx) => {
      runs.bad++;
      await writeBehind(trx, () => trx.raw('INSERT INTO no_such_table (id) VALUES (1)'));
    });
    const ok2 = renamed(b.id, 'b');
    await lock.release();

    // (better-sqlite3's error is no Error of the test's realm: its message is matched)
    await expect(broken).rejects.toHaveProperty('message', expect.stringMatching(/no_such_table/));
    await expect(ok1).resolves.toBeUndefined();
    await expect(ok2).resolves.toBeUndefined();
    // once in the group, which the failed write rolled back, and once alone
    expect(runs).toEqual({ a: 2, bad: 2, b: 2 });
    expect((await ctx.db('users').where({ id: a.id }).first('name')).name).toBe('Behind a');
    expect((await ctx.db('users').where({ id: b.id }).first('name')).name).toBe('Behind b');
  });
});

/**
 * A change that an identity provider sends reads the contact again under the directory lock
 * (write/lifecycle.ts): the SCIM route's read before it does not see a DELETE that commits in
 * between, so this read is the one that refuses a contact its provider has deleted.
 */
describe("an identity provider's change of a contact it deleted meanwhile", () => {
  const ctx = setupTestContext();
  it('is 404 under the lock, and the row is left as it was', async () => {
    const u = await createUser(ctx, { phone: '01700000000' });
    // as a SCIM DELETE leaves it, committed after the route's own read
    await ctx.db('users').where({ id: u.id }).update({ deprovisioned_at: new Date(), is_active: false });
    // the Super_admin's role as it is stored: every organization within reach
    const role = await ctx.db('roles').where({ name: 'Super_admin' }).first('id', 'permission_names');
    const actor = {
      userId: 0, roleId: Number(role.id), roleName: 'Super_admin', organizationId: 1, email: '', serviceNo: '',
      permissions: new Set(permissionList(role.permission_names)), versions: { directory: 0, search: 0, account: 0, reference: 0, locations: 0 },
      requestId: 'provider-deleted', client: { ip: null, userAgent: null },
    } as unknown as Actor;
    const change = providerChange(ctx.db, new AuditTrail({ enabled: true }), {
      id: u.id, changes: { phone: '01799999999' }, actor, preconditions: UNCONDITIONAL, taken: CONTACT_TAKEN, activate: true,
    });
    await expect(change).rejects.toThrow(NotFoundError);
    const row = await ctx.db('users').where({ id: u.id }).first('phone', 'is_active');
    expect([row.phone, Number(row.is_active)]).toEqual(['01700000000', 0]);
  });
});
