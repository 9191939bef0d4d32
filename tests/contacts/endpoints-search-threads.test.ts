import request from 'supertest';
import { bearer, createUnit, createUser, unique } from '../helpers/factory';
import { searchSuite } from './search-suite';

// the in-memory index as endpoints-search.test.ts runs it, with every term walked on a walk
// thread (search/walkers.ts): a directory of any size, not only from SEARCH_THREADS_FROM on
const ctx = searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '0', SEARCH_THREADS: '1', SEARCH_THREADS_FROM: '0', METRICS_ENABLED: 'true' });

const counted = async (name: string, label: string) => {
  const text = (await request(ctx.app).get('/metrics')).text;
  return Number(new RegExp(`^${name}\\{${label}\\} (\\d+)$`, 'm').exec(text)?.[1]);
};
const kept = () => counted('directory_search_walks_kept_total', 'on="thread"');
const builds = () => counted('directory_search_index_builds_total', 'result="success"');

test('a term asked again over the same snapshot is answered from the walk the thread kept, with the same body; another filter is walked', async () => {
  const unit = await createUnit(ctx);
  const tag = unique('kept').toLowerCase();
  const reader = await createUser(ctx, { unit_id: unit.id, name: `Reader ${tag}` });
  await createUser(ctx, { unit_id: unit.id, name: `Other ${tag}` });
  const list = (query: string) => request(ctx.app).get(`/api/contacts?search=${tag}${query}`).set(bearer(reader));
  const first = await list('');
  expect(first.status).toBe(200);
  expect(first.body.data.statistics.total_contacts).toBe(2);
  const [keptBefore, buildsBefore] = [await kept(), await builds()];
  const again = await list('');
  expect(again.body.data).toEqual(first.body.data);
  // on MySQL another file's write may bring a new snapshot in between: then nothing was kept over it (on SQLite never)
  const keptAgain = (await builds()) === buildsBefore ? 1 : 0;
  expect(await kept()).toBe(keptBefore + keptAgain);
  expect((await list('&role_filter=admin')).body.data.statistics.total_contacts).toBe(0);
  expect(await kept()).toBe(keptBefore + keptAgain);
});

// after the suite's tests (jest runs a file's tests in the order they are declared): the suite
// proved the answers, this proves that a walk thread gave them, not the fallback in the service
test("every walk of the suite ran on the walk thread, none in the service's thread", async () => {
  expect(await counted('directory_search_walks_total', 'on="thread"')).toBeGreaterThan(50);
  expect(await counted('directory_search_walks_total', 'on="service"')).toBe(0);
  expect(await counted('directory_search_walks_kept_total', 'on="service"')).toBe(0);
});
