import { setupTestContext } from '../helpers/context';
import { bearer, createDepartment, createUnit, createUser, unique } from '../helpers/factory';
import { contactsFixture, expectRefusal, failingFields, messageFor } from './contacts-support';

/**
 * Body validation of POST and PUT /api/contacts (spec 4.2, 8; DECISIONS 1, 5): every failing field
 * listed at once as {field, message}, boundaries, JSON types and unknown references. A refused write
 * changes nothing.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const fx = contactsFixture(ctx, { unit: true, admin: 'Super_admin', references: true });
const { api, create, update } = fx;
/** A valid create body in the file's unit; `extra` adds or overrides fields. */
const contactBody = (extra: Record<string, unknown> = {}) => fx.contactBody(fx.unitId, extra);

const countByEmail = async (email: unknown) => (await ctx.db('users').where({ email: String(email).toLowerCase() })).length;

describe('POST /api/contacts body', () => {
  test('lists every missing required field at once', async () => {
    const res = await create({});
    expect(failingFields(res)).toEqual(['designation_id', 'email', 'name', 'phone', 'service_no', 'unit_id']);
    expect(messageFor(res, 'email')).toBe('Email is required');
  });

  test('lists every failing field of a body with several bad values', async () => {
    const res = await create(
      contactBody({ name: 'a', phone: '1'.repeat(21), email: 'nope', status: 'away', avatar: 'ftp://x.test/a.png', role_id: 'x' }),
    );
    expect(failingFields(res)).toEqual(['avatar', 'email', 'name', 'phone', 'role_id', 'status']);
    expect(messageFor(res, 'email')).toBe('Please provide a valid email address');
  });

  test.each([
    ['name', 'a', 'refused'],
    ['name', ' a ', 'refused'],
    ['name', 'ab', 'accepted'],
    ['name', 'n'.repeat(255), 'accepted'],
    ['name', 'n'.repeat(256), 'refused'],
    ['service_no', 'S'.repeat(50), 'accepted'],
    ['service_no', 'S'.repeat(51), 'refused'],
    ['service_no', '', 'refused'],
    ['phone', '1'.repeat(20), 'accepted'],
    ['phone', '1'.repeat(21), 'refused'],
    ['phone', '', 'refused'],
    ['mobile', '1'.repeat(20), 'accepted'],
    ['mobile', '1'.repeat(21), 'refused'],
    ['alternative_mobile', '1'.repeat(20), 'accepted'],
    ['alternative_mobile', '1'.repeat(21), 'refused'],
  ])('%s of %j is %s', async (field, value, outcome) => {
    // a service number of full length must still be unique
    const v = field === 'service_no' && value.length > 0 ? `${unique('s')}${value}`.slice(0, value.length) : value;
    const body = contactBody({ [field]: v });
    const res = await create(body);
    if (outcome === 'accepted') {
      expect(res.status).toBe(201);
      expect(res.body.data.contact[field]).toBe(v);
    } else {
      expect(failingFields(res)).toEqual([field]);
      expect(await countByEmail(body.email)).toBe(0);
    }
  });

  test('trims the name before storing it', async () => {
    const res = await create(contactBody({ name: '  Trimmed Name  ' }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact.name).toBe('Trimmed Name');
  });

  test.each(['plainaddress', 'a@', '@example.test', 'a b@example.test', 'a@example'])('refuses the e-mail %j', async (email) => {
    const res = await create(contactBody({ email }));
    expect(failingFields(res)).toEqual(['email']);
    expect(messageFor(res, 'email')).toBe('Please provide a valid email address');
  });

  describe('wrong JSON types answer 400, never 500', () => {
    const STRING_FIELDS = ['name', 'service_no', 'phone', 'email', 'mobile', 'alternative_mobile', 'status', 'avatar', 'password'];
    const INT_FIELDS = ['unit_id', 'designation_id', 'rank_id', 'department_id', 'parent_id', 'role_id'];
    const cases: Array<[string, unknown]> = [];
    for (const f of STRING_FIELDS) cases.push([f, { a: 1 }], [f, ['x']], [f, 12345], [f, true]);
    for (const f of INT_FIELDS) cases.push([f, { a: 1 }], [f, [1]], [f, 'abc'], [f, 1.5], [f, 0], [f, -3], [f, true], [f, '']);

    test.each(cases)('%s = %j', async (field, value) => {
      const body = contactBody({ [field]: value });
      const res = await create(body);
      expect(failingFields(res)).toEqual([field]);
      expect(await countByEmail(body.email)).toBe(0);
    });

    test('a JSON array as the whole body is a validation failure', async () => {
      const res = await create([contactBody()]);
      expect(failingFields(res)).toEqual(['body']);
    });
  });

  test('integers given as strings of digits are accepted', async () => {
    const res = await create(contactBody({ unit_id: String(fx.unitId), designation_id: String(fx.designation.id), role_id: '3' }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact).toMatchObject({ unit_id: fx.unitId, designation_id: fx.designation.id, role_id: 3 });
  });

  test.each(['unit_id', 'designation_id', 'rank_id', 'role_id', 'department_id'])(
    'an unknown %s is a validation failure on that field',
    async (field) => {
      const body = contactBody({ [field]: 2_000_000_000 });
      const res = await create(body);
      expect(failingFields(res)).toEqual([field]);
      expect(await countByEmail(body.email)).toBe(0);
    },
  );

  test('every unknown reference is listed at once', async () => {
    const res = await create(contactBody({ unit_id: 2_000_000_000, designation_id: 2_000_000_001, rank_id: 2_000_000_002, role_id: 99 }));
    expect(failingFields(res)).toEqual(['designation_id', 'rank_id', 'role_id', 'unit_id']);
  });

  test('a department of another unit answers 400 `Department does not belong to the unit`', async () => {
    const other = await createUnit(ctx);
    const department = await createDepartment(ctx, other.id);
    const body = contactBody({ department_id: department.id });
    expectRefusal(await create(body), 'department_id', 'Department does not belong to the unit');
    expect(await countByEmail(body.email)).toBe(0);
  });

  test('a department of the same unit, a rank and a null department are accepted', async () => {
    const department = await createDepartment(ctx, fx.unitId);
    const res = await create(contactBody({ department_id: department.id, rank_id: fx.rank.id }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact).toMatchObject({ department_id: department.id, department_name: department.name, rank_id: fx.rank.id });
    const none = await create(contactBody({ department_id: null, rank_id: null }));
    expect(none.status).toBe(201);
    expect(none.body.data.contact).toMatchObject({ department_id: null, department_name: null, rank_id: null, rank_name: null });
  });

  test.each(['online', 'offline', 'busy'])('accepts the status %s', async (status) => {
    const res = await create(contactBody({ status }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact.status).toBe(status);
  });

  test.each(['away', 'ONLINE', ''])('refuses the status %j', async (status) => {
    const res = await create(contactBody({ status }));
    expect(failingFields(res)).toEqual(['status']);
  });

  test.each(['https://cdn.example.test/a.png', 'http://example.test/avatar?size=64'])('accepts the avatar %s', async (avatar) => {
    const res = await create(contactBody({ avatar }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact.avatar).toBe(avatar);
  });

  test.each(['ftp://example.test/a.png', 'javascript:alert(1)', 'not a url', 'example.test/a.png', `https://e.test/${'a'.repeat(500)}`])(
    'refuses the avatar %j',
    async (avatar) => {
      const res = await create(contactBody({ avatar }));
      expect(failingFields(res)).toEqual(['avatar']);
    },
  );

  test('a weak password, or one over 72 bytes, is refused on the password field', async () => {
    const weak = await create(contactBody({ password: 'alllowercase1' }));
    expect(failingFields(weak)).toEqual(['password']);
    const long = await create(contactBody({ password: `Aa1${'é'.repeat(35)}` }));
    expect(failingFields(long)).toEqual(['password']);
    expect(messageFor(long, 'password')).toBe('Password must be at most 72 bytes');
  });

  test('a name of 255 emoji (outside the BMP) is accepted and stored whole', async () => {
    const name = '\u{1F600}'.repeat(255);
    const res = await create(contactBody({ name }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact.name).toBe(name);
    expect((await api().get(`/api/contacts/${res.body.data.contact.id}`).set(bearer(fx.admin))).body.data.contact.name).toBe(name);
  });

  // lengths count code points, as the VARCHAR columns do
  test.each([
    ['name', 'n\uFE0F'.repeat(130)],
    ['phone', '1\uFE0F'.repeat(11)],
    ['service_no', 's\uFE0F'.repeat(26)],
  ])("%s with variation selectors beyond the column's length is refused or stored whole, never a 500", async (field, value) => {
    const res = await create(contactBody({ [field]: value }));
    expect([201, 400]).toContain(res.status);
    if (res.status === 201) expect(res.body.data.contact[field]).toBe(value);
  });

  // the lower-cased sort key is cut to 255 code points ("İ" lower-cases to 2)
  test('a valid name whose lower case is longer than 255 characters (130 × "İ") is accepted', async () => {
    const name = '\u0130'.repeat(130);
    const res = await create(contactBody({ name }));
    expect(res.status).toBe(201);
    expect(res.body.data.contact.name).toBe(name);
  });

  test('a malformed JSON body answers 400 `Malformed JSON body`', async () => {
    const res = await api().post('/api/contacts').set(bearer(fx.admin)).set('Content-Type', 'application/json').send('{"name": "x",');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', message: 'Malformed JSON body' });
  });
});

describe('ids beyond any stored row (up to 2^53 - 1) are unknown, never a 500', () => {
  const BIG = 9007199254740991;

  test('reads and writes on the contact answer 404 `Contact not found`', async () => {
    const calls = [
      api().get(`/api/contacts/${BIG}`).set(bearer(fx.admin)),
      api().put(`/api/contacts/${BIG}`).set(bearer(fx.admin)).send({ phone: '0100' }),
      api().delete(`/api/contacts/${BIG}`).set(bearer(fx.admin)),
      api().get(`/api/contacts/${BIG}/children`).set(bearer(fx.admin)),
      api().put(`/api/contacts/${BIG}/move`).set(bearer(fx.admin)).send({ parent_id: null }),
      api().put(`/api/contacts/${BIG}/password`).set(bearer(fx.admin)).send({ newPassword: 'Fresh1Pass' }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('Contact not found');
    }
    const unit = await api().get(`/api/contacts/unit/${BIG}`).set(bearer(fx.admin));
    expect(unit.status).toBe(404);
    expect(unit.body.message).toBe('Unit not found');
  });

  test('as references of a create they are validation failures', async () => {
    const res = await create(contactBody({ unit_id: BIG, designation_id: BIG, rank_id: BIG, role_id: BIG, department_id: BIG }));
    expect(failingFields(res)).toEqual(['department_id', 'designation_id', 'rank_id', 'role_id', 'unit_id']);
    const parent = await create(contactBody({ parent_id: BIG }));
    expect(parent.status).toBe(400);
    expect(parent.body.message).toBe('Parent contact not found');
  });

  test('in filters and bulk calls they match nothing', async () => {
    const list = await api().get('/api/contacts').query({ unit_id: BIG, department_id: BIG }).set(bearer(fx.admin));
    expect(list.status).toBe(200);
    expect(list.body.data.pagination.total).toBe(0);
    const search = await api().get('/api/contacts/search').query({ q: 'ab', unit_id: BIG }).set(bearer(fx.admin));
    expect(search.body.data.total).toBe(0);
    const bulk = await api().post('/api/contacts/bulk-delete').set(bearer(fx.admin)).send({ contactIds: [BIG] });
    expect(bulk.body.data.deletedCount).toBe(0);
    const move = await api().post('/api/contacts/bulk-move').set(bearer(fx.admin)).send({ contactIds: [BIG], parent_id: null });
    expect(move.status).toBe(400);
  });
});

describe('PUT /api/contacts/:id body', () => {
  test('lists every failing field and changes nothing', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const before = await ctx.db('users').where({ id: target.id }).first();
    const res = await update(target.id, { name: 'x', email: 'bad', phone: 'p'.repeat(21), unit_id: 'u', status: 'gone', parent_id: 'up' });
    expect(failingFields(res)).toEqual(['email', 'name', 'parent_id', 'phone', 'status', 'unit_id']);
    expect(await ctx.db('users').where({ id: target.id }).first()).toEqual(before);
  });

  const blank = async (field: string, value: string) => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const before = await ctx.db('users').where({ id: target.id }).first();
    const res = await update(target.id, { [field]: value });
    expect(failingFields(res)).toEqual([field]);
    expect(await ctx.db('users').where({ id: target.id }).first()).toEqual(before);
  };

  test.each(['name', 'email'])('an empty %s is refused (a required field cannot be blanked)', async (field) => {
    await blank(field, '');
  });

  test.each(['service_no', 'phone'])('an empty %s is refused (a required field cannot be blanked)', async (field) => {
    await blank(field, '   ');
  });

  test.each(['unit_id', 'designation_id', 'rank_id', 'role_id', 'department_id'])(
    'an unknown %s is a validation failure on that field',
    async (field) => {
      const target = await createUser(ctx, { unit_id: fx.unitId });
      const res = await update(target.id, { [field]: 2_000_000_000 });
      expect(failingFields(res)).toEqual([field]);
    },
  );

  test('a department of another unit answers 400 `Department does not belong to the unit`', async () => {
    const target = await createUser(ctx, { unit_id: fx.unitId });
    const department = await createDepartment(ctx, (await createUnit(ctx)).id);
    const res = await update(target.id, { department_id: department.id });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Department does not belong to the unit');
    expect(res.body.errors).toEqual([{ field: 'department_id', message: 'Department does not belong to the unit' }]);
    expect((await ctx.db('users').where({ id: target.id }).first()).department_id).toBeNull();
  });
});
