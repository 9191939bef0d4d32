import { SecurityService } from '../../src/modules/security/security.service';
import { setupTestContext } from '../helpers/context';
import { createOrganization, unique } from '../helpers/factory';

const ctx = setupTestContext();

/**
 * The failed-login summary is counted in process for small sets and by the database for large
 * ones: both ways must give the same answer for every scope and filter.
 */
describe('failed-login summaries counted in process and in the database agree', () => {
  const now = new Date();
  let organizationId: number;
  const ids = [unique('a'), unique('b'), unique('c')].map((s) => `${s}@strategy.test`);

  beforeAll(async () => {
    organizationId = await createOrganization(ctx);
    const rows = [];
    for (let i = 0; i < 60; i++) {
      rows.push({
        login_id: i % 7 === 0 ? null : ids[i % 3],
        organization_id: i % 5 === 0 ? null : organizationId,
        ip_address: i % 4 === 0 ? null : `192.0.2.${i % 6}`,
        user_agent: 'test',
        attempted_at: new Date(now.getTime() - i * 3_600_000),
        reason: ['User not found', 'Invalid password', 'Account is deactivated'][i % 3],
      });
    }
    await ctx.db('failed_login_attempts').insert(rows);
  });

  const scopes = () => [
    { kind: 'organization' as const, organizationId },
    { kind: 'all' as const, organizationId },
    { kind: 'own' as const, organizationId, userId: 0, loginIds: [ids[0]] },
  ];
  const filters = () => [{}, { from: new Date(now.getTime() - 30 * 3_600_000) }, { reason: 'Invalid password' }, { ip_address: '192.0.2.3' }];

  test('for every scope and filter', async () => {
    const inProcess = new SecurityService({ db: ctx.db, now: () => now });
    const inDatabase = new SecurityService({ db: ctx.db, now: () => now, inProcessMax: 0 });
    let nonEmpty = 0;
    for (const scope of scopes()) {
      for (const filter of filters()) {
        const a = await inProcess.listFailedLogins(scope, filter);
        const b = await inDatabase.listFailedLogins(scope, filter);
        if (Number(a.summary.total) > 0) nonEmpty++;
        expect(b).toEqual(a);
      }
    }
    // the comparisons were not all of empty sets
    expect(nonEmpty).toBeGreaterThanOrEqual(8);
  });
});
