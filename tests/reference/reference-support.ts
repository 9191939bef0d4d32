import request from 'supertest';
import type { TestContext } from '../helpers/context';
import { bearer, createUser, type RoleName, type TestUser } from '../helpers/factory';

/** ISO 8601 UTC with milliseconds (DECISIONS 1). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type Callers = Record<RoleName, TestUser>;

/** One signed-in user of each built-in role, in organization 1. */
export async function makeCallers(ctx: TestContext): Promise<Callers> {
  const [Super_admin, Admin, User] = await Promise.all(
    (['Super_admin', 'Admin', 'User'] as const).map((role) => createUser(ctx, { role })),
  );
  return { Super_admin, Admin, User };
}

/** Small verbs over the app, with a caller's token. */
export function api(ctx: TestContext) {
  return {
    get: (path: string, as: TestUser) => request(ctx.app).get(path).set(bearer(as)),
    post: (path: string, as: TestUser, body: unknown) => request(ctx.app).post(path).set(bearer(as)).send(body as object),
    put: (path: string, as: TestUser, body: unknown) => request(ctx.app).put(path).set(bearer(as)).send(body as object),
    del: (path: string, as: TestUser) => request(ctx.app).delete(path).set(bearer(as)),
  };
}

export function expectError(res: request.Response, status: number, message: string): void {
  expect({ status: res.status, body: res.body }).toEqual({ status, body: expect.objectContaining({ status: 'error', message }) });
}

/** The fields of a 400 `Validation failed` body. */
export function failingFields(res: request.Response): string[] {
  expect({ status: res.status, message: res.body.message }).toEqual({ status: 400, message: 'Validation failed' });
  return (res.body.errors as Array<{ field: string }>).map((e) => e.field).sort();
}
