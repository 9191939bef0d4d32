import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { UnauthorizedError } from '../errors';
import type { Metrics } from './metrics';

/** METRICS_ENABLED and METRICS_TOKEN (null: no token asked). */
export interface MetricsSettings {
  enabled: boolean;
  token: string | null;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics: the registry in Prometheus's text format. With a token, the scraper must send
 * `Authorization: Bearer <token>`; the two are compared as SHA-256 digests in constant time, so
 * neither the time of a wrong guess nor its length tells how much of it was right.
 */
export function metricsEndpoint(metrics: Metrics, token: string | null) {
  const expected = token === null ? null : digest(token);
  return async (req: Request, res: Response): Promise<void> => {
    if (expected) {
      const header = req.headers.authorization;
      if (!header) throw new UnauthorizedError('Metrics token is required');
      const match = /^Bearer (.+)$/i.exec(header);
      if (!match || !timingSafeEqual(digest(match[1]), expected)) throw new UnauthorizedError('Invalid metrics token');
    }
    const body = await metrics.registry.metrics();
    res.set('Content-Type', metrics.registry.contentType);
    // figures of this moment: no cache in between may answer a later scrape
    res.set('Cache-Control', 'no-store');
    res.send(body);
  };
}
