import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { testConfig } from './config';

const ROOT = path.join(__dirname, '..', '..');
export const START_TIMEOUT_MS = 60_000;

export interface Running {
  child: ChildProcess;
  port: number;
  /** every line the server has logged so far, parsed */
  records: Array<Record<string, unknown>>;
  stderr: () => string;
  /** the exit, once every line the server wrote has been read */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** resolves once the server has logged a line with this message (at once if it has) */
  logged: (msg: string) => Promise<void>;
}

/** every server started here, so that none outlives a failed test: see stopAll() */
const started: Running[] = [];
// the last resort, should a test file end without its afterAll: no server outlives the worker
process.once('exit', () => {
  for (const { child } of started) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Starts `src/server.ts` in its own process on the SQLite file `file` (created, migrated and
 * seeded on first use), with development settings plus `settings`, and resolves once it logs
 * that it listens.
 */
export function startServer(file: string, settings: Record<string, string> = {}, choosePort = true): Promise<Running> {
  return launch({ DB_CLIENT: 'sqlite', SQLITE_FILENAME: file, ...settings }, choosePort);
}

/**
 * Starts `src/server.ts` in its own process on the MySQL database of the test run (testConfig:
 * DATABASE_URL or DB_HOST, DB_PORT, DB_USER, DB_PASSWORD, DB_NAME), already migrated and seeded
 * by global-setup, with the run's JWT secrets and first administrator, so that the tokens the
 * factory signs are valid there too; plus `settings`. For tests of several processes on one
 * database: each has its own pool, search index and caches.
 */
export function startMysqlServer(settings: Record<string, string> = {}, choosePort = true, onLog?: (record: Record<string, unknown>) => void): Promise<Running> {
  const config = testConfig();
  const { db, jwt, admin } = config;
  return launch(
    {
      DB_CLIENT: 'mysql',
      ...(db.url
        ? { DATABASE_URL: db.url }
        : { DB_HOST: db.host, DB_PORT: String(db.port), DB_USER: db.user, DB_PASSWORD: db.password, DB_NAME: db.database }),
      DB_QUERY_TIMEOUT_MS: String(db.queryTimeoutMs),
      JWT_SECRET: jwt.secret,
      JWT_REFRESH_SECRET: jwt.refreshSecret,
      ADMIN_EMAIL: admin.email,
      ADMIN_PASSWORD: admin.password,
      ...settings,
    },
    choosePort,
    onLog,
  );
}

async function launch(settings: Record<string, string>, choosePort: boolean, onLog?: (record: Record<string, unknown>) => void): Promise<Running> {
  const port = choosePort ? await freePort() : 0;
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(DB_|DATABASE_URL|REDIS_URL|RATE_LIMIT|LOGIN_RATE|CORS_|TRUST_PROXY|BODY_LIMIT|JEST|TEST_)/.test(key)) delete env[key];
  }
  Object.assign(env, {
    NODE_ENV: 'development',
    PORT: String(port),
    LOG_LEVEL: 'info',
    BCRYPT_COST: '4',
    ...settings,
  });
  // `node --import tsx`, not `node_modules/.bin/tsx`: the tsx CLI runs the script in a second
  // process and relays signals to it, and when that process does not acknowledge a signal
  // within 2 x 30 ms (a loaded machine) it SIGKILLs it, exit 143, which is no test of ours.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const records: Array<Record<string, unknown>> = [];
  const watchers: Array<{ msg: string; then: () => void }> = [];
  const logged = (msg: string) =>
    new Promise<void>((then) => {
      if (records.some((r) => r.msg === msg)) then();
      else watchers.push({ msg, then });
    });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  // 'close', not 'exit': by then every line the server wrote has been read
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const running = { child, port, records, exited, logged, stderr: () => stderr };
  // known to stopAll from now on: a server that fails to start, or whose start a failed test
  // gives up waiting for, is killed too
  started.push(running);

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start in time; stderr: ${stderr}`));
    }, START_TIMEOUT_MS);
    let buffered = '';
    child.stdout!.on('data', (chunk) => {
      buffered += String(chunk);
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.trim()) continue;
        const record = JSON.parse(line) as Record<string, unknown>;
        records.push(record);
        onLog?.(record);
        for (const watcher of watchers) if (watcher.msg === record.msg) watcher.then();
        if (record.msg === 'directory service listening') {
          clearTimeout(timer);
          resolve();
        }
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening; stderr: ${stderr}`));
    });
  });
  return running;
}

/** Kills (SIGKILL) every server started here that still runs, and waits for its exit. */
export async function stopAll(): Promise<void> {
  for (const running of started.splice(0)) {
    if (running.child.exitCode === null && running.child.signalCode === null) {
      running.child.kill('SIGKILL');
      await running.exited;
    }
  }
}

/** Resolves once `condition` holds, looked at every 10 ms (a wait, not a measure of time). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** `promise`, or a rejection naming `what` if it takes more than `ms`. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}
