import net from 'node:net';
import { DB_START_TIMEOUT_S, loadConfig, ConfigError } from '../../src/config';
import { jsonLines, runToExit } from '../helpers/run-to-exit';

/**
 * A start that fails says why as one JSON line at fatal (pino, like every other line), on
 * stdout, with nothing on stderr and no stack trace, and exits 1: a bad configuration with
 * every problem as an array, a database that did not come up within DB_START_TIMEOUT_S with
 * its last error. The real server (and CLI) in their own processes.
 */

const FATAL = 60;
const BAD = {
  NODE_ENV: 'production',
  PORT: 'eighty',
  BCRYPT_COST: '99',
  DB_CLIENT: 'oracle',
  DB_START_TIMEOUT_S: 'soon',
  JWT_SECRET: 'short-secret-value',
};
const BAD_KEYS = ['PORT', 'BCRYPT_COST', 'DB_CLIENT', 'DB_START_TIMEOUT_S', 'JWT_SECRET', 'JWT_REFRESH_SECRET', 'ADMIN_EMAIL', 'ADMIN_PASSWORD'];

/** A loopback port where nothing listens. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('DB_START_TIMEOUT_S', () => {
  test('defaults to 60 s in production, 10 s in development, 0 (one attempt) in test', () => {
    expect(DB_START_TIMEOUT_S).toEqual({ production: 60, development: 10, test: 0 });
    const production = { NODE_ENV: 'production', JWT_SECRET: 'p'.repeat(32), JWT_REFRESH_SECRET: 'r'.repeat(32), ADMIN_EMAIL: 'a@b.test', ADMIN_PASSWORD: 'x' };
    expect(loadConfig(production).dbStartTimeoutS).toBe(60);
    expect(loadConfig({}).dbStartTimeoutS).toBe(10);
    expect(loadConfig({ NODE_ENV: 'test' }).dbStartTimeoutS).toBe(0);
    expect(loadConfig({ DB_START_TIMEOUT_S: '120' }).dbStartTimeoutS).toBe(120);
  });

  test('takes whole seconds from 0 to 3600', () => {
    expect(() => loadConfig({ DB_START_TIMEOUT_S: '3601' })).toThrow(ConfigError);
    expect(() => loadConfig({ DB_START_TIMEOUT_S: '1.5' })).toThrow('DB_START_TIMEOUT_S: expected a whole number from 0 to 3600, got "1.5"');
  });
});

describe('a start that fails', () => {
  test('a bad configuration: one JSON line listing every problem as an array, no stack, nothing on stderr, exit 1', async () => {
    const exit = await runToExit('src/server.ts', [], BAD);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe('');
    expect(exit.stdout).toHaveLength(1);
    const [line] = jsonLines(exit.stdout);
    expect(line).toMatchObject({ level: FATAL, service: 'directory-service', msg: 'directory service failed to start: invalid configuration' });
    const problems = line.problems as Array<{ key: string; problem: string }>;
    expect(problems.map((p) => p.key).sort()).toEqual([...BAD_KEYS].sort());
    expect(problems).toContainEqual({ key: 'PORT', problem: 'expected a whole number from 0 to 65535, got "eighty"' });
    expect(exit.stdout[0]).not.toContain('stack');
    // a secret's value is never repeated
    expect(exit.stdout[0]).not.toContain(BAD.JWT_SECRET);
  });

  test('a CLI command with a bad configuration: the same one JSON line', async () => {
    const exit = await runToExit('src/cli.ts', ['migrate'], BAD);
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe('');
    expect(exit.stdout).toHaveLength(1);
    const [line] = jsonLines(exit.stdout);
    expect(line).toMatchObject({ level: FATAL, msg: 'migrate failed: invalid configuration' });
    expect((line.problems as Array<{ key: string }>).map((p) => p.key).sort()).toEqual([...BAD_KEYS].sort());
  });

  test('a database that never comes up: tried again until DB_START_TIMEOUT_S, then one fatal JSON line and exit 1', async () => {
    const port = await closedPort();
    const exit = await runToExit('src/server.ts', [], { DB_CLIENT: 'mysql', DB_HOST: '127.0.0.1', DB_PORT: String(port), DB_START_TIMEOUT_S: '3' });
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe('');
    const lines = jsonLines(exit.stdout);
    const fatal = lines.filter((l) => l.level === FATAL);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]).toMatchObject({
      msg: expect.stringMatching(/^directory service failed to start: the database was not reachable within DB_START_TIMEOUT_S \(3 s, \d+ attempts\)$/),
      timeoutS: 3,
      err: { code: 'ECONNREFUSED' },
    });
    expect(Number(fatal[0].attempts)).toBeGreaterThan(3);
    expect(exit.stdout.join('\n')).not.toContain('stack');
    // it waited the whole time, and logged the wait once (one line per 10 s), not every attempt
    expect(exit.ms).toBeGreaterThanOrEqual(3000);
    expect(lines.filter((l) => l.msg === 'database not reachable yet; trying again until DB_START_TIMEOUT_S')).toHaveLength(1);
    expect(lines.some((l) => l.msg === 'directory service listening')).toBe(false);
  });
});
