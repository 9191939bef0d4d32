import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'dotenv';
import { ConfigError, DEVELOPMENT_DEFAULTS, developmentDefaultsInUse, loadConfig } from '../../src/config';
import { ConfigReader } from '../../src/config-reader';

const ROOT = path.join(__dirname, '..', '..');

const PRODUCTION = {
  NODE_ENV: 'production',
  JWT_SECRET: 'p'.repeat(32),
  JWT_REFRESH_SECRET: 'r'.repeat(32),
  ADMIN_EMAIL: 'root@example.test',
  ADMIN_PASSWORD: 'Pr0duction-Admin-Password',
};

/** The ConfigError that loading `env` throws (fails the test when it does not throw one). */
function configErrorOf(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe('loadConfig defaults', () => {
  const config = loadConfig({});

  test('serves on port 3000 in development, on SQLite', () => {
    expect(config.env).toBe('development');
    expect(config.port).toBe(3000);
    expect(config.db.client).toBe('sqlite');
    expect(config.db.sqliteFilename).toBe(path.resolve('./data/directory.sqlite3'));
    expect(config.db.sqliteCacheMib).toBe(2);
  });

  test('reaches 100,000 rows by page number, and streams unit trees from 20,000 contacts', () => {
    expect(loadConfig({}).lists).toEqual({ pageDepth: 100_000, unitTreeStreamFrom: 20_000 });
  });

  test('walks search terms on one thread of their own from 200,000 contacts, on a machine of two CPUs or more, and keeps 4 MiB of walks', () => {
    expect(loadConfig({}).searchThreads).toEqual({ threads: os.availableParallelism() > 1 ? 1 : 0, from: 200_000, keptBytes: 4 * 2 ** 20 });
  });

  test('hashes with bcrypt cost 12', () => {
    expect(config.bcryptCost).toBe(12);
  });

  test('issues access tokens for 24h and refresh tokens for 7d, in seconds', () => {
    expect(config.jwt.expiresIn).toBe(24 * 3600);
    expect(config.jwt.refreshExpiresIn).toBe(7 * 86400);
  });

  test('limits the API to 1000 requests and sign-in to 10 failures per 15 minutes', () => {
    expect(config.rateLimit.max).toBe(1000);
    expect(config.rateLimit.windowMs).toBe(15 * 60 * 1000);
    expect(config.rateLimit.loginMax).toBe(10);
    expect(config.rateLimit.loginWindowMs).toBe(15 * 60 * 1000);
  });

  test('takes bodies up to 100kb, trusts no proxy, has no CORS list and no Redis', () => {
    expect(config.bodyLimit).toBe('100kb');
    expect(config.trustProxy).toBe(false);
    expect(config.corsOrigins).toBeNull();
    expect(config.redisUrl).toBeUndefined();
  });

  test('searches contacts from the in-memory index, built at most every 5 s', () => {
    expect(config.searchIndex).toBe('memory');
    expect(config.searchIndexRefreshMs).toBe(5000);
  });

  test('falls back to the development secrets and admin outside production, and says which', () => {
    expect(config.jwt.secret).toBe(DEVELOPMENT_DEFAULTS.jwtSecret);
    expect(config.jwt.refreshSecret).toBe(DEVELOPMENT_DEFAULTS.jwtRefreshSecret);
    expect(config.admin.password).toBe(DEVELOPMENT_DEFAULTS.adminPassword);
    expect(developmentDefaultsInUse({})).toEqual(['JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_EMAIL', 'ADMIN_PASSWORD']);
    expect(developmentDefaultsInUse({ JWT_SECRET: 'x', ADMIN_PASSWORD: 'y' })).toEqual(['JWT_REFRESH_SECRET', 'ADMIN_EMAIL']);
  });

  test('logs at info in development and stays silent in test', () => {
    expect(config.logLevel).toBe('info');
    expect(loadConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
  });

  test('is frozen, nested objects included', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.rateLimit)).toBe(true);
    expect(Object.isFrozen(config.jwt)).toBe(true);
  });
});

