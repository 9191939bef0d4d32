import { openApiDocument } from '../../src/openapi/document';

/**
 * Every operation has an operationId: the generated client (clients/typescript) and Swagger UI
 * name each call by it, and frontend code refers to it, so renaming one is a breaking change.
 */

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operationIds(): Array<[string, string | undefined]> {
  const paths = openApiDocument().paths as Record<string, Record<string, { operationId?: string }>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]): [string, string | undefined] => [`${method.toUpperCase()} ${path}`, op.operationId]),
  );
}

describe('the operationIds of the OpenAPI document', () => {
  test('every operation has one, in camelCase', () => {
    const all = operationIds();
    expect(all.length).toBeGreaterThan(80);
    expect(all.filter(([, id]) => !id || !/^[a-z][a-zA-Z0-9]*$/.test(id))).toEqual([]);
  });

  test('no two operations share one', () => {
    const ids = operationIds().map(([, id]) => id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  test('the calls frontends make keep their names', () => {
    const byRoute = Object.fromEntries(operationIds());
    expect(byRoute).toMatchObject({
      'POST /api/auth/login': 'login',
      'POST /api/auth/refresh-token': 'refreshToken',
      'GET /api/auth/profile': 'getProfile',
      'GET /api/contacts': 'listContacts',
      'GET /api/contacts/search': 'searchContacts',
      'GET /api/contacts/{id}': 'getContact',
      'PUT /api/contacts/{id}/move': 'moveContact',
      'POST /api/contacts/import': 'importContacts',
      'GET /api/contacts/export': 'exportContacts',
      'GET /api/locations/divisions/country/{country_id}': 'listDivisionsOfCountry',
      'PUT /api/units/{id}': 'updateUnit',
      'GET /api/roles': 'listRoles',
      'GET /api/audit-events': 'listAuditEvents',
      'GET /api/security/failed-logins': 'listFailedLogins',
    });
  });
});
