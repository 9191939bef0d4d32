import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt, { type JwtPayload } from 'jsonwebtoken';

export type TokenType = 'access' | 'refresh';

/** Secrets, lifetimes (seconds) and the iss/aud claims of both kinds of token (config.ts reads them). */
export interface TokenSettings {
  secret: string;
  refreshSecret: string;
  expiresIn: number;
  refreshExpiresIn: number;
  issuer: string;
  audience: string;
}

export interface TokenSubject {
  id: number;
  role_name: string;
  organization_id: number;
  token_version: number;
}

export interface VerifiedToken {
  userId: number;
  version: number;
}

const ALGORITHM = 'HS256';
const CLOCK_TOLERANCE_SECONDS = 30;
/** How many verified access tokens are remembered (the oldest goes first). */
const VERIFIED_MAX = 10_000;

/**
 * Signs and checks the two kinds of JWT. HS256 is pinned on both sides; every token carries
 * iss, aud, exp and a `typ`, and each kind has its own secret, so neither can stand in for
 * the other.
 */
export class TokenService {
  // Key objects made once: given a string, jsonwebtoken first tries (and fails) to read it as
  // a public key on every call, which costs more than the whole HMAC.
  private readonly accessKey: KeyObject;
  private readonly refreshKey: KeyObject;
  /**
   * Access tokens that verified, with their claims, until they expire. A client sends the same
   * token with every request, and checking its signature again would give the same answer;
   * only a token that verified gets in, found by its whole text. (The user behind a token is
   * still read on every request: authenticate.ts.)
   */
  private readonly verifiedAccess = new Map<string, { claims: VerifiedToken; until: number }>();

  constructor(private readonly config: TokenSettings) {
    this.accessKey = createSecretKey(Buffer.from(config.secret, 'utf8'));
    this.refreshKey = createSecretKey(Buffer.from(config.refreshSecret, 'utf8'));
  }

  signAccess(user: TokenSubject): string {
    return jwt.sign(
      { role: user.role_name, org: user.organization_id, ver: user.token_version, typ: 'access' },
      this.accessKey,
      this.options(user.id, this.config.expiresIn),
    );
  }

  signRefresh(user: TokenSubject): string {
    return jwt.sign(
      { ver: user.token_version, typ: 'refresh' },
      this.refreshKey,
      this.options(user.id, this.config.refreshExpiresIn),
    );
  }

  /** The claims of a valid token of the given type, or null for any token that is not. */
  verify(token: string, type: TokenType): VerifiedToken | null {
    if (type === 'access') {
      const known = this.verifiedAccess.get(token);
      if (known && Date.now() < known.until) return known.claims;
      if (known) this.verifiedAccess.delete(token);
    }
    let payload: string | JwtPayload;
    try {
      payload = jwt.verify(token, type === 'access' ? this.accessKey : this.refreshKey, {
        algorithms: [ALGORITHM],
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      });
    } catch {
      return null;
    }
    if (typeof payload !== 'object' || payload.typ !== type) return null;
    if (typeof payload.exp !== 'number') return null;
    if (typeof payload.sub !== 'string' || !/^[1-9]\d{0,15}$/.test(payload.sub)) return null;
    if (typeof payload.ver !== 'number' || !Number.isInteger(payload.ver)) return null;
    const claims = { userId: Number(payload.sub), version: payload.ver };
    if (type === 'access') {
      if (this.verifiedAccess.size >= VERIFIED_MAX) this.verifiedAccess.delete(this.verifiedAccess.keys().next().value!);
      // jsonwebtoken refuses the token from (exp + tolerance) seconds on
      this.verifiedAccess.set(token, { claims, until: (payload.exp + CLOCK_TOLERANCE_SECONDS) * 1000 });
    }
    return claims;
  }

  private options(userId: number, expiresIn: number): jwt.SignOptions {
    return {
      algorithm: ALGORITHM,
      expiresIn,
      issuer: this.config.issuer,
      audience: this.config.audience,
      subject: String(userId),
    };
  }
}
