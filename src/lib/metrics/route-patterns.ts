import type { Express } from 'express';

interface Layer {
  route?: { path: unknown };
  handle?: { stack?: Layer[] };
  rawPath?: unknown;
}

/**
 * The whole pattern of every route of an app (`/api/contacts/:id`), by its Route object, read
 * once from Express's router after the routes are mounted.
 *
 * Why not `req.baseUrl + req.route.path` when the response is done: a router puts `baseUrl`
 * back when a request leaves it, and an error does leave it (a 404 `Contact not found` thrown
 * in `/:id` is answered by the app's error middleware), so the pattern would read `/:id` for
 * every error answer. `req.route` stays the route that matched, so it is the key here.
 */
export function routePatterns(app: Express): WeakMap<object, string> {
  const patterns = new WeakMap<object, string>();
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      // mount paths are strings in this app; a pattern or a list would be kept as it prints
      const mount = layer.rawPath === undefined || layer.rawPath === '/' ? '' : String(layer.rawPath);
      if (layer.route) {
        const own = String(layer.route.path);
        // a router's '/' is its mount path itself, as the OpenAPI document writes it
        const pattern = prefix && own === '/' ? prefix : `${prefix}${own}`;
        if (!patterns.has(layer.route)) patterns.set(layer.route, pattern);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
  return patterns;
}
