export type Env = Record<string, string | undefined>;

/**
 * Keys whose value a message never repeats: a bad value there is most likely a real secret,
 * mistyped or cut short, and start-up errors end up in CI logs and container consoles.
 */
const SECRETS = new Set(['JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_PASSWORD', 'DB_PASSWORD', 'DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN']);

export interface ConfigProblem {
  key: string;
  /** what the key accepts, and the value it got unless the key holds a secret */
  problem: string;
}

/** Every problem of one configuration, one per line of the message. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];

  constructor(problems: readonly ConfigProblem[]) {
    super(['Invalid configuration:', ...problems.map(({ key, problem }) => `  ${key}: ${problem}`)].join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

const SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 };

/** "900" (seconds), "15m", "24h", "7d" in seconds; null for anything else, zero included. */
function secondsOf(value: string): number | null {
  const match = /^(\d+)([smhd]?)$/.exec(value);
  return match && Number(match[1]) > 0 ? Number(match[1]) * SECONDS[match[2] || 's'] : null;
}

/**
 * Reads one environment, noting a bad value and going on with the default, so that one start
 * reports every bad key instead of the first: `throwProblems()` ends the reading.
 */
export class ConfigReader {
  private readonly problems: ConfigProblem[] = [];

  constructor(private readonly env: Env) {}

  /** Notes that `key` is bad: `accepts` says what it takes; the value `got` is shown unless the key is a secret. */
  refuse(key: string, accepts: string, got?: string): void {
    const shown = got === undefined || SECRETS.has(key) ? '' : `, got "${got}"`;
    this.problems.push({ key, problem: `${accepts}${shown}` });
  }

  /** Throws one ConfigError listing every problem noted, if any. */
  throwProblems(): void {
    if (this.problems.length > 0) throw new ConfigError([...this.problems]);
  }

  /** The trimmed value, or '' when unset or blank. */
  raw(key: string): string {
    return this.env[key]?.trim() ?? '';
  }

  str(key: string, fallback: string): string {
    return this.raw(key) || fallback;
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(key);
    if (!raw) return fallback;
    const value = Number(raw);
    if (!/^\d+$/.test(raw) || value < min || value > max) {
      this.refuse(key, `expected a whole number from ${min} to ${max}`, raw);
      return fallback;
    }
    return value;
  }

  /** A duration in seconds: "900" (seconds), "15m", "24h", "7d". */
  duration(key: string, fallback: string): number {
    const value = this.str(key, fallback);
    const seconds = secondsOf(value);
    if (seconds === null) {
      this.refuse(key, 'expected a duration such as 900, 15m, 24h or 7d', value);
      return secondsOf(fallback)!;
    }
    return seconds;
  }

  /** A body size as body-parser reads it: "512" (bytes), "100kb", "1.5mb". */
  size(key: string, fallback: string): string {
    const value = this.str(key, fallback);
    if (!/^\d+(\.\d+)?\s*(b|kb|mb|gb)?$/i.test(value)) {
      this.refuse(key, 'expected a size such as 512, 100kb or 1mb', value);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const raw = this.raw(key);
    if (!raw) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.refuse(key, `expected one of ${allowed.join(', ')}`, raw);
      return fallback;
    }
    return raw as T;
  }

  flag(key: string, fallback: boolean): boolean {
    const raw = this.raw(key).toLowerCase();
    if (!raw) return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    this.refuse(key, 'expected true, false, 1 or 0', this.raw(key));
    return fallback;
  }
}
