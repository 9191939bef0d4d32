import Redis from 'ioredis';
import type { Db } from '../../src/lib/db';
import { unique } from '../helpers/factory';
import { startMysqlServer, type Running } from '../helpers/server-process';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One service process: `request(instance.url)` calls it as a client would. */
export class Instance {
  readonly url: string;

  constructor(
    readonly name: string,
    readonly server: Running,
  ) {
    this.url = `http://127.0.0.1:${server.port}`;
  }

  /** the log lines at error level or above (pino: 50 error, 60 fatal) */
  errorsLogged(): Array<Record<string, unknown>> {
    return this.server.records.filter((r) => Number(r.level) >= 50);
  }
}

/**
 * Three processes of src/server.ts on the run's MySQL database and one Redis under a fresh key
 * prefix, started side by side; `settings` apply to all three. `dropKeys` deletes the prefix's
 * keys (stopping the processes is server-process's stopAll).
 */
export async function startThree(settings: Record<string, string>): Promise<{ instances: Instance[]; dropKeys: () => Promise<void> }> {
  const prefix = `${unique('test:cluster:')}:`;
  const dropKeys = async () => {
    const redis = new Redis(REDIS_URL);
    try {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  };
  const servers = await Promise.all(
    ['A', 'B', 'C'].map(() => startMysqlServer({ REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix, ...settings })),
  );
  return { instances: servers.map((server, i) => new Instance('ABC'[i], server)), dropKeys };
}

/** Ids of every node of a `tree` listing (nested `children`). */
export function treeIds(nodes: Array<{ id: number; children?: unknown[] }>): number[] {
  const ids: number[] = [];
  const stack = [...nodes];
  while (stack.length > 0) {
    const node = stack.pop()!;
    ids.push(node.id);
    stack.push(...((node.children ?? []) as typeof nodes));
  }
  return ids.sort((a, b) => a - b);
}

/**
 * The parts of the shared database that the statistics and the hierarchy depend on and that
 * other test files change at the same time: the directory version (every tree change and every
 * counted field) and the units and departments, their number and latest change (the factory
 * inserts those, and the reference endpoints change them, without it).
 */
export async function countedState(db: Db): Promise<string> {
  const state = await db('directory_state').where({ id: 1 }).first('version');
  const [units] = await db('units').count({ n: '*' }).max({ at: 'updated_at' });
  const [departments] = await db('departments').count({ n: '*' }).max({ at: 'updated_at' });
  return JSON.stringify([state.version, units, departments]);
}
