import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's headers, except that Strict-Transport-Security and CSP's `upgrade-insecure-requests`
 * are sent only on a request that came over TLS (`req.secure`).
 *
 * The service itself listens on plain HTTP. Sent over it, `upgrade-insecure-requests` makes a
 * browser fetch the page's own scripts over https, where nothing answers: /api/docs opened as
 * http://some-host:3000 stayed blank (only localhost is spared, browsers treat it as secure).
 * HSTS received over plain HTTP is ignored by browsers anyway (RFC 6797 8.1), so it is dropped
 * there as well rather than suggesting a promise nobody keeps.
 *
 * Behind a proxy that terminates TLS, `req.secure` is true when Express trusts that proxy
 * (TRUST_PROXY) and it says `X-Forwarded-Proto: https`; an untrusted client cannot claim TLS.
 */
export function securityHeaders(): RequestHandler {
  const overTls = helmet();
  const plainHttp = helmet({
    strictTransportSecurity: false,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  });
  return (req, res, next) => (req.secure ? overTls : plainHttp)(req, res, next);
}
