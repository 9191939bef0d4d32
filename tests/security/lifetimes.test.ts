import { setupTestContext } from '../helpers/context';
import { createOrganization, createUser, removeUser, unique } from '../helpers/factory';
import { getAs, insertFailedLogin, insertPasswordChange, SECURITY_TEST_ENV } from './security-support';

/** Spec 2.7 and 2.8: how long the records live, as the foreign keys enforce it. */
const ctx = setupTestContext(SECURITY_TEST_ENV);

const changeIds = async (ids: number[]) =>
  (await ctx.db('password_change_logs').whereIn('id', ids).pluck('id')).map(Number).sort((a, b) => a - b);

describe('security record lifetimes', () => {
  test('removing an organization keeps its failed sign-ins, with a null organization', async () => {
    const org = await createOrganization(ctx);
    const loginId = unique('gone-org');
    const id = await insertFailedLogin(ctx, { login_id: loginId, organization_id: org, attempted_at: new Date() });
    await ctx.db('organizations').where({ id: org }).delete();

    const row = await ctx.db('failed_login_attempts').where({ id }).first();
    expect(row).toMatchObject({ login_id: loginId, organization_id: null });
    const superAdmin = await createUser(ctx, { role: 'Super_admin' });
    const res = await getAs(ctx, superAdmin, 'failed-logins', { organization_id: 'null', login_id: loginId });
    expect(res.body.data.attempts).toEqual([expect.objectContaining({ id, organization_id: null, organization_name: null })]);
  });

  test('removing an organization removes its password changes', async () => {
    const org = await createOrganization(ctx);
    const user = await createUser(ctx);
    const inOrg = await insertPasswordChange(ctx, { user_id: user.id, changed_by: user.id, organization_id: org, changed_at: new Date() });
    const elsewhere = await insertPasswordChange(ctx, {
      user_id: user.id,
      changed_by: user.id,
      organization_id: user.organization_id,
      changed_at: new Date(),
    });
    await ctx.db('organizations').where({ id: org }).delete();
    expect(await changeIds([inOrg, elsewhere])).toEqual([elsewhere]);
  });

  test('removing a user removes the password changes of that user, and keeps its failed sign-ins', async () => {
    const org = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    const user = await createUser(ctx, { organization_id: org });
    const own = await insertPasswordChange(ctx, { user_id: user.id, changed_by: user.id, organization_id: org, changed_at: new Date() });
    const reset = await insertPasswordChange(ctx, {
      user_id: user.id,
      changed_by: admin.id,
      organization_id: org,
      change_type: 'admin_reset',
      changed_at: new Date(),
    });
    const adminOwn = await insertPasswordChange(ctx, { user_id: admin.id, changed_by: admin.id, organization_id: org, changed_at: new Date() });
    const failed = await insertFailedLogin(ctx, { login_id: user.email, organization_id: org, attempted_at: new Date() });

    await removeUser(ctx, user.id);
    expect(await changeIds([own, reset, adminOwn])).toEqual([adminOwn]);
    expect(await ctx.db('failed_login_attempts').where({ id: failed }).first('organization_id')).toEqual({ organization_id: org });
  });

  test('removing the user who made a change removes that change', async () => {
    const org = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: org });
    const user = await createUser(ctx, { organization_id: org });
    const byAdmin = await insertPasswordChange(ctx, {
      user_id: user.id,
      changed_by: admin.id,
      organization_id: org,
      change_type: 'forced',
      changed_at: new Date(),
    });
    const own = await insertPasswordChange(ctx, { user_id: user.id, changed_by: user.id, organization_id: org, changed_at: new Date() });

    await removeUser(ctx, admin.id);
    expect(await changeIds([byAdmin, own])).toEqual([own]);
  });
});
