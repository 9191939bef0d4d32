import { TtlCache } from '../../src/lib/cache';

describe('TtlCache', () => {
  test('reuses a value until it expires, then computes it again', async () => {
    let now = 1000;
    const cache = new TtlCache<number>(500, 10, () => now);
    let computed = 0;
    const compute = async () => ++computed;
    expect(await cache.get('k', compute)).toBe(1);
    now += 499;
    expect(await cache.get('k', compute)).toBe(1);
    now += 1;
    expect(await cache.get('k', compute)).toBe(2);
  });

  test('callers of a key being computed share the one computation', async () => {
    const cache = new TtlCache<number>(1000);
    let computed = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const compute = async () => {
      computed++;
      await gate;
      return 42;
    };
    const all = Promise.all([cache.get('k', compute), cache.get('k', compute), cache.get('k', compute)]);
    release();
    expect(await all).toEqual([42, 42, 42]);
    expect(computed).toBe(1);
  });

  test('does not keep a failed computation', async () => {
    const cache = new TtlCache<number>(1000);
    await expect(cache.get('k', async () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    expect(await cache.get('k', async () => 7)).toBe(7);
  });

  test('with a time to live of 0 computes every time', async () => {
    const cache = new TtlCache<number>(0);
    let computed = 0;
    await cache.get('k', async () => ++computed);
    await cache.get('k', async () => ++computed);
    expect(computed).toBe(2);
  });

  test('keeps at most `max` keys', async () => {
    let now = 0;
    const cache = new TtlCache<number>(1000, 2, () => now);
    let computed = 0;
    const compute = async () => ++computed;
    await cache.get('a', compute);
    await cache.get('b', compute);
    await cache.get('c', compute); // evicts the oldest, a
    now += 1;
    await cache.get('a', compute);
    expect(computed).toBe(4);
  });
});
