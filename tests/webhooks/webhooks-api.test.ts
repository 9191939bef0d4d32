import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser, type TestUser } from '../helpers/factory';

/**
 * /api/webhooks (docs/changes.md, Webhooks) without WEBHOOKS_ALLOW_PRIVATE, as in production:
 * who may do what (Admin: the own organization's hooks; Super_admin: all; User: 403), every
 * validation rule and 4xx, the secret shown once and never again (GET, the audit trail), and
 * the refusal of URLs that could make the service call into its own network (SSRF).
 * The public URL used is an IP literal (a documentation-free public address), so no test
 * depends on DNS; `localhost` resolves from /etc/hosts.
 */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const api = () => request(ctx.app);
const PUBLIC = 'https://93.184.215.14/hooks';

let admin: TestUser;
let otherAdmin: TestUser;
let superAdmin: TestUser;
let user: TestUser;
let otherOrg: number;
beforeAll(async () => {
  otherOrg = await createOrganization(ctx);
  admin = await createUser(ctx, { role: 'Admin' });
  otherAdmin = await createUser(ctx, { role: 'Admin', organization_id: otherOrg });
  superAdmin = await createUser(ctx, { role: 'Super_admin' });
  user = await createUser(ctx, { role: 'User' });
});

const create = (caller: TestUser, body: Record<string, unknown>) => api().post('/api/webhooks').set(bearer(caller)).send(body);