describe('loadConfig with settings', () => {
  test('reads the documented keys', () => {
    const config = loadConfig({
      PORT: '8080',
      BCRYPT_COST: '10',
      JWT_EXPIRES_IN: '15m',
      JWT_REFRESH_EXPIRES_IN: '900',
      RATE_LIMIT_MAX: '50',
      RATE_LIMIT_WINDOW_MS: '60000',
      LOGIN_RATE_LIMIT_MAX: '5',
      LOGIN_RATE_LIMIT_WINDOW_MS: '120000',
      LOGIN_IP_RATE_LIMIT_MAX: '40',
      BODY_LIMIT: '1mb',
      CORS_ORIGINS: ' https://a.example , https://b.example,, ',
      TRUST_PROXY: '1',
      REDIS_URL: 'redis://cache:6379',
      DB_CLIENT: 'mysql',
      DB_PORT: '3307',
      SEARCH_INDEX: 'sql',
      SEARCH_INDEX_REFRESH_MS: '0',
      SEARCH_THREADS: '3',
      SEARCH_THREADS_FROM: '0',
      SEARCH_KEPT_WALKS_MB: '0',
      LIST_PAGE_DEPTH: '500',
      UNIT_TREE_STREAM_FROM: '0',
    });
    expect({ searchIndex: config.searchIndex, refresh: config.searchIndexRefreshMs }).toEqual({ searchIndex: 'sql', refresh: 0 });
    expect(config.searchThreads).toEqual({ threads: 3, from: 0, keptBytes: 0 });
    expect(config.lists).toEqual({ pageDepth: 500, unitTreeStreamFrom: 0 });
    expect(config.port).toBe(8080);
    expect(config.bcryptCost).toBe(10);
    expect(config.jwt.expiresIn).toBe(900);
    expect(config.jwt.refreshExpiresIn).toBe(900);
    expect(config.rateLimit).toMatchObject({ max: 50, windowMs: 60000, loginMax: 5, loginIpMax: 40, loginWindowMs: 120000 });
    expect(config.bodyLimit).toBe('1mb');
    expect(config.corsOrigins).toEqual(['https://a.example', 'https://b.example']);
    expect(config.trustProxy).toBe(1);
    expect(config.redisUrl).toBe('redis://cache:6379');
    expect(config.db).toMatchObject({ client: 'mysql', port: 3307 });
  });

  test.each([
    ['24h', 86400],
    ['7d', 604800],
    ['30s', 30],
    ['90', 90],
  ])('reads the duration %p as %p seconds', (value, seconds) => {
    expect(loadConfig({ JWT_EXPIRES_IN: value }).jwt.expiresIn).toBe(seconds);
  });

  test.each([
    ['true', true],
    ['false', false],
    ['0', false],
    ['2', 2],
    ['loopback, 10.0.0.0/8', 'loopback, 10.0.0.0/8'],
  ])('reads TRUST_PROXY=%p as %p', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  test('does not read process.env, only the object it is given', () => {
    const saved = process.env.PORT;
    process.env.PORT = '4321';
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.PORT;
      else process.env.PORT = saved;
    }
  });
});

