import { createServer } from 'node:net';
import request from 'supertest';
import { webhookDispatcher } from '../../src/app';
import { createDb, type Db } from '../../src/lib/db';
import { ChangeFeed } from '../../src/modules/contacts';
import { WebhookDispatcher, type WebhookSettings } from '../../src/modules/webhooks';
import { claimDue } from '../../src/modules/webhooks/deliveries.queries';
import { quietLogger, setupOwnTestContext } from '../helpers/context';
import { bearer, createOrganization, createUser, type TestUser } from '../helpers/factory';
import { Receiver, until, verifies, type Received } from './receiver';

/**
 * Deliveries (docs/changes.md, Webhooks) to a real HTTP receiver on 127.0.0.1 (so
 * WEBHOOKS_ALLOW_PRIVATE is on, as for a closed network), with a short retry schedule: each
 * change reaches each subscribed hook signed as the Standard Webhooks specification says; a
 * failed attempt (500, a time-out, a refused connection) is retried with the same webhook-id
 * and the same body; nothing is lost across a restart or a crash; two instances deliver each
 * event once; the delivery-time address check refuses what the create-time check let through
 * then. A database of its own: the fan-out's cursor and the deliveries are this file's.
 */

const ctx = setupOwnTestContext('hooks', {
  RATE_LIMIT_MAX: '1000000',
  WEBHOOKS_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
  WEBHOOK_POLL_MS: '40',
  WEBHOOK_TIMEOUT_MS: '400',
});
const api = () => request(ctx.app);

let admin: TestUser;
let superAdmin: TestUser;
let receiver: Receiver;
const dispatchers: WebhookDispatcher[] = [];
const handles: Db[] = [];

beforeAll(async () => {
  admin = await createUser(ctx, { role: 'Admin' });
  superAdmin = await createUser(ctx, { role: 'Super_admin' });
});
beforeEach(async () => {
  receiver = await new Receiver().start();
});
afterEach(async () => {
  await Promise.all(dispatchers.splice(0).map((d) => d.stop()));
  await receiver.stop();
  await ctx.db('webhooks').delete();
});
afterAll(async () => {
  await Promise.all(handles.splice(0).map((h) => h.destroy()));
});

/** A dispatcher started on `db` (the app's by default), with the file's settings unless told otherwise. */
function dispatch(db: Db = ctx.db, settings?: Partial<WebhookSettings>): WebhookDispatcher {
  const d = settings
    ? new WebhookDispatcher({ db, feed: new ChangeFeed({ db }), settings: { ...ctx.config.webhooks, ...settings } }).start()
    : webhookDispatcher({ db, config: ctx.config, logger: quietLogger });
  dispatchers.push(d);
  return d;
}

/** A second handle on the database, as another instance of the service would have. */
function secondHandle(): Db {
  const db = createDb(ctx.config.db, quietLogger);
  handles.push(db);
  return db;
}

async function hookFor(caller: TestUser, body: Record<string, unknown> = {}): Promise<{ id: number; secret: string }> {
  const res = await api().post('/api/webhooks').set(bearer(caller)).send({ url: receiver.url, events: ['contact.*'], ...body });
  expect(res.status).toBe(201);
  return { id: res.body.data.webhook.id, secret: res.body.data.secret };
}

const idsOf = (rs: Received[]) => rs.map((r) => r.id);
const distinct = (rs: Received[]) => new Set(idsOf(rs)).size;
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

