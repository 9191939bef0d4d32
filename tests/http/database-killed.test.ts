import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createDb, ensureDatabase, type Db } from '../../src/lib/db';
import { createLogger } from '../../src/lib/logger';
import { TokenService } from '../../src/modules/access';
import { prepareDatabase } from '../../src/startup';
import { isMysql, testConfig } from '../helpers/config';
import { contractApp } from '../helpers/openapi';

/**
 * A real database server killed and started again: the test starts a MariaDB server of its own
 * (a fresh data directory, its own port), migrates and seeds it, serves the API over it, then
 * kills the server (SIGKILL: no goodbye on any connection). Every request that needs the
 * database answers 503 with Retry-After, /ready 503 and /health 200; once the server is started
 * again on the same data, the same app answers 200 without a restart. MariaDB suite only, and
 * only where the server's binaries are installed (.ci/run installs them).
 */

const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const runs = isMysql() && fs.existsSync(MARIADBD) && fs.existsSync(INSTALL_DB);

jest.setTimeout(120_000);

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Resolves once something accepts connections on the port. */
async function listening(port: number, withinMs = 60_000): Promise<void> {
  const until = Date.now() + withinMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

(runs ? describe : describe.skip)('the database server killed and started again', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'directory-killed-'));
  let port = 0;
  let server: ChildProcess | undefined;
  let db: Db;
  let app: ReturnType<typeof contractApp>;
  let token = '';

  const startServer = async () => {
    server = spawn(
      MARIADBD,
      ['--no-defaults', `--datadir=${dir}/data`, `--port=${port}`, `--socket=${dir}/socket`, '--bind-address=127.0.0.1',
        '--user=root', '--skip-log-bin', '--innodb-buffer-pool-size=32M', `--pid-file=${dir}/pid`],
      { stdio: 'ignore' },
    );
    await listening(port);
  };
  const killServer = async () => {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server!.kill('SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    const installed = spawnSync(INSTALL_DB, ['--no-defaults', `--datadir=${dir}/data`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=root'], { stdio: 'ignore' });
    if (installed.status !== 0) throw new Error('mariadb-install-db failed');
    port = await freePort();
    await startServer();
    const config = testConfig({
      DB_HOST: '127.0.0.1',
      DB_PORT: String(port),
      DB_USER: 'root',
      DB_PASSWORD: '',
      DB_NAME: 'directory_killed',
      DB_CONNECT_TIMEOUT_MS: '1000',
      DB_ACQUIRE_TIMEOUT_MS: '1000',
    });
    const logger = createLogger({ level: 'silent' });
    await ensureDatabase(config.db);
    db = createDb(config.db, logger);
    await prepareDatabase(db, config, logger);
    app = contractApp(createApp({ db, config, logger }));
    const admin = await db('users').where({ role_id: 1 }).first('id', 'organization_id');
    token = new TokenService(config.jwt).signAccess({ id: Number(admin.id), role_name: 'Super_admin', organization_id: Number(admin.organization_id), token_version: 0 });
  });

  afterAll(async () => {
    await db?.destroy().catch(() => undefined);
    if (server && server.exitCode === null) await killServer();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const statistics = () => request(app).get('/api/contacts/statistics').set({ Authorization: `Bearer ${token}` });

  it('answers 503 with Retry-After while the server is dead, and 200 again once it is back, without a restart of the app', async () => {
    expect((await statistics()).status).toBe(200);

    await killServer();
    const down = await statistics();
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'error', message: 'Service unavailable' });
    expect(down.headers['retry-after']).toBe('5');
    expect((await request(app).get('/ready')).status).toBe(503);
    expect((await request(app).get('/health')).status).toBe(200);

    await startServer();
    // the pool drops the dead connections and opens new ones
    let back = await statistics();
    for (let i = 0; i < 20 && back.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      back = await statistics();
    }
    expect(back.status).toBe(200);
    expect((await request(app).get('/ready')).status).toBe(200);
  });
});