describe('loadConfig refuses bad values, naming the key', () => {
  test.each([
    ['PORT', 'abc'],
    ['PORT', '-1'],
    ['PORT', '3000.5'],
    ['PORT', '70000'],
    ['BCRYPT_COST', '3'],
    ['BCRYPT_COST', '16'],
    ['BCRYPT_COST', 'twelve'],
    ['RATE_LIMIT_MAX', '0'],
    ['RATE_LIMIT_MAX', '1e3'],
    ['RATE_LIMIT_WINDOW_MS', '15m'],
    ['LOGIN_RATE_LIMIT_MAX', 'ten'],
    ['LOGIN_RATE_LIMIT_WINDOW_MS', '-900000'],
    ['LOGIN_IP_RATE_LIMIT_MAX', '0'],
    ['DB_PORT', 'mysql'],
    ['DB_POOL_MAX', '0'],
    ['SQLITE_CACHE_MIB', '0'],
    ['SQLITE_CACHE_MIB', '16MB'],
    ['SHUTDOWN_TIMEOUT_MS', 'soon'],
    ['SEARCH_INDEX_REFRESH_MS', '-1'],
    ['LIST_PAGE_DEPTH', '0'],
    ['LIST_PAGE_DEPTH', 'deep'],
    ['UNIT_TREE_STREAM_FROM', '-1'],
    ['SEARCH_THREADS', '-1'],
    ['SEARCH_THREADS', '17'],
    ['SEARCH_THREADS', 'all'],
    ['SEARCH_THREADS_FROM', '-1'],
    ['SEARCH_KEPT_WALKS_MB', '-1'],
    ['SEARCH_KEPT_WALKS_MB', '4mb'],
  ])('%s=%p', (key, value) => {
    const error = configErrorOf({ [key]: value });
    expect(error.message).toContain(key);
    expect(error.message).toContain(value);
  });

  test.each([
    ['JWT_EXPIRES_IN', '1y'],
    ['JWT_EXPIRES_IN', '0'],
    ['JWT_EXPIRES_IN', '24 hours'],
    ['JWT_EXPIRES_IN', '-5m'],
    ['JWT_REFRESH_EXPIRES_IN', '7days'],
    ['JWT_REFRESH_EXPIRES_IN', '1.5h'],
  ])('the duration %s=%p', (key, value) => {
    const error = configErrorOf({ [key]: value });
    expect(error.message).toContain(key);
  });

  test.each([
    ['NODE_ENV', 'staging'],
    ['DB_CLIENT', 'postgres'],
    ['SEARCH_INDEX', 'disk'],
  ])('%s=%p', (key, value) => {
    expect(configErrorOf({ [key]: value }).message).toContain(key);
  });

  test.each(['abc', '10 parsecs', '-1kb', 'kb'])('the size BODY_LIMIT=%p', (value) => {
    expect(configErrorOf({ BODY_LIMIT: value }).message).toContain('BODY_LIMIT');
  });

  test.each(['512', '1kb', '100KB', '1.5mb', '2 mb'])('accepts the size BODY_LIMIT=%p', (value) => {
    expect(loadConfig({ BODY_LIMIT: value }).bodyLimit).toBe(value);
  });

  test.each(['yes', 'on', '2'])('the flag METRICS_ENABLED=%p', (value) => {
    const error = configErrorOf({ METRICS_ENABLED: value });
    expect(error.message).toContain('METRICS_ENABLED');
    expect(error.message).toContain(value);
  });

  test.each([
    ['shorter than 16 characters', 'abc123'],
    ['with a space', 'abcdef0123456789 abcdef'],
    ['with a quote', 'abcdef0123456789"abcdef'],
  ])('a METRICS_TOKEN %s, without echoing the secret', (_label, value) => {
    const error = configErrorOf({ METRICS_TOKEN: value });
    expect(error.message).toContain('METRICS_TOKEN');
    expect(error.message).not.toContain(value);
  });

  test('metrics are off and ask no token unless set; METRICS_ENABLED takes true/false/1/0', () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: false, token: null });
    expect(loadConfig({ METRICS_ENABLED: 'true' }).metrics.enabled).toBe(true);
    expect(loadConfig({ METRICS_ENABLED: '1' }).metrics.enabled).toBe(true);
    expect(loadConfig({ METRICS_ENABLED: '0' }).metrics.enabled).toBe(false);
    const token = 'Zm9vYmFyYmF6cXV4cXV1eA==';
    expect(loadConfig({ METRICS_TOKEN: ` ${token} ` }).metrics.token).toBe(token);
  });

  test.each(['verbose', 'everything'])('the log level LOG_LEVEL=%p', (value) => {
    expect(configErrorOf({ LOG_LEVEL: value }).message).toContain('LOG_LEVEL');
  });

  test.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts LOG_LEVEL=%p', (value) => {
    expect(loadConfig({ LOG_LEVEL: value }).logLevel).toBe(value);
  });
});

