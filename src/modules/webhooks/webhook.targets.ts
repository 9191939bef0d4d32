import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { ValidationError } from '../../lib/errors';

/**
 * Safe targets (docs/changes.md, Webhooks): a webhook's URL must be https and reach only public
 * addresses, so that a webhook cannot make the service call into its own network (SSRF): no
 * private, loopback, link-local (169.254.169.254, the cloud metadata address), unique-local,
 * multicast, unspecified or otherwise reserved address, in IPv4 or IPv6, an IPv4 address
 * written as IPv6 (::ffff:10.0.0.1) included. ipaddr.js classifies most of them (private,
 * loopback, link-local, unique-local, multicast, carrier-grade NAT, the documentation and
 * reserved ranges, 6to4, Teredo, NAT64's 64:ff9b::/96), but not every range of the IANA
 * special-purpose registries: version 1.9.1 calls some that are not globally reachable
 * `unicast`. NOT_GLOBAL below adds those; what passes is what ipaddr.js calls `unicast` and
 * none of them contains. WEBHOOKS_ALLOW_PRIVATE=true turns the check off (tests, closed
 * networks) and allows http.
 */

/**
 * Ranges ipaddr.js 1.9.1 calls `unicast` that are not globally reachable (the IANA IPv4 and
 * IPv6 special-purpose address registries, RFC 6890 and its updates), each with the name a
 * refusal gives. 2002::/16 (6to4) is refused by ipaddr.js already, whatever IPv4 address it
 * wraps: 6to4 is deprecated (RFC 7526) and a public one is no webhook's address.
 */
const NOT_GLOBAL: ReadonlyArray<[string, string]> = [
  ['198.18.0.0/15', 'benchmarking'],
  ['64:ff9b:1::/48', 'localNat64'],
  ['fec0::/10', 'siteLocal'],
  ['::/96', 'ipv4Compatible'],
  ['100::/64', 'discardOnly'],
  ['2001::/23', 'ietfProtocolAssignments'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segmentRouting'],
];

const NOT_GLOBAL_PARSED = NOT_GLOBAL.map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr), name }));

/** The words of a refused target: the same at create, change and delivery. */
export const UNSAFE_TARGET = 'url must not point to a private, loopback, link-local or otherwise internal address';

/** The range of an address (`unicast` for a public one): ipaddr.js's, or NOT_GLOBAL's; an IPv4-mapped IPv6 address as its IPv4 address. */
export function rangeOf(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  // a range is matched against an address of its own family only (match throws otherwise)
  const special = NOT_GLOBAL_PARSED.find((s) => s.range[0].kind() === parsed.kind() && (parsed as ipaddr.IPv6).match(s.range as [ipaddr.IPv6, number]));
  return special ? special.name : range;
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
 * Name lookups (getaddrinfo, so /etc/hosts and the system's resolver settings count) run on
 * libuv's thread pool, which bcrypt and zlib share. A lookup waits at most its time-out, and at
 * most MAX_LOOKUPS run at once: a slow resolver ties up that many threads at most (of 4 by
 * default), a lookup that timed out keeps its place until the resolver answers it, and a
 * lookup waiting for a place spends its own time-out waiting.
 */
export const MAX_LOOKUPS = 2;
let lookupsRunning = 0;
const lookupQueue: Array<() => void> = [];

function releaseLookup(): void {
  const next = lookupQueue.shift();
  if (next) next();
  else lookupsRunning--;
}

/** The addresses of `host`, within `timeoutMs` (waiting for a place included), or TargetRefused. */
async function lookupBounded(host: string, timeoutMs: number): Promise<Array<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  let waiting: (() => void) | null = null;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TargetRefused(`DNS lookup timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  const looked = (async () => {
    if (lookupsRunning >= MAX_LOOKUPS) await new Promise<void>((resolve) => lookupQueue.push((waiting = resolve)));
    else lookupsRunning++;
    waiting = null;
    return dns.lookup(host, { all: true, verbatim: true }).finally(releaseLookup);
  })();
  try {
    return await Promise.race([looked, timedOut]);
  } catch (err) {
    if (err instanceof TargetRefused) {
      // timed out while waiting for a place: give it up, so no lookup runs for nothing
      const at = waiting ? lookupQueue.indexOf(waiting) : -1;
      if (at >= 0) lookupQueue.splice(at, 1);
      looked.catch(() => undefined);
      throw err;
    }
    throw new TargetRefused(`DNS lookup failed (${String((err as { code?: unknown }).code ?? 'error')})`);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The address to connect to for `url`, checked: an IP literal as it is, a name resolved within
 * `timeoutMs` (every address it resolves to must be public, so a name with one private address
 * among public ones is refused too). Throws TargetRefused with the reason.
 */
export async function resolveTarget(url: URL, allowPrivate: boolean, timeoutMs: number): Promise<ResolvedTarget> {
  const host = hostOf(url);
  let addresses: Array<{ address: string; family: number }>;
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else addresses = await lookupBounded(host, timeoutMs);
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
export async function checkTarget(raw: string, allowPrivate: boolean, timeoutMs: number): Promise<void> {
  const problem = urlProblem(raw, allowPrivate);
  if (problem) throw ValidationError.field('url', problem);
  if (allowPrivate) return;
  try {
    await resolveTarget(new URL(raw), false, timeoutMs);
  } catch (err) {
    const message = err instanceof TargetRefused && err.message.startsWith('DNS') ? 'url\'s host could not be resolved' : UNSAFE_TARGET;
    throw ValidationError.field('url', message);
  }
}
