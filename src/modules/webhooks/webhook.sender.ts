import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveTarget, TargetRefused } from './webhook.targets';
import { signatureHeader } from './webhook.signature';

/**
 * One HTTP attempt of a delivery, as the Standard Webhooks specification words it
 * (https://www.standardwebhooks.com/): POST of the exact stored body, `webhook-id`,
 * `webhook-timestamp` (this attempt's, unix seconds) and `webhook-signature`. Any 2xx is a
 * success; anything else fails the attempt: another status (a 3xx too: redirects are never
 * followed, a redirect could lead into the service's own network), a refused connection, a
 * time-out (the whole exchange, the name's lookup included, `timeoutMs`), a refused target.
 *
 * The address is resolved and checked here, at every attempt, and the connection goes to
 * that very address (the `lookup` option hands it to the socket): a name re-pointed to an
 * internal address after the webhook was saved is refused, and a second lookup between the
 * check and the connection cannot change the answer.
 */

export const USER_AGENT = 'DirectoryService-Webhooks/1.0 (+https://www.standardwebhooks.com/)';

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

export interface Outcome {
  ok: boolean;
  responseCode: number | null;
  durationMs: number;
  /** short, never a secret or a response body */
  error: string | null;
}

const CODES: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate self-signed',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate does not match the host',
};

function errorText(err: unknown): string {
  const code = String((err as { code?: unknown }).code ?? '');
  if (err instanceof TargetRefused) return err.message;
  return code ? `${CODES[code] ?? 'Request failed'} (${code})` : 'Request failed';
}

export async function sendOnce(url: string, delivery: { event_id: string; payload: string }, secrets: readonly string[], options: SendOptions): Promise<Outcome> {
  const started = Date.now();
  const done = (o: Omit<Outcome, 'durationMs'>): Outcome => ({ ...o, durationMs: Date.now() - started });
  const target = new URL(url);
  let pinned: { address: string; family: 4 | 6 };
  try {
    pinned = await resolveTarget(target, options.allowPrivate, options.timeoutMs);
  } catch (err) {
    return done({ ok: false, responseCode: null, error: errorText(err) });
  }
  // what is left of the time-out once the name is resolved
  const left = Math.max(1, options.timeoutMs - (Date.now() - started));
  const timestamp = Math.floor(Date.now() / 1000);
  const body = Buffer.from(delivery.payload, 'utf8');
  const lookup: LookupFunction = (_host, opts, callback) => {
    if (opts.all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise<Outcome>((resolve) => {
    let settled = false;
    const finish = (o: Omit<Outcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(done(o));
    };
    const req = client.request(
      target,
      {
        method: 'POST',
        lookup,
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          'user-agent': USER_AGENT,
          'webhook-id': delivery.event_id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signatureHeader(secrets, delivery.event_id, timestamp, delivery.payload),
        },
      },
      (res) => {
        const code = res.statusCode ?? 0;
        // the body is not kept: read and dropped, so the connection ends cleanly
        res.resume();
        res.on('end', () => {
          const ok = code >= 200 && code < 300;
          const error = ok ? null : code >= 300 && code < 400 ? `Redirect not followed (HTTP ${code})` : `HTTP ${code}`;
          finish({ ok, responseCode: code, error });
        });
        res.on('error', (err) => finish({ ok: false, responseCode: code, error: errorText(err) }));
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, responseCode: null, error: `Timed out after ${options.timeoutMs} ms` });
      req.destroy();
    }, left);
    req.on('error', (err) => finish({ ok: false, responseCode: null, error: errorText(err) }));
    req.end(body);
  });
}