describe('loadConfig in production', () => {
  test('starts with real secrets and an administrator', () => {
    const config = loadConfig(PRODUCTION);
    expect(config.env).toBe('production');
    expect(config.jwt.secret).toBe(PRODUCTION.JWT_SECRET);
    expect(config.jwt.refreshSecret).toBe(PRODUCTION.JWT_REFRESH_SECRET);
    expect(config.admin).toMatchObject({ email: PRODUCTION.ADMIN_EMAIL, password: PRODUCTION.ADMIN_PASSWORD });
  });

  test.each([
    ['JWT_SECRET', { JWT_SECRET: undefined }],
    ['JWT_SECRET', { JWT_SECRET: '   ' }],
    ['JWT_SECRET', { JWT_SECRET: 'p'.repeat(31) }],
    ['JWT_REFRESH_SECRET', { JWT_REFRESH_SECRET: undefined }],
    ['JWT_REFRESH_SECRET', { JWT_REFRESH_SECRET: 'short-refresh-secret' }],
    ['JWT_REFRESH_SECRET', { JWT_REFRESH_SECRET: 'p'.repeat(32) }],
    ['ADMIN_EMAIL', { ADMIN_EMAIL: undefined }],
    ['ADMIN_PASSWORD', { ADMIN_PASSWORD: undefined }],
    ['ADMIN_PASSWORD', { ADMIN_PASSWORD: '  ' }],
  ])('refuses to start without a proper %s (%p)', (key, change) => {
    const env: Record<string, string | undefined> = { ...PRODUCTION, ...change };
    expect(configErrorOf(env).message).toContain(key);
  });

  test.each([
    ['JWT_SECRET', DEVELOPMENT_DEFAULTS.jwtSecret],
    ['JWT_REFRESH_SECRET', DEVELOPMENT_DEFAULTS.jwtRefreshSecret],
  ])('refuses the published development default as %s', (key, value) => {
    expect(configErrorOf({ ...PRODUCTION, [key]: value }).message).toContain(key);
  });

  test('does not fall back to the development defaults', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
  });
});

/** Eight bad values, one of each kind of check, and none of them a secret. */
const EIGHT_BAD = {
  PORT: 'abc',
  BCRYPT_COST: '99',
  DB_CLIENT: 'postgres',
  JWT_EXPIRES_IN: '1y',
  BODY_LIMIT: 'huge',
  LOG_LEVEL: 'loud',
  METRICS_ENABLED: 'yes',
  RATE_LIMIT_WINDOW_MS: '15m',
};