describe('who may manage webhooks', () => {
  it('answers 401 without a token and 403 to a User on every route', async () => {
    expect((await api().get('/api/webhooks')).status).toBe(401);
    const routes: Array<[string, string]> = [
      ['get', '/api/webhooks'], ['post', '/api/webhooks'], ['get', '/api/webhooks/1'], ['patch', '/api/webhooks/1'], ['delete', '/api/webhooks/1'],
      ['post', '/api/webhooks/1/test'], ['post', '/api/webhooks/1/rotate-secret'], ['get', '/api/webhooks/1/deliveries'],
    ];
    for (const [method, path] of routes) {
      const res = await (api() as unknown as Record<string, (p: string) => request.Test>)[method](path).set(bearer(user)).send({});
      expect([method, path, res.status, res.body.message]).toEqual([method, path, 403, 'Insufficient permissions']);
    }
  });

  it('creates an Admin\'s hook for the own organization, shows the secret once, and never again', async () => {
    const res = await create(admin, { url: PUBLIC, events: ['contact.created', 'contact.moved'], description: ' HR ' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe('Webhook created successfully');
    const { webhook, secret } = res.body.data;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(webhook).toMatchObject({ organization_id: admin.organization_id, url: PUBLIC, events: ['contact.created', 'contact.moved'], description: 'HR', active: true, disabled_reason: null, created_by: admin.id });
    const got = await api().get(`/api/webhooks/${webhook.id}`).set(bearer(admin));
    expect(got.status).toBe(200);
    expect(JSON.stringify(got.body)).not.toContain(secret.slice(6));
    const list = await api().get('/api/webhooks').set(bearer(admin));
    expect(JSON.stringify(list.body)).not.toContain('whsec_');
    const audit = await ctx.db('audit_events').where({ target_type: 'webhook', target_id: webhook.id }).select('action', 'changes', 'details');
    expect(audit.map((a) => a.action)).toEqual(['webhook.create']);
    expect(JSON.stringify(audit)).not.toContain(secret.slice(6));
  });

  it('shows an Admin only the own organization\'s hooks; another organization\'s is 404 on every route', async () => {
    const theirs = (await create(otherAdmin, { url: PUBLIC, events: ['contact.*'] })).body.data.webhook;
    const mine = (await create(admin, { url: PUBLIC, events: ['contact.*'] })).body.data.webhook;
    const listed = (await api().get('/api/webhooks?limit=200').set(bearer(admin))).body.data.webhooks.map((w: { id: number }) => w.id);
    expect(listed).toContain(mine.id);
    expect(listed).not.toContain(theirs.id);
    for (const res of [
      await api().get(`/api/webhooks/${theirs.id}`).set(bearer(admin)),
      await api().patch(`/api/webhooks/${theirs.id}`).set(bearer(admin)).send({ active: false }),
      await api().delete(`/api/webhooks/${theirs.id}`).set(bearer(admin)),
      await api().post(`/api/webhooks/${theirs.id}/test`).set(bearer(admin)),
      await api().post(`/api/webhooks/${theirs.id}/rotate-secret`).set(bearer(admin)),
      await api().get(`/api/webhooks/${theirs.id}/deliveries`).set(bearer(admin)),
    ]) expect([res.status, res.body.message]).toEqual([404, 'Webhook not found']);
    // the Super_admin sees both
    const all = (await api().get('/api/webhooks?limit=200').set(bearer(superAdmin))).body.data.webhooks.map((w: { id: number }) => w.id);
    expect(all).toEqual(expect.arrayContaining([mine.id, theirs.id]));
  });

  it('lets a Super_admin subscribe one organization or every one, and refuses an Admin another organization', async () => {
    const every = await create(superAdmin, { url: PUBLIC, events: ['contact.*'], organization_id: null });
    expect([every.status, every.body.data.webhook.organization_id]).toEqual([201, null]);
    const one = await create(superAdmin, { url: PUBLIC, events: ['contact.*'], organization_id: otherOrg });
    expect([one.status, one.body.data.webhook.organization_id]).toEqual([201, otherOrg]);
    const missing = await create(superAdmin, { url: PUBLIC, events: ['contact.*'], organization_id: 999999 });
    expect([missing.status, missing.body.errors]).toEqual([400, [{ field: 'organization_id', message: 'Organization not found' }]]);
    const refused = await create(admin, { url: PUBLIC, events: ['contact.*'], organization_id: otherOrg });
    expect([refused.status, refused.body.message]).toEqual([403, "Admins may subscribe to their own organization's changes only"]);
    // an Admin cannot see the Super_admin's hook for every organization
    expect((await api().get(`/api/webhooks/${every.body.data.webhook.id}`).set(bearer(admin))).status).toBe(404);
  });
});

describe('validation', () => {
  const cases: Array<[string, Record<string, unknown>, string, string]> = [
    ['no url', { events: ['contact.*'] }, 'url', 'url is required'],
    ['a url that is no string', { url: 5, events: ['contact.*'] }, 'url', 'url must be a string'],
    ['a relative url', { url: '/hook', events: ['contact.*'] }, 'url', 'url must be an absolute URL'],
    ['http', { url: 'http://93.184.215.14/', events: ['contact.*'] }, 'url', 'url must be an https URL'],
    ['credentials in the url', { url: 'https://u:p@93.184.215.14/', events: ['contact.*'] }, 'url', 'url must not hold a user name or password'],
    ['a url over 2048 characters', { url: `${PUBLIC}/${'a'.repeat(2048)}`, events: ['contact.*'] }, 'url', 'url must be at most 2048 characters'],
    ['no events', { url: PUBLIC }, 'events', 'events is required'],
    ['events not an array', { url: PUBLIC, events: 'contact.*' }, 'events', 'events must be an array of 1 to 6 event types'],
    ['no event', { url: PUBLIC, events: [] }, 'events', 'events must be an array of 1 to 6 event types'],
    ['an unknown event', { url: PUBLIC, events: ['contact.renamed'] }, 'events', 'events must contain only: contact.created, contact.updated, contact.moved, contact.deleted, contact.restored, contact.*'],
    ['a duplicate event', { url: PUBLIC, events: ['contact.*', 'contact.*'] }, 'events', 'events must not contain duplicates'],
    ['a long description', { url: PUBLIC, events: ['contact.*'], description: 'd'.repeat(256) }, 'description', 'description must be at most 255 characters'],
    ['a bad organization_id', { url: PUBLIC, events: ['contact.*'], organization_id: 'x' }, 'organization_id', 'organization_id must be a positive integer or null'],
  ];
  it.each(cases)('refuses %s with 400 on the field', async (_name, body, field, message) => {
    const res = await create(admin, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 'error', message: 'Validation failed' });
    expect(res.body.errors).toContainEqual({ field, message });
  });

  it('refuses a PATCH with nothing to change, a bad id, a bad field, and a deliveries page out of range', async () => {
    const hook = (await create(admin, { url: PUBLIC, events: ['contact.*'] })).body.data.webhook;
    const empty = await api().patch(`/api/webhooks/${hook.id}`).set(bearer(admin)).send({});
    expect([empty.status, empty.body.errors]).toEqual([400, [{ field: 'body', message: 'Give at least one of url, events, description, active' }]]);
    const badId = await api().get('/api/webhooks/abc').set(bearer(admin));
    expect([badId.status, badId.body.errors]).toEqual([400, [{ field: 'id', message: 'id must be a positive integer' }]]);
    const active = await api().patch(`/api/webhooks/${hook.id}`).set(bearer(admin)).send({ active: 'maybe' });
    expect(active.body.errors).toEqual([{ field: 'active', message: 'active must be true or false' }]);
    const status = await api().get(`/api/webhooks/${hook.id}/deliveries?status=lost&limit=500`).set(bearer(admin));
    expect(status.body.errors).toEqual([
      { field: 'limit', message: 'limit must be an integer between 1 and 200' },
      { field: 'status', message: 'status must be one of: pending, delivered, failed' },
    ]);
    expect((await api().get('/api/webhooks/999999').set(bearer(admin))).status).toBe(404);
  });
});

describe('safe targets (SSRF)', () => {
  it.each([
    ['a name that resolves to loopback', 'https://localhost/hook'],
    ['IPv4 loopback', 'https://127.0.0.1/hook'],
    ['IPv6 loopback', 'https://[::1]/hook'],
    ['the cloud metadata address (link-local)', 'https://169.254.169.254/latest/meta-data'],
    ['a private address', 'https://10.0.0.1/hook'],
    ['a private address written as IPv4-mapped IPv6', 'https://[::ffff:10.0.0.1]/hook'],
    ['an IPv6 unique-local address', 'https://[fd00::1]/hook'],
    ['an IPv6 link-local address', 'https://[fe80::1]/hook'],
    ['the unspecified address', 'https://0.0.0.0/hook'],
    ['a multicast address', 'https://224.0.0.1/hook'],
    ['carrier-grade NAT space', 'https://100.64.0.1/hook'],
    ['the benchmarking range', 'https://198.18.0.1/hook'],
    ['IETF protocol assignments (192.0.0.0/24)', 'https://192.0.0.1/hook'],
    ['documentation space (TEST-NET-1, -2, -3, 2001:db8::/32)', 'https://192.0.2.1/hook'],
    ['documentation space (TEST-NET-2)', 'https://198.51.100.1/hook'],
    ['documentation space (TEST-NET-3)', 'https://203.0.113.1/hook'],
    ['IPv6 documentation space', 'https://[2001:db8::1]/hook'],
    ['reserved class E space', 'https://240.0.0.1/hook'],
    ['local-use NAT64 (64:ff9b:1::/48) of a private address', 'https://[64:ff9b:1::a00:1]/hook'],
    ['well-known NAT64 of loopback', 'https://[64:ff9b::7f00:1]/hook'],
    ['a deprecated site-local IPv6 address', 'https://[fec0::1]/hook'],
    ['an IPv4-compatible IPv6 address of loopback', 'https://[::7f00:1]/hook'],
    ['6to4 of a private address', 'https://[2002:a00:1::1]/hook'],
  ])('refuses %s with 400', async (_name, url) => {
    const res = await create(admin, { url, events: ['contact.*'] });
    expect([res.status, res.body.errors]).toEqual([400, [{ field: 'url', message: 'url must not point to a private, loopback, link-local or otherwise internal address' }]]);
  });

  it('refuses http://[::1] for its scheme, and a PATCH to an internal address', async () => {
    const http = await create(admin, { url: 'http://[::1]/hook', events: ['contact.*'] });
    expect([http.status, http.body.errors]).toEqual([400, [{ field: 'url', message: 'url must be an https URL' }]]);
    const hook = (await create(admin, { url: PUBLIC, events: ['contact.*'] })).body.data.webhook;
    const res = await api().patch(`/api/webhooks/${hook.id}`).set(bearer(admin)).send({ url: 'https://192.168.1.1/' });
    expect(res.status).toBe(400);
    expect((await api().get(`/api/webhooks/${hook.id}`).set(bearer(admin))).body.data.webhook.url).toBe(PUBLIC);
  });
});

describe('changes, rotation and deletion', () => {
  it('changes fields, records them in the audit trail, rotates the secret (shown once) and deletes', async () => {
    const hook = (await create(admin, { url: PUBLIC, events: ['contact.*'] })).body.data.webhook;
    const changed = await api().patch(`/api/webhooks/${hook.id}`).set(bearer(admin)).send({ events: ['contact.deleted'], description: 'only deletes', active: false });
    expect(changed.status).toBe(200);
    expect(changed.body.data.webhook).toMatchObject({ events: ['contact.deleted'], description: 'only deletes', active: false });
    const rotated = await api().post(`/api/webhooks/${hook.id}/rotate-secret`).set(bearer(admin));
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const expires = Date.parse(rotated.body.data.webhook.previous_secret_expires_at);
    expect(Math.abs(expires - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
    const deleted = await api().delete(`/api/webhooks/${hook.id}`).set(bearer(admin));
    expect([deleted.status, deleted.body.message]).toEqual([200, 'Webhook deleted successfully']);
    expect((await api().get(`/api/webhooks/${hook.id}`).set(bearer(admin))).status).toBe(404);
    const audit = await ctx.db('audit_events').where({ target_type: 'webhook', target_id: hook.id }).orderBy('id').select('action', 'changes', 'details');
    expect(audit.map((a) => a.action)).toEqual(['webhook.create', 'webhook.update', 'webhook.rotate_secret', 'webhook.delete']);
    expect(JSON.parse(audit[1].changes)).toEqual({ events: [['contact.*'], ['contact.deleted']], description: [null, 'only deletes'], active: [true, false] });
    expect(JSON.stringify(audit)).not.toContain(rotated.body.data.secret.slice(6));
    expect(JSON.stringify(audit)).not.toContain('whsec_');
    for (const a of audit) expect(Object.keys(JSON.parse(a.changes)).filter((k) => /secret/.test(k))).toEqual([]);
  });
});
