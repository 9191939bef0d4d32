import fc from 'fast-check';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { anyDesignationId, bearer, createUnit, createUser, unique, type TestUser } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';

const ctx = setupTestContext();

/**
 * Random sequences of creates, moves, bulk moves and deletes through the API, checked against
 * a model after every step: the API accepts exactly what the tree rules allow, and the stored
 * tree keeps every invariant (no cycle, parents active and in the same unit, the order key is
 * the true pre-order, depths are levels) with counters that match the model.
 */

type Op =
  | { kind: 'create'; unit: 0 | 1; parent: number | null; name: string }
  | { kind: 'move'; target: number; parent: number | null }
  | { kind: 'bulkMove'; targets: number[]; parent: number | null }
  | { kind: 'delete'; target: number }
  | { kind: 'bulkDelete'; targets: number[] };

// Names that tie when lower-cased, so sibling order falls back to id, and non-ASCII ones.
const NAMES = ['ann', 'Ann', 'bob', 'Bob', 'zed', 'Émile', 'émile', 'Ōta', 'carl'];

// Indexes refer to the contacts made so far in the run (modulo their number).
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), unit: fc.constantFrom(0 as const, 1 as const), parent: fc.option(fc.nat(40), { nil: null }), name: fc.constantFrom(...NAMES) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), target: fc.nat(40), parent: fc.option(fc.nat(40), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bulkMove' as const), targets: fc.uniqueArray(fc.nat(40), { minLength: 1, maxLength: 4 }), parent: fc.option(fc.nat(40), { nil: null }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bulkDelete' as const), targets: fc.uniqueArray(fc.nat(40), { minLength: 1, maxLength: 4 }) }) },
);

interface ModelContact {
  id: number;
  unit: number;
  parent: number | null;
  active: boolean;
}

class Model {
  readonly contacts: ModelContact[] = [];
  byId(id: number) {
    return this.contacts.find((c) => c.id === id)!;
  }
  pick(index: number | null): ModelContact | null {
    if (index === null || this.contacts.length === 0) return null;
    return this.contacts[index % this.contacts.length];
  }
  isUnder(candidate: number, ancestor: number): boolean {
    for (let at: number | null = candidate; at !== null; at = this.byId(at).parent) if (at === ancestor) return true;
    return false;
  }
  parentProblem(contact: ModelContact | null, parent: ModelContact | null, unit: number): boolean {
    if (!parent) return false;
    if (!parent.active || parent.unit !== unit) return true;
    return contact !== null && this.isUnder(parent.id, contact.id);
  }
}

describe('tree invariants under random sequences of changes', () => {
  let admin: TestUser;
  let designationId: number;

  beforeAll(async () => {
    admin = await createUser(ctx, { role: 'Super_admin' });
    designationId = await anyDesignationId(ctx);
  });

  test('every step keeps the invariants and does what the model says', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 18 }), async (ops) => {
        const units = [(await createUnit(ctx)).id, (await createUnit(ctx)).id];
        const model = new Model();
        for (const op of ops) {
          if (op.kind === 'create') {
            const parent = model.pick(op.parent);
            const tag = unique('p');
            const res = await request(ctx.app)
              .post('/api/contacts')
              .set(bearer(admin))
              .send({
                name: op.name,
                service_no: tag,
                email: `${tag}@property.test`,
                phone: '01700000000',
                unit_id: units[op.unit],
                designation_id: designationId,
                parent_id: parent?.id ?? null,
              });
            const refused = model.parentProblem(null, parent, units[op.unit]);
            expect(res.status).toBe(refused ? 400 : 201);
            if (!refused) model.contacts.push({ id: res.body.data.contact.id, unit: units[op.unit], parent: parent?.id ?? null, active: true });
          } else if (op.kind === 'move') {
            const target = model.pick(op.target);
            if (!target) continue;
            const parent = model.pick(op.parent);
            const res = await request(ctx.app).put(`/api/contacts/${target.id}/move`).set(bearer(admin)).send({ parent_id: parent?.id ?? null });
            const expected = !target.active ? 404 : model.parentProblem(target, parent, target.unit) ? 400 : 200;
            expect(res.status).toBe(expected);
            if (expected === 200) target.parent = parent?.id ?? null;
          } else if (op.kind === 'bulkMove') {
            const targets = [...new Set(op.targets.map((i) => model.pick(i)).filter((c): c is ModelContact => c !== null))];
            if (targets.length === 0) continue;
            const parent = model.pick(op.parent);
            const res = await request(ctx.app)
              .post('/api/contacts/bulk-move')
              .set(bearer(admin))
              .send({ contactIds: targets.map((t) => t.id), parent_id: parent?.id ?? null });
            const refused = targets.some((t) => !t.active || model.parentProblem(t, parent, t.unit));
            expect(res.status).toBe(refused ? 400 : 200);
            if (!refused) for (const t of targets) t.parent = parent?.id ?? null;
          } else if (op.kind === 'bulkDelete') {
            const targets = [...new Set(op.targets.map((i) => model.pick(i)).filter((c): c is ModelContact => c !== null))];
            if (targets.length === 0) continue;
            const res = await request(ctx.app)
              .post('/api/contacts/bulk-delete')
              .set(bearer(admin))
              .send({ contactIds: targets.map((t) => t.id) });
            expect(res.status).toBe(200);
            const removed = new Set(targets.filter((t) => t.active).map((t) => t.id));
            expect(res.body.data.deletedCount).toBe(removed.size);
            for (const t of targets) t.active = false;
            // children of a removed contact become roots, unless removed in the same call
            for (const c of model.contacts) if (c.parent !== null && removed.has(c.parent) && !removed.has(c.id)) c.parent = null;
          } else {
            const target = model.pick(op.target);
            if (!target) continue;
            const res = await request(ctx.app).delete(`/api/contacts/${target.id}`).set(bearer(admin));
            expect(res.status).toBe(target.active ? 200 : 404);
            if (target.active) {
              target.active = false;
              for (const c of model.contacts) if (c.parent === target.id) c.parent = null;
            }
          }

          expect(await treeProblems(ctx.db)).toEqual([]);
          const stored = await ctx.db('users').whereIn('unit_id', units).select('id', 'parent_id', 'is_active');
          expect(stored.map((r) => [Number(r.id), r.parent_id === null ? null : Number(r.parent_id), Boolean(Number(r.is_active))]).sort())
            .toEqual(model.contacts.map((c) => [c.id, c.parent, c.active]).sort());
        }
        for (const unit of units) {
          const res = await request(ctx.app).get(`/api/contacts?unit_id=${unit}&format=flat&limit=1000`).set(bearer(admin));
          const active = model.contacts.filter((c) => c.unit === unit && c.active);
          expect(res.body.data.statistics.total_contacts).toBe(active.length);
          expect(res.body.data.statistics.root_contacts).toBe(active.filter((c) => c.parent === null).length);
          expect(res.body.data.contacts).toHaveLength(active.length);
        }
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
