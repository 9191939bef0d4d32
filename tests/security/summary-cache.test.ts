import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser } from '../helpers/factory';
import { SECURITY_TEST_ENV, WRONG } from './security-support';

// A minute of reuse: within this test, a summary is computed once per scope and filters.
const ctx = setupTestContext({ ...SECURITY_TEST_ENV, SECURITY_SUMMARY_CACHE_MS: '60000' });

describe('security summaries with SECURITY_SUMMARY_CACHE_MS', () => {
  test('a summary is reused for the same filters while the rows stay fresh', async () => {
    const organizationId = await createOrganization(ctx);
    const admin = await createUser(ctx, { role: 'Admin', organization_id: organizationId });
    const target = await createUser(ctx, { organization_id: organizationId });
    const fail = () => request(ctx.app).post('/api/auth/login').send({ email: target.email, password: WRONG });
    const list = (query: Record<string, string> = {}) =>
      request(ctx.app).get('/api/security/failed-logins').query(query).set(bearer(admin));

    await fail();
    const first = await list();
    expect(first.body.data.summary.total).toBe(1);

    await fail();
    const second = await list();
    // the same summary, computed at the same moment, while the list shows the new row
    expect(second.body.data.summary).toEqual(first.body.data.summary);
    expect(second.body.data.attempts).toHaveLength(2);

    // other filters are another summary, computed now
    const filtered = await list({ login_id: target.email });
    expect(filtered.body.data.summary.total).toBe(2);
    expect(filtered.body.data.summary.generated_at >= first.body.data.summary.generated_at).toBe(true);
  });
});