it('delivers a change signed, with the Standard Webhooks headers and the change as the feed shows it', async () => {
  const hook = await hookFor(admin);
  dispatch();
  const contact = await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => receiver.of(hook.id).length === 1);
  const [r] = receiver.of(hook.id);
  expect(verifies(hook.secret, r)).toBe(true);
  expect(r.headers['content-type']).toBe('application/json');
  expect(r.headers['user-agent']).toMatch(/^DirectoryService-Webhooks\//);
  expect(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
  const body = JSON.parse(r.body);
  expect(body).toMatchObject({ type: 'contact.created', data: { type: 'created', contact_id: contact.id, contact: { id: contact.id, name: contact.name } } });
  expect(body.timestamp).toBe(body.data.at);
  expect(r.id).toBe(`msg_${body.data.cursor}_${hook.id}`);
  // the change exactly as the feed shows it
  const before = Buffer.from(`${Number(Buffer.from(body.data.cursor, 'base64url').toString().split('.')[0]) - 1}.4294967295`).toString('base64url');
  const feed = await api().get(`/api/contacts/changes?cursor=${before}`).set(bearer(superAdmin));
  expect(feed.body.data.changes.find((c: { contact_id: number }) => c.contact_id === contact.id)).toEqual(body.data);
  await until(async () => (await api().get(`/api/webhooks/${hook.id}/deliveries`).set(bearer(admin))).body.data.deliveries[0]?.status === 'delivered');
  const page = (await api().get(`/api/webhooks/${hook.id}/deliveries`).set(bearer(admin))).body.data;
  expect(page.deliveries).toHaveLength(1);
  expect(page.deliveries[0]).toMatchObject({ event_id: r.id, type: 'contact.created', status: 'delivered', attempts: 1, next_attempt_at: null });
  expect(page.deliveries[0].attempt_log).toEqual([expect.objectContaining({ status: 'delivered', response_code: 200, error: null })]);
});

it('is nudged by a commit of its own process: delivered at once with a poll interval of a minute', async () => {
  const hook = await hookFor(admin);
  const slow = webhookDispatcher({ db: ctx.db, config: { ...ctx.config, webhooks: { ...ctx.config.webhooks, pollMs: 60_000 } }, logger: quietLogger });
  dispatchers.push(slow);
  // the first round (at start) is over before the change
  await settle();
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => receiver.of(hook.id).length === 1, 3000);
});

it('retries a 500 and a time-out with the same webhook-id and body, then succeeds', async () => {
  const hook = await hookFor(admin);
  receiver.script.push(500, 'hang');
  dispatch();
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => receiver.of(hook.id).length === 3);
  const attempts = receiver.of(hook.id);
  expect(new Set(attempts.map((a) => a.id)).size).toBe(1);
  expect(new Set(attempts.map((a) => a.body)).size).toBe(1);
  for (const a of attempts) expect(verifies(hook.secret, a)).toBe(true);
  await until(async () => (await ctx.db('webhook_deliveries').where({ webhook_id: hook.id }).first('status')).status === 'delivered');
  const [delivery] = (await api().get(`/api/webhooks/${hook.id}/deliveries?status=delivered`).set(bearer(admin))).body.data.deliveries;
  expect(delivery.attempt_log.map((a: { status: string; response_code: number | null; error: string | null }) => [a.status, a.response_code, a.error])).toEqual([
    ['failed', 500, 'HTTP 500'],
    ['failed', null, 'Timed out after 400 ms'],
    ['delivered', 200, null],
  ]);
});

it('marks a delivery failed once the schedule is used up (a refused connection each time), and shows each attempt', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as { port: number }).port;
  await new Promise((resolve) => closed.close(resolve));
  const hook = await hookFor(admin, { url: `http://127.0.0.1:${port}/gone` });
  dispatch();
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(async () => (await ctx.db('webhook_deliveries').where({ webhook_id: hook.id }).first('status'))?.status === 'failed');
  const [delivery] = (await api().get(`/api/webhooks/${hook.id}/deliveries`).set(bearer(admin))).body.data.deliveries;
  expect(delivery).toMatchObject({ status: 'failed', attempts: 4, next_attempt_at: null });
  expect(delivery.attempt_log.map((a: { error: string }) => a.error)).toEqual(Array(4).fill('Connection refused (ECONNREFUSED)'));
  const shown = (await api().get(`/api/webhooks/${hook.id}`).set(bearer(admin))).body.data.webhook;
  expect(shown.failing_since).not.toBeNull();
});

it('loses nothing across a restart: pending deliveries and changes made while stopped are delivered by the next dispatcher', async () => {
  const hook = await hookFor(admin);
  receiver.fallback = 500;
  const first = dispatch();
  for (let i = 0; i < 3; i++) await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => distinct(receiver.of(hook.id)) === 3);
  await first.stop();
  // made while no dispatcher runs: in the feed, not yet fanned out
  for (let i = 0; i < 2; i++) await createUser(ctx, { organization_id: admin.organization_id });
  const failedOnce = new Map(receiver.of(hook.id).map((r) => [r.id, r.body]));
  receiver.fallback = 200;
  receiver.received.length = 0;
  dispatch(secondHandle());
  await until(async () => Number((await ctx.db('webhook_deliveries').where({ webhook_id: hook.id, status: 'delivered' }).count({ n: '*' }))[0].n) === 5);
  const delivered = receiver.of(hook.id).filter((r, i, all) => all.findIndex((o) => o.id === r.id) === i);
  expect(delivered).toHaveLength(5);
  for (const [id, body] of failedOnce) expect(delivered.find((r) => r.id === id)?.body).toBe(body);
});

