import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, formData, type DirectoryClient, type Schemas } from '../../clients/typescript/src';
import { setupTestContext } from '../helpers/context';
import { createUnit, createUser, PASSWORD, unique, type TestUser } from '../helpers/factory';

/**
 * The generated client (clients/typescript) against the service on a real port, as a frontend
 * uses it: fetch, the generated types, a bearer token from the sign-in. The service is the app
 * the other tests build, so every answer here is also checked against the OpenAPI document.
 */

const ctx = setupTestContext();
let server: http.Server;
let baseUrl: string;
let admin: TestUser;
let unit: { id: number; name: string; code: string };
let designation: string;

beforeAll(async () => {
  server = http.createServer(ctx.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const made = await createUnit(ctx);
  unit = { ...made, code: String((await ctx.db('units').where({ id: made.id }).first('code')).code) };
  designation = String((await ctx.db('designations').orderBy('id').first('name')).name);
  admin = await createUser(ctx, { role: 'Admin', unit_id: unit.id });
});

afterAll(async () => {
  // fetch keeps its connections alive: end them, or close() would wait for them
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

/** A client signed in as the test's admin, through POST /api/auth/login. */
async function signedIn(): Promise<DirectoryClient> {
  const { data, error } = await createClient({ baseUrl }).POST('/api/auth/login', { body: { email: admin.email, password: PASSWORD } });
  if (error) throw new Error(`sign-in failed: ${error.message}`);
  const token: string = data.data.token;
  return createClient({ baseUrl, token: () => token });
}

/** The ids and names of a listing, whichever its format. */
const namesOf = (contacts: Schemas['ContactList']) => (contacts as Array<{ id: number; name: string }>).map((c) => c.name);

describe('the TypeScript client (clients/typescript) against a running service', () => {
  test('signs in, and reads the profile with the token it got', async () => {
    const anonymous = createClient({ baseUrl });
    const refused = await anonymous.GET('/api/auth/profile');
    expect(refused.response.status).toBe(401);
    expect(refused.error?.status).toBe('error');

    const client = await signedIn();
    const { data, error } = await client.GET('/api/auth/profile');
    expect(error).toBeUndefined();
    expect(data?.data.user).toMatchObject({ id: admin.id, email: admin.email, role: 'Admin' });
  });

  test('lists contacts with typed query parameters, and moves one under another', async () => {
    const client = await signedIn();
    const head = await createUser(ctx, { unit_id: unit.id, name: `Head ${unique()}` });
    const member = await createUser(ctx, { unit_id: unit.id, name: `Member ${unique()}` });

    const listed = await client.GET('/api/contacts', { params: { query: { unit_id: unit.id, format: 'flat', limit: 1000 } } });
    expect(listed.error).toBeUndefined();
    expect(listed.data?.data.pagination.format).toBe('flat');
    expect(namesOf(listed.data!.data.contacts)).toEqual(expect.arrayContaining([head.name, member.name]));

    const moved = await client.PUT('/api/contacts/{id}/move', { params: { path: { id: member.id } }, body: { parent_id: head.id } });
    expect(moved.error).toBeUndefined();
    expect(moved.data?.message).toBe('Contact moved successfully');
    expect(moved.data?.data.contact).toMatchObject({ id: member.id, parent_id: head.id, parent_name: head.name });
    const top = moved.data!.data.tree.find((node) => node.id === head.id);
    expect(top?.children.map((child) => child.id)).toContain(member.id);
    expect((await ctx.db('users').where({ id: member.id }).first('parent_id')).parent_id).toBe(head.id);
  });

  test('answers a refused call with the error envelope, typed, and no data', async () => {
    const client = await signedIn();
    const head = await createUser(ctx, { unit_id: unit.id });
    const { data, error, response } = await client.PUT('/api/contacts/{id}/move', { params: { path: { id: head.id } }, body: { parent_id: head.id } });
    expect(data).toBeUndefined();
    expect(response.status).toBe(400);
    expect(error).toMatchObject({ status: 'error', message: expect.any(String) });
    expect(error?.errors?.[0]).toMatchObject({ field: 'parent_id' });

    const missing = await client.GET('/api/contacts/{id}', { params: { path: { id: 2_000_000_000 } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error?.message).toBe('Contact not found');
  });

  test("sends a write's If-Match as a typed header parameter: the read's ETag holds, a stale one answers 412", async () => {
    const client = await signedIn();
    const contact = await createUser(ctx, { unit_id: unit.id });
    const read = await client.GET('/api/contacts/{id}', { params: { path: { id: contact.id } } });
    const etag = read.response.headers.get('ETag');
    expect(etag).toBeTruthy();

    const update = (mobile: string) =>
      client.PUT('/api/contacts/{id}', { params: { path: { id: contact.id }, header: { 'If-Match': etag! } }, body: { mobile } });
    const saved = await update('01711000099');
    expect(saved.error).toBeUndefined();
    expect(saved.data?.data.contact.mobile).toBe('01711000099');
    const stale = await update('01711000098');
    expect(stale.response.status).toBe(412);
    expect(stale.error?.message).toBe('Contact was changed by someone else');
  });

  test('imports a CSV file as a multipart upload, and exports it back as text', async () => {
    const client = await signedIn();
    const parent = await createUser(ctx, { unit_id: unit.id });
    const [a, b] = [unique('CL').slice(0, 40), unique('CL').slice(0, 40)];
    const row = (tag: string, parentServiceNo: string) => [`Client ${tag}`, tag, `${tag.toLowerCase()}@client.test`, '01700000000', unit.code, designation, parentServiceNo].join(',');
    const csv = ['name,service_no,email,phone,unit,designation,parent_service_no', row(a, parent.service_no), row(b, a)].join('\r\n');

    const checked = await client.POST('/api/contacts/import', {
      params: { query: { dry_run: 'true' } },
      body: { file: new Blob([csv], { type: 'text/csv' }) },
      bodySerializer: formData,
    });
    expect(checked.error).toBeUndefined();
    expect(checked.data?.message).toBe('Import checked: nothing was written');
    expect(checked.data?.data).toMatchObject({ dry_run: true, created: 2, failed: 0 });

    const imported = await client.POST('/api/contacts/import', {
      body: { file: new Blob([csv], { type: 'text/csv' }) },
      bodySerializer: formData,
    });
    expect(imported.error).toBeUndefined();
    expect(imported.data?.message).toBe('Import completed');
    expect(imported.data?.data).toMatchObject({ mode: 'create', dry_run: false, created: 2, updated: 0, failed: 0, errors: [] });
    const rows = await ctx.db('users').whereIn('service_no', [a, b]).select('id', 'service_no', 'parent_id');
    const byServiceNo = new Map(rows.map((r: { id: number; service_no: string; parent_id: number }) => [r.service_no, r]));
    expect(byServiceNo.get(a)?.parent_id).toBe(parent.id);
    expect(byServiceNo.get(b)?.parent_id).toBe(byServiceNo.get(a)?.id);

    const exported = await client.GET('/api/contacts/export', { params: { query: { format: 'csv', root_id: parent.id } }, parseAs: 'text' });
    expect(exported.response.headers.get('content-type')).toMatch(/text\/csv/);
    expect(exported.data).toContain(a);
    expect(exported.data).toContain(b);
  });

  test("the document's own import example, sent as a text/csv body, passes the service's checks (a dry run)", async () => {
    const client = await signedIn();
    const document = await client.GET('/api/openapi.json');
    const content = (document.data as { paths: Record<string, { post?: { requestBody: { content: Record<string, { example: string }> } } }> }).paths[
      '/api/contacts/import'
    ].post!.requestBody.content;
    const csv = content['text/csv'].example;

    const { data, error } = await client.POST('/api/contacts/import', {
      params: { query: { dry_run: 'true' } },
      body: csv,
      bodySerializer: (text) => text,
      headers: { 'Content-Type': 'text/csv' },
    });
    expect(error).toBeUndefined();
    expect(data?.data).toMatchObject({ dry_run: true, created: 2, failed: 0, errors: [] });
  });
});

/**
 * What the compiler refuses: never run, only type-checked (`npm run typecheck`). Each line
 * would compile if the client were untyped, so `@ts-expect-error` fails the check then.
 */
export async function refusedByTheTypes(client: DirectoryClient): Promise<void> {
  // @ts-expect-error an unknown path
  await client.GET('/api/no-such-path');
  // @ts-expect-error parent_id is a number or null
  await client.PUT('/api/contacts/{id}/move', { params: { path: { id: 1 } }, body: { parent_id: 'seven' } });
  // @ts-expect-error the path parameter is required
  await client.PUT('/api/contacts/{id}/move', { body: { parent_id: null } });
  // @ts-expect-error `format` is one of tree, flat, hierarchical
  await client.GET('/api/contacts', { params: { query: { format: 'nested' } } });
  const { data } = await client.GET('/api/contacts/{id}', { params: { path: { id: 1 } } });
  // @ts-expect-error a contact has no such field
  void data?.data.contact.salary;
}
