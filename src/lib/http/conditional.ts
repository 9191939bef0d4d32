import type { Request, RequestHandler, Response } from 'express';

/**
 * Conditional reads from versions, not hashes (docs/api.md, Conditional requests). A read's
 * ETag is the versions of what it shows, the caller's role and organization (visibility may
 * differ by them) and a digest of the request's URL: the versions come with the session's row
 * (req.auth.versions, which access's conditionalRead passes in with the caller), so computing it
 * costs no query and no look at the body. A matching
 * If-None-Match answers 304 before the read runs, and before validation: the tag names a URL
 * that passed validation under the same versions for the same role and organization, and
 * validation depends on nothing else, so it would pass again (validation was a quarter of a
 * 304's time, measured). Any other request is validated as usual; an error answer carries no
 * ETag (errors.ts removes it), so no client holds a tag for a refused URL.
 *
 * The versions are read before the data, so an ETag may be older than the body it comes with,
 * never newer: a client holding it gets a fresh 200 next time, never a stale 304.
 */

/** FNV-1a, 32 bits: a short, stable digest of the URL (not a security measure). */
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

/** The entity tags listed in an If-None-Match or If-Match header, as sent (`W/` kept). */
export function listedTags(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}

/**
 * If-None-Match compares weakly (RFC 9110, 13.1.2): `W/` is ignored. An ETag may carry a
 * suffix (`-u<id>.<ms>`: the row a GET /:id shows) beyond the versions: a listed tag matches
 * when it is the same, or the same versions with a suffix (the versions cover the row).
 * Returns the ETag the 304 carries (the full one the client holds), or null when none matches.
 */
function noneMatch(listed: string[], tag: string): string | null {
  const stem = tag.slice(0, -1);
  for (const t of listed.map((l) => l.replace(/^W\//, ''))) {
    if (t === '*' || t === tag) return tag;
    if (t.startsWith(`${stem}-`)) return t;
  }
  return null;
}

/**
 * Middleware for a read, after authentication and before validation: `keyOf` gives what the
 * read depends on besides its URL (the versions, and who asks: access's conditionalRead). Sets
 * `ETag`, or answers 304 with no body when the request's If-None-Match holds it.
 */
export function conditional(keyOf: (req: Request) => string): RequestHandler {
  return (req, res, next) => {
    const tag = `"${keyOf(req)}-${digest(req.originalUrl)}"`;
    const held = noneMatch(listedTags(req.get('if-none-match')), tag);
    res.setHeader('ETag', held ?? tag);
    if (held) {
      res.status(304).end();
      return;
    }
    next();
  };
}

/** Adds a suffix to the ETag that `conditional` set (a GET /:id adds the row it read). */
export function extendETag(res: Response, suffix: string): void {
  const tag = res.getHeader('ETag');
  if (typeof tag === 'string') res.setHeader('ETag', `${tag.slice(0, -1)}-${suffix}"`);
}

/** A write's preconditions (RFC 9110, 13.1.1 and 13.1.2): the If-Match and If-None-Match tags as sent. */
export interface Preconditions {
  ifMatch: readonly string[];
  ifNoneMatch: readonly string[];
}

/** A write without preconditions: unconditional. */
export const UNCONDITIONAL: Preconditions = { ifMatch: [], ifNoneMatch: [] };

/** The request's preconditions, read by the router and checked by the service at its point of truth. */
export function preconditionsOf(req: Request): Preconditions {
  return { ifMatch: listedTags(req.get('if-match')), ifNoneMatch: listedTags(req.get('if-none-match')) };
}

/**
 * Whether a write's preconditions hold for a target that exists (the checks before them answered
 * 404 otherwise); `names(tag)` says whether a tag, `W/` taken off, names the target's current
 * representation. If-Match (13.1.1) holds with `*` or a strong tag that names it; a weak tag or
 * a malformed value names nothing. If-None-Match (13.1.2) fails with `*` or a tag that names it,
 * weakly compared: for a write, either is 412. Without either header, a write is unconditional.
 */
export function preconditionsHold(conditions: Preconditions, names: (tag: string) => boolean): boolean {
  const { ifMatch, ifNoneMatch } = conditions;
  if (ifMatch.length > 0 && !ifMatch.some((t) => t === '*' || (!t.startsWith('W/') && names(t)))) return false;
  return !ifNoneMatch.some((t) => t === '*' || names(t.replace(/^W\//, '')));
}

/**
 * For a row that `extendETag` named (a tag that ends with `-<suffix>`, a contact's): whether the
 * preconditions hold. The directory's versions in front of the suffix do not count: a change of
 * another contact leaves the tag good.
 */
export function rowPreconditionsHold(conditions: Preconditions, suffix: string): boolean {
  return preconditionsHold(conditions, (t) => t.endsWith(`-${suffix}"`));
}

/**
 * For a write whose target reads with a version's tag (`"<prefix><version>-<who>-<digest of its
 * URL>"`, as a conditional read of `<prefix><version>` makes it): the request's preconditions as
 * a test of the version that the service reads at its point of truth, or undefined when the
 * request has none. A tag names the current representation when its version is the current one
 * and it is the tag of this URL (the item's GET; a list's tag names the list): a change of any
 * record the version covers makes it stale. Whose read it was does not count: a record reads the
 * same to everyone who may read it.
 */
export function versionPreconditions(req: Request, prefix: string): VersionCondition | undefined {
  const conditions = preconditionsOf(req);
  if (conditions.ifMatch.length === 0 && conditions.ifNoneMatch.length === 0) return undefined;
  const url = `-${digest(req.originalUrl)}"`;
  return (version) => preconditionsHold(conditions, (t) => t.startsWith(`"${prefix}${version}-`) && t.endsWith(url));
}

/** Whether a conditional write may go ahead when what it changes is at `version` (versionPreconditions). */
export type VersionCondition = (version: number) => boolean;