it('is at-least-once after a crash: a claim that lapses is sent by another dispatcher', async () => {
  const hook = await hookFor(admin);
  const idle = new WebhookDispatcher({ db: ctx.db, feed: new ChangeFeed({ db: ctx.db }), settings: ctx.config.webhooks });
  await createUser(ctx, { organization_id: admin.organization_id });
  await idle.fanOut();
  // an instance claims the delivery and dies before sending it
  const now = new Date();
  expect(await claimDue(ctx.db, now, new Date(now.getTime() + 800), 10)).toHaveLength(1);
  dispatch();
  await settle();
  expect(receiver.of(hook.id)).toHaveLength(0);
  await until(() => receiver.of(hook.id).length === 1, 5000);
});

it('delivers each event exactly once with two instances sharing the database, each with a dispatcher', async () => {
  const hook = await hookFor(admin);
  dispatch();
  dispatch(secondHandle());
  for (let i = 0; i < 20; i++) await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => distinct(receiver.of(hook.id)) === 20);
  await settle();
  expect(receiver.of(hook.id)).toHaveLength(20);
  for (const r of receiver.of(hook.id)) expect(verifies(hook.secret, r)).toBe(true);
});

it('refuses a private target at delivery time when the check is on, and records why', async () => {
  const hook = await hookFor(admin);
  dispatch(ctx.db, { allowPrivate: false });
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(async () => Number((await ctx.db('webhook_attempts').count({ n: '*' }).whereIn('delivery_id', ctx.db('webhook_deliveries').where({ webhook_id: hook.id }).select('id')))[0].n) > 0);
  expect(receiver.received).toHaveLength(0);
  const [delivery] = (await api().get(`/api/webhooks/${hook.id}/deliveries`).set(bearer(admin))).body.data.deliveries;
  expect(delivery.attempt_log[0]).toMatchObject({ status: 'failed', response_code: null, error: 'Target address not allowed (loopback)' });
});

it('signs with both secrets for 24 hours after a rotation', async () => {
  const hook = await hookFor(admin);
  const rotated = (await api().post(`/api/webhooks/${hook.id}/rotate-secret`).set(bearer(admin))).body.data.secret as string;
  dispatch();
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => receiver.of(hook.id).length === 1);
  const [r] = receiver.of(hook.id);
  expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
  expect(verifies(rotated, r)).toBe(true);
  expect(verifies(hook.secret, r)).toBe(true);
  // once the old secret has expired, one signature
  await ctx.db('webhooks').where({ id: hook.id }).update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(() => receiver.of(hook.id).length === 2);
  expect(String(receiver.of(hook.id)[1].headers['webhook-signature']).split(' ')).toHaveLength(1);
});

it('prunes finished and parked deliveries older than CHANGES_RETENTION_DAYS, with their attempts, and keeps pending ones due', async () => {
  const hook = await hookFor(admin);
  const old = new Date(Date.now() - 31 * 86400_000);
  const row = (status: string, event: string) => ({ webhook_id: hook.id, event_id: event, type: 'contact.created', payload: '{}', status, attempts: 1, next_attempt_at: status === 'pending' ? old : null, created_at: old });
  // msg_d: parked (an inactive hook's), as old as the feed keeps; a recent parked one stays
  const parked = (event: string, at: Date) => ({ ...row('pending', event), next_attempt_at: null, created_at: at });
  await ctx.db('webhook_deliveries').insert([row('delivered', 'msg_a'), row('failed', 'msg_b'), row('pending', 'msg_c'), parked('msg_d', old), parked('msg_e', new Date())]);
  const delivered = await ctx.db('webhook_deliveries').where({ webhook_id: hook.id, event_id: 'msg_a' }).first('id');
  await ctx.db('webhook_attempts').insert({ delivery_id: delivered.id, attempted_at: old, status: 'delivered', response_code: 200, duration_ms: 3, error: null });
  const idle = new WebhookDispatcher({ db: ctx.db, feed: new ChangeFeed({ db: ctx.db }), settings: ctx.config.webhooks });
  expect(await idle.prune()).toBe(3);
  expect(await ctx.db('webhook_deliveries').where({ webhook_id: hook.id }).orderBy('event_id').pluck('event_id')).toEqual(['msg_c', 'msg_e']);
  expect(await ctx.db('webhook_attempts').where({ delivery_id: delivered.id })).toEqual([]);
});

