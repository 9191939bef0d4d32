import { createHmac, randomBytes } from 'node:crypto';

/**
 * Signing as the Standard Webhooks specification says (https://www.standardwebhooks.com/,
 * "Signature scheme"): a secret `whsec_<base64>`, whose decoded bytes are the HMAC-SHA256 key;
 * the signed content is `<webhook-id>.<webhook-timestamp>.<body>`; the header is `v1,<base64
 * signature>`, several of them separated by spaces (during a rotation, one per valid secret).
 */

const PREFIX = 'whsec_';

/** A new secret: 32 random bytes (the specification asks for 24 to 64). */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** The `webhook-signature` header of a body for each secret. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', keyOf(s)).update(content, 'utf8').digest('base64')}`).join(' ');
}
