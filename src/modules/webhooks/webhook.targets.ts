import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../lib/errors';

/**
 * Safe targets (docs/changes.md, Webhooks): a webhook's URL must be https and reach only public
 * addresses, so that a webhook cannot make the service call into its own network (SSRF): no
 * private, loopback, link-local (169.254.169.254, the cloud metadata address), unique-local,
 * multicast, unspecified or otherwise reserved address, in IPv4 or IPv6, an IPv4 address
 * written as IPv6 (::ffff:10.0.0.1) included. ipaddr.js classifies them: it knows every
 * special-purpose range of both families (the IANA registries), which a list of prefixes
 * written here would have to keep up with. Only what it calls `unicast` passes.
 * WEBHOOKS_ALLOW_PRIVATE=true turns the check off (tests, closed networks) and allows http.
 */

/** The words of a refused target: the same at create, change and delivery. */
export const UNSAFE_TARGET = 'url must not point to a private, loopback, link-local or otherwise internal address';

/** The range ipaddr.js puts an address in (`unicast` for a public one), an IPv4-mapped IPv6 address as its IPv4 address. */
export function rangeOf(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  return ipaddr.process(address).range();
}

export const isPublicAddress = (address: string): boolean => rangeOf(address) === 'unicast';

/** A URL's host as an address or name: brackets of an IPv6 literal taken off. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** What is wrong with a webhook URL's form, or null (no address is looked up). */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'url must be an absolute URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowPrivate ? 'url must be an http or https URL' : 'url must be an https URL';
  if (url.username || url.password) return 'url must not hold a user name or password';
  if (url.hash) return 'url must not hold a fragment';
  return null;
}

export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** Why a target was refused at delivery, short enough for an attempt's error. */
export class TargetRefused extends Error {}

/**
 * The address to connect to for `url`, checked: an IP literal as it is, a name resolved
 * (every address it resolves to must be public, so a name with one private address among
 * public ones is refused too). Throws TargetRefused with the reason.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean): Promise<ResolvedTarget> {
  const host = hostOf(url);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await lookup(host, { all: true, verbatim: true });
    } catch (err) {
      throw new TargetRefused(`DNS lookup failed (${String((err as { code?: unknown }).code ?? 'error')})`);
    }
  }
  if (addresses.length === 0) throw new TargetRefused('DNS lookup found no address');
  if (!allowPrivate) {
    const unsafe = addresses.find((a) => !isPublicAddress(a.address));
    if (unsafe) throw new TargetRefused(`Target address not allowed (${rangeOf(unsafe.address)})`);
  }
  return { address: addresses[0].address, family: addresses[0].family === 6 ? 6 : 4 };
}

/**
 * A URL as a webhook may keep it (create, change): its form (urlProblem), then its host, an
 * address or every address its name resolves to, public. 400 `Validation failed` on `url`.
 */
export async function checkTarget(raw: string, allowPrivate: boolean): Promise<void> {
  const problem = urlProblem(raw, allowPrivate);
  if (problem) throw ValidationError.field('url', problem);
  if (allowPrivate) return;
  try {
    await resolveTarget(new URL(raw), false);
  } catch (err) {
    const message = err instanceof TargetRefused && err.message.startsWith('DNS') ? 'url\'s host could not be resolved' : UNSAFE_TARGET;
    throw ValidationError.field('url', message);
  }
}