it('gives each hook its organization\'s changes and the events it subscribed to', async () => {
  const orgB = await createOrganization(ctx);
  const own = await hookFor(admin);
  const every = await hookFor(superAdmin, { organization_id: null });
  const onlyB = await hookFor(superAdmin, { organization_id: orgB, events: ['contact.deleted'] });
  dispatch();
  const inA = await createUser(ctx, { organization_id: admin.organization_id });
  const inB = await createUser(ctx, { organization_id: orgB });
  expect((await api().delete(`/api/contacts/${inB.id}`).set(bearer(superAdmin))).status).toBe(200);
  await until(() => receiver.of(every.id).length === 3 && receiver.of(onlyB.id).length === 1);
  await settle();
  const contacts = (rs: Received[]) => rs.map((r) => [JSON.parse(r.body).type, JSON.parse(r.body).data.contact_id]);
  expect(contacts(receiver.of(own.id))).toEqual([['contact.created', inA.id]]);
  expect(contacts(receiver.of(every.id))).toEqual([['contact.created', inA.id], ['contact.created', inB.id], ['contact.deleted', inB.id]]);
  expect(contacts(receiver.of(onlyB.id))).toEqual([['contact.deleted', inB.id]]);
  expect(JSON.parse(receiver.of(onlyB.id)[0].body).data.contact).toBeNull();
});

it('sends a test event at once and answers how it went', async () => {
  const hook = await hookFor(admin);
  const ok = await api().post(`/api/webhooks/${hook.id}/test`).set(bearer(admin));
  expect(ok.status).toBe(200);
  expect(ok.body.data.result).toMatchObject({ delivered: true, response_code: 200, error: null });
  const [r] = receiver.of(hook.id);
  expect(JSON.parse(r.body)).toMatchObject({ type: 'webhook.test', data: { webhook_id: hook.id } });
  expect(verifies(hook.secret, r)).toBe(true);
  receiver.script.push(503);
  const failed = await api().post(`/api/webhooks/${hook.id}/test`).set(bearer(admin));
  expect(failed.body.data.result).toMatchObject({ delivered: false, response_code: 503, error: 'HTTP 503' });
});

it('disables a hook that keeps failing for WEBHOOK_DISABLE_AFTER_DAYS, shows why, and resumes when made active again', async () => {
  const hook = await hookFor(admin);
  await ctx.db('webhooks').where({ id: hook.id }).update({ failing_since: new Date(Date.now() - 6 * 86400_000) });
  receiver.fallback = 500;
  dispatch();
  await createUser(ctx, { organization_id: admin.organization_id });
  await until(async () => !(await api().get(`/api/webhooks/${hook.id}`).set(bearer(admin))).body.data.webhook.active);
  const shown = (await api().get(`/api/webhooks/${hook.id}`).set(bearer(admin))).body.data.webhook;
  expect(shown.disabled_reason).toBe('Deliveries failed for 5 days without a success; last error: HTTP 500');
  expect(shown.disabled_at).not.toBeNull();
  await settle();
  const tries = receiver.of(hook.id).length;
  await settle();
  expect(receiver.of(hook.id)).toHaveLength(tries);
  receiver.fallback = 200;
  const resumed = await api().patch(`/api/webhooks/${hook.id}`).set(bearer(admin)).send({ active: true });
  expect(resumed.body.data.webhook).toMatchObject({ active: true, disabled_reason: null, disabled_at: null, failing_since: null });
  await until(async () => (await ctx.db('webhook_deliveries').where({ webhook_id: hook.id }).first('status')).status === 'delivered');
});
