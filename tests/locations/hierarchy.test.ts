import request from 'supertest';
import { bearer } from '../helpers/factory';
import { BASE, CHILD_LEVELS, ISO_MS, MISSING_ID, create, createParent, setupLocationsContext, softDelete, uniqueName } from './helpers';

const ctx = setupLocationsContext();
const api = () => request(ctx.app);

describe.each(CHILD_LEVELS)('$group', (level) => {
  const { group, singular, label, parentGroup, parentKey, parentLabel, parentSingular } = level;
  const parentNameField = `${parentSingular}_name`;
  const path = `${BASE}/${group}`;

  describe(`POST /api/locations/${group}`, () => {
    test(`creates a ${singular} under its ${parentSingular} and names the ${parentSingular}`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const name = uniqueName(label);
      const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: parent.id, name, code: 'C1' });
      expect(res.status).toBe(201);
      expect(res.body.message).toBe(`${label} created successfully`);
      const record = res.body.data[singular];
      expect(Object.keys(record).sort()).toEqual(
        ['code', 'created_at', 'id', 'is_active', 'name', parentKey, parentNameField, 'updated_at'].sort(),
      );
      expect(record).toMatchObject({ [parentKey]: parent.id, [parentNameField]: parent.name, name, code: 'C1', is_active: 1 });
      expect(record.created_at).toMatch(ISO_MS);
      const row = await ctx.db(group).where({ id: record.id }).first();
      expect(Number(row[parentKey])).toBe(parent.id);
    });

    test(`accepts the ${parentKey} as a string of digits`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const res = await api().post(path).set(bearer(ctx.superAdmin)).send({ [parentKey]: String(parent.id), name: uniqueName(label) });
      expect(res.status).toBe(201);
      expect(res.body.data[singular][parentKey]).toBe(parent.id);
    });

    test(`lists a missing ${parentKey} and a missing name together`, async () => {
      const res = await api().post(path).set(bearer(ctx.admin)).send({ code: 'C1' });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Validation failed');
      expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['name', parentKey].sort());
    });

    test.each([['zero', 0], ['negative', -3], ['a fraction', 1.5], ['text', 'abc'], ['an object', { id: 1 }]])(
      `refuses a ${parentKey} that is %s`,
      async (_what, value) => {
        const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: value, name: uniqueName(label) });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([{ field: parentKey, message: `${parentKey} must be a positive integer` }]);
      },
    );

    test(`refuses a ${parentSingular} that does not exist: 400 on ${parentKey}`, async () => {
      const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: MISSING_ID, name: uniqueName(label) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        status: 'error',
        message: 'Validation failed',
        errors: [{ field: parentKey, message: `${parentLabel} not found` }],
      });
    });

    test(`refuses an inactive ${parentSingular}: 400 on ${parentKey}`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      await softDelete(ctx, ctx.admin, parentGroup, parent.id);
      const name = uniqueName(label);
      const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: parent.id, name });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: parentKey, message: `${parentLabel} is inactive` }]);
      expect(await ctx.db(group).where({ name }).first('id')).toBeUndefined();
    });

    test(`refuses a name taken within the same ${parentSingular} with 409`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const name = uniqueName(label);
      await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name });
      const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: parent.id, name });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ status: 'error', message: level.duplicate });
      expect(await ctx.db(group).where({ [parentKey]: parent.id, name }).count({ n: '*' })).toEqual([{ n: 1 }]);
    });

    test(`allows the same name under another ${parentSingular}`, async () => {
      const first = await createParent(ctx, ctx.admin, level);
      const second = await createParent(ctx, ctx.admin, level);
      const name = uniqueName(label);
      await create(ctx, ctx.admin, group, { [parentKey]: first.id, name });
      const res = await api().post(path).set(bearer(ctx.admin)).send({ [parentKey]: second.id, name });
      expect(res.status).toBe(201);
      expect(res.body.data[singular]).toMatchObject({ name, [parentKey]: second.id });
    });
  });

  describe(`GET, PUT and DELETE /api/locations/${group}/:id`, () => {
    test(`gets one ${singular} with its ${parentSingular}'s name`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const created = await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name: uniqueName(label) });
      const res = await api().get(`${path}/${created.id}`).set(bearer(ctx.user));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'success', message: `${label} retrieved successfully`, data: { [singular]: created } });
      expect(created[parentNameField]).toBe(parent.name);
    });

    test(`answers 404 ${label} not found on get, update and delete of an unknown id`, async () => {
      const responses = await Promise.all([
        api().get(`${path}/${MISSING_ID}`).set(bearer(ctx.user)),
        api().put(`${path}/${MISSING_ID}`).set(bearer(ctx.admin)).send({ name: uniqueName(label) }),
        api().delete(`${path}/${MISSING_ID}`).set(bearer(ctx.admin)),
      ]);
      for (const res of responses) {
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ status: 'error', message: `${label} not found` });
      }
    });

    test(`moves a ${singular} to another ${parentSingular} and renames it`, async () => {
      const from = await createParent(ctx, ctx.admin, level);
      const to = await createParent(ctx, ctx.admin, level);
      const created = await create(ctx, ctx.admin, group, { [parentKey]: from.id, name: uniqueName(label) });
      const name = uniqueName('Moved');
      const res = await api().put(`${path}/${created.id}`).set(bearer(ctx.admin)).send({ [parentKey]: to.id, name, code: null });
      expect(res.status).toBe(200);
      expect(res.body.message).toBe(`${label} updated successfully`);
      expect(res.body.data[singular]).toMatchObject({ id: created.id, [parentKey]: to.id, [parentNameField]: to.name, name, code: null });
    });

    test(`refuses a move to an unknown or inactive ${parentSingular}`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const inactive = await createParent(ctx, ctx.admin, level);
      await softDelete(ctx, ctx.admin, parentGroup, inactive.id);
      const created = await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name: uniqueName(label) });
      const unknown = await api().put(`${path}/${created.id}`).set(bearer(ctx.admin)).send({ [parentKey]: MISSING_ID });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors).toEqual([{ field: parentKey, message: `${parentLabel} not found` }]);
      const asleep = await api().put(`${path}/${created.id}`).set(bearer(ctx.admin)).send({ [parentKey]: inactive.id });
      expect(asleep.status).toBe(400);
      expect(asleep.body.errors).toEqual([{ field: parentKey, message: `${parentLabel} is inactive` }]);
      expect(Number((await ctx.db(group).where({ id: created.id }).first())[parentKey])).toBe(parent.id);
    });

    test(`refuses a move into a ${parentSingular} where the name is taken, and a rename to a sibling's name`, async () => {
      const from = await createParent(ctx, ctx.admin, level);
      const to = await createParent(ctx, ctx.admin, level);
      const name = uniqueName(label);
      await create(ctx, ctx.admin, group, { [parentKey]: to.id, name });
      const mover = await create(ctx, ctx.admin, group, { [parentKey]: from.id, name });
      const move = await api().put(`${path}/${mover.id}`).set(bearer(ctx.admin)).send({ [parentKey]: to.id });
      expect(move.status).toBe(409);
      expect(move.body.message).toBe(level.duplicate);

      const sibling = await create(ctx, ctx.admin, group, { [parentKey]: from.id, name: uniqueName(label) });
      const rename = await api().put(`${path}/${sibling.id}`).set(bearer(ctx.admin)).send({ name });
      expect(rename.status).toBe(409);
      expect(rename.body.message).toBe(level.duplicate);
    });

    test(`soft-deletes a ${singular}: inactive, kept, hidden from the ${parentSingular}'s lists, reactivated by is_active 1`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const created = await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name: uniqueName(label) });
      const del = await api().delete(`${path}/${created.id}`).set(bearer(ctx.admin));
      expect(del.status).toBe(200);
      expect(del.body.message).toBe(`${label} deleted successfully`);
      expect(del.body.data[singular]).toMatchObject({ id: created.id, is_active: 0 });
      expect(Number((await ctx.db(group).where({ id: created.id }).first()).is_active)).toBe(0);

      const listed = await api().get(path).query({ [parentKey]: parent.id }).set(bearer(ctx.user));
      expect(listed.body.data[group]).toEqual([]);
      const lookup = await api().get(`${path}/${parentSingular}/${parent.id}`).set(bearer(ctx.user));
      expect(lookup.body.data[group]).toEqual([]);
      expect((await api().get(`${path}/${created.id}`).set(bearer(ctx.user))).body.data[singular].is_active).toBe(0);

      const back = await api().put(`${path}/${created.id}`).set(bearer(ctx.admin)).send({ is_active: '1' });
      expect(back.body.data[singular].is_active).toBe(1);
      const again = await api().get(path).query({ [parentKey]: parent.id }).set(bearer(ctx.user));
      expect(again.body.data[group].map((r: { id: number }) => r.id)).toEqual([created.id]);
    });

    test(`a User reads ${group} but gets 403 on every write`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const created = await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name: uniqueName(label) });
      expect((await api().get(path).set(bearer(ctx.user))).status).toBe(200);
      expect((await api().get(`${path}/${parentSingular}/${parent.id}`).set(bearer(ctx.user))).status).toBe(200);
      const writes = await Promise.all([
        api().post(path).set(bearer(ctx.user)).send({ [parentKey]: parent.id, name: uniqueName(label) }),
        api().put(`${path}/${created.id}`).set(bearer(ctx.user)).send({ name: uniqueName(label) }),
        api().delete(`${path}/${created.id}`).set(bearer(ctx.user)),
      ]);
      for (const res of writes) expect([res.status, res.body.message]).toEqual([403, 'Insufficient permissions']);
      const row = await ctx.db(group).where({ id: created.id }).first();
      expect([row.name, Number(row.is_active)]).toEqual([created.name, 1]);
      expect(await ctx.db(group).where({ [parentKey]: parent.id }).count({ n: '*' })).toEqual([{ n: 1 }]);
    });
  });

  describe(`GET /api/locations/${group}/${parentSingular}/:${parentKey}`, () => {
    test(`returns every active ${singular} of the ${parentSingular}, by name`, async () => {
      const parent = await createParent(ctx, ctx.admin, level);
      const other = await createParent(ctx, ctx.admin, level);
      const stem = uniqueName('Sib');
      const made = [];
      for (const name of [`${stem} Beta`, `${stem} Alpha`, `${stem} Gamma`, `${stem} Delta`]) {
        made.push(await create(ctx, ctx.admin, group, { [parentKey]: parent.id, name }));
      }
      await create(ctx, ctx.admin, group, { [parentKey]: other.id, name: `${stem} Alpha` });
      await softDelete(ctx, ctx.admin, group, made[2].id);
      const res = await api().get(`${path}/${parentSingular}/${parent.id}`).set(bearer(ctx.user));
      expect(res.status).toBe(200);
      expect(res.body.message).toBe(`${group[0].toUpperCase()}${group.slice(1)} retrieved successfully`);
      expect(res.body.data[group].map((r: { name: string }) => r.name)).toEqual([`${stem} Alpha`, `${stem} Beta`, `${stem} Delta`]);
      expect(res.body.data[group][0]).toMatchObject({ [parentKey]: parent.id, [parentNameField]: parent.name, is_active: 1 });
      expect(res.body.data).toMatchObject({ [parentKey]: parent.id, total: 3 });
    });

    test(`answers 404 ${parentLabel} not found for an unknown ${parentSingular}`, async () => {
      const res = await api().get(`${path}/${parentSingular}/${MISSING_ID}`).set(bearer(ctx.user));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ status: 'error', message: `${parentLabel} not found` });
    });

    test(`refuses a ${parentKey} that is not a positive integer`, async () => {
      const res = await api().get(`${path}/${parentSingular}/abc`).set(bearer(ctx.user));
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ field: parentKey, message: expect.any(String) }]);
    });
  });
});
