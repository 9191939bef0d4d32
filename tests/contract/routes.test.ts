import type { Express } from 'express';
import request from 'supertest';
import { openApiDocument } from '../../src/openapi/document';
import { setupTestContext } from '../helpers/context';

// metrics on: GET /metrics is routed only then, and the document lists it
const ctx = setupTestContext({ METRICS_ENABLED: 'true' });

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  rawPath?: string;
}

/** Every METHOD /path the app routes, read from Express's router (paths in OpenAPI's {param} form). */
function routesOf(app: Express): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      const path = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      if (layer.route) {
        for (const method of Object.keys(layer.route.methods)) {
          const full = `${prefix}${layer.route.path === '/' && prefix ? '' : layer.route.path}`.replace(/:(\w+)/g, '{$1}');
          out.push(`${method.toUpperCase()} ${full}`);
        }
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + path);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return [...new Set(out)].sort();
}

function documented(): string[] {
  const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
  return Object.entries(paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .sort();
}

describe('the OpenAPI document and the app', () => {
  test('every route of the app is in the document, and every operation of the document is routed', async () => {
    const { createApp } = await import('../../src/app');
    const { createLogger } = await import('../../src/lib/logger');
    const app = createApp({ db: ctx.db, config: ctx.config, logger: createLogger({ level: 'silent' }) });
    // SCIM's routes are described by its own discovery documents (GET /scim/v2/Schemas, ...)
    const routes = routesOf(app).filter((r) => !r.split(' ')[1].startsWith('/scim/'));
    expect(routes.length).toBeGreaterThan(50);
    expect(routes.filter((r) => !documented().includes(r))).toEqual([]);
    expect(documented().filter((d) => !routes.includes(d))).toEqual([]);
  });

  test('GET /api/openapi.json serves the document, and /api/docs a page', async () => {
    const json = await request(ctx.app).get('/api/openapi.json');
    expect(json.status).toBe(200);
    expect(json.body.openapi).toBe('3.1.0');
    expect(Object.keys(json.body.paths)).toContain('/api/contacts/{id}/move');
    const page = await request(ctx.app).get('/api/docs/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
  });
});
