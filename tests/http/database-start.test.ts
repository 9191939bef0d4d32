import { isMysql, testConfig } from '../helpers/config';
import { startMysqlServer, stopAll } from '../helpers/server-process';
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

/**
 * The database comes up after the service (compose starting both at once): the real server,
 * started against a MariaDB port that refuses connections until 2 s after the service's first
 * refusal and then forwards to the test database, keeps trying with backoff (DB_START_TIMEOUT_S)
 * and starts once it is there, instead of exiting at the first refusal. MySQL only: SQLite has no server to wait for.
 * The start that gives up is in tests/config/start-failure.test.ts.
 */
const describeMysql = isMysql() ? describe : describe.skip;
const DOWN_MS = 2000;

describeMysql('the database up only after the service starts', () => {
  let proxy: TcpProxy;

  afterAll(async () => {
    await stopAll();
    await proxy?.close();
  });

  test('waits for it, logging the wait, then migrates, listens and is ready', async () => {
    const { db } = testConfig();
    proxy = await tcpProxy({ host: db.host, port: db.port }, { listening: false });
    // the port opens DOWN_MS after the service's first refusal (not after its spawn, which on a
    // loaded machine can take longer than that to reach the database at all)
    let refused = 0;
    let opening: Promise<void> | undefined;
    const running = await startMysqlServer({ DB_HOST: '127.0.0.1', DB_PORT: String(proxy.port), DB_START_TIMEOUT_S: '30' }, true, (record) => {
      if (opening || record.msg !== 'database not reachable yet; trying again until DB_START_TIMEOUT_S') return;
      refused = Date.now();
      opening = new Promise<void>((resolve) => setTimeout(() => void proxy.open().then(resolve), DOWN_MS));
    });
    await opening;
    expect(Date.now() - refused).toBeGreaterThanOrEqual(DOWN_MS);

    const messages = running.records.map((r) => r.msg);
    const waited = messages.indexOf('database not reachable yet; trying again until DB_START_TIMEOUT_S');
    const reached = messages.indexOf('database reachable');
    expect(waited).toBeGreaterThanOrEqual(0);
    expect(reached).toBeGreaterThan(waited);
    expect(messages.indexOf('directory service listening')).toBeGreaterThan(reached);
    expect(running.records[waited]).toMatchObject({ level: 40, err: { code: 'ECONNREFUSED' }, timeoutS: 30 });
    // one line for the wait (one per 10 s), not one per attempt
    expect(messages.filter((m) => m === messages[waited])).toHaveLength(1);
    expect(Number(running.records[reached].attempts)).toBeGreaterThan(2);
    expect(running.stderr()).toBe('');

    const ready = await fetch(`http://127.0.0.1:${running.port}/ready`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { data: unknown }).data).toMatchObject({ database: 'up' });
  }, 60_000);
});