describe('loadConfig reports every bad value in one ConfigError', () => {
  test('eight bad values give one error naming each key, its bad value and what it accepts, one per line', () => {
    const error = configErrorOf(EIGHT_BAD);
    expect(error.problems.map((p) => p.key).sort()).toEqual(Object.keys(EIGHT_BAD).sort());
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('Invalid configuration:');
    expect(lines).toHaveLength(1 + Object.keys(EIGHT_BAD).length);
    for (const [key, value] of Object.entries(EIGHT_BAD)) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  ${key}: expected .+, got "${value}"$`)));
    }
    expect(error.message).toContain('PORT: expected a whole number from 0 to 65535, got "abc"');
    expect(error.message).toContain('DB_CLIENT: expected one of sqlite, mysql, got "postgres"');
  });

  test("production's secret rules are reported together with the other bad values", () => {
    const error = configErrorOf({ NODE_ENV: 'production', JWT_SECRET: 'too-short', PORT: '70000', SEARCH_INDEX: 'disk' });
    expect(error.problems.map((p) => p.key)).toEqual([
      'JWT_SECRET',
      'JWT_REFRESH_SECRET',
      'ADMIN_EMAIL',
      'ADMIN_PASSWORD',
      'PORT',
      'SEARCH_INDEX',
    ]);
  });

  test('both development defaults in production are reported, each naming its key', () => {
    const error = configErrorOf({
      ...PRODUCTION,
      JWT_SECRET: DEVELOPMENT_DEFAULTS.jwtSecret,
      JWT_REFRESH_SECRET: DEVELOPMENT_DEFAULTS.jwtRefreshSecret,
    });
    expect(error.problems).toEqual([
      { key: 'JWT_SECRET', problem: expect.stringContaining('must not be the development default') },
      { key: 'JWT_REFRESH_SECRET', problem: expect.stringContaining('must not be the development default') },
    ]);
  });

  test('a bad secret value never appears in the message, whatever is wrong with it', () => {
    const secrets = {
      JWT_SECRET: 'short-Secret-1',
      JWT_REFRESH_SECRET: 'short-Secret-2',
      METRICS_TOKEN: 'Secret token 3',
    };
    const error = configErrorOf({ ...PRODUCTION, ...secrets, PORT: 'abc' });
    expect(error.problems.map((p) => p.key)).toEqual(['JWT_SECRET', 'JWT_REFRESH_SECRET', 'PORT', 'METRICS_TOKEN']);
    for (const value of Object.values(secrets)) expect(error.message).not.toContain(value);
  });

  test.each(['JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_PASSWORD', 'DB_PASSWORD', 'DATABASE_URL', 'REDIS_URL', 'METRICS_TOKEN'])(
    'a problem with %s never repeats its value, even when a check passes the value along',
    (key) => {
      const value = 'redis://:Hunter2-password@cache:6379';
      const read = new ConfigReader({ [key]: value });
      read.refuse(key, 'expected something else', value);
      expect(() => read.throwProblems()).toThrow(ConfigError);
      expect(() => read.throwProblems()).toThrow(new RegExp(`^Invalid configuration:\n  ${key}: expected something else$`));
    },
  );

  test('every value of .env.example, with production secrets, loads without a problem', () => {
    const example = parse(readFileSync(path.join(ROOT, '.env.example')));
    const config = loadConfig({ ...example, ...PRODUCTION, METRICS_TOKEN: 'a'.repeat(32) });
    expect(config.env).toBe('production');
    expect(config.port).toBe(3000);
    expect(config.metrics.token).toBe('a'.repeat(32));
  });
});

/** Runs `src/server.ts` with only `settings` (and what node needs) in its environment, to its exit. */
function runServer(settings: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: os.tmpdir(), ...settings };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += String(chunk)));
  child.stderr.on('data', (chunk) => (output += String(chunk)));
  // a server that starts after all must not outlive the test
  const timer = setTimeout(() => child.kill('SIGKILL'), 45_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    }),
  );
}

describe('the server started with a bad configuration', () => {
  test('logs one JSON line listing every problem, no secret and no stack trace, and exits non-zero', async () => {
    const secret = 'not-long-enough-Secret';
    const { code, output } = await runServer({
      ...EIGHT_BAD,
      NODE_ENV: 'production',
      JWT_SECRET: secret,
      SQLITE_FILENAME: path.join(os.tmpdir(), `config-test-${process.pid}.sqlite3`),
    });
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    const lines = output.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]) as { level: number; msg: string; problems: Array<{ key: string; problem: string }> };
    expect(line).toMatchObject({ level: 60, msg: 'directory service failed to start: invalid configuration' });
    const keys = ['JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_EMAIL', 'ADMIN_PASSWORD', ...Object.keys(EIGHT_BAD)];
    expect(line.problems.map((p) => p.key).sort()).toEqual(keys.sort());
    expect(output).not.toContain(secret);
    expect(output).not.toMatch(/^\s+at /m);
  }, 60_000);
});
