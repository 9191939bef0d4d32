import request from 'supertest';
import { searchSuite } from './search-suite';

// the in-memory index as endpoints-search.test.ts runs it, with every term walked on a walk
// thread (search/walkers.ts): a directory of any size, not only from SEARCH_THREADS_FROM on
const ctx = searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '0', SEARCH_THREADS: '1', SEARCH_THREADS_FROM: '0', METRICS_ENABLED: 'true' });

// after the suite's tests (jest runs a file's tests in the order they are declared): the suite
// proved the answers, this proves that a walk thread gave them, not the fallback in the service
test("every walk of the suite ran on the walk thread, none in the service's thread", async () => {
  const text = (await request(ctx.app).get('/metrics')).text;
  const walks = (on: string) => Number(new RegExp(`^directory_search_walks_total\\{on="${on}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
  expect(walks('thread')).toBeGreaterThan(50);
  expect(walks('service')).toBe(0);
});
