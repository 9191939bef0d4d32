import dnsPromises from 'node:dns/promises';
import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_RETRY_SCHEDULE } from '../../src/modules/webhooks';
import { subscribes } from '../../src/modules/webhooks/webhook.events';
import { nextAttemptAt } from '../../src/modules/webhooks/webhook.settings';
import { sendOnce } from '../../src/modules/webhooks/webhook.sender';
import { checkTarget, isPublicAddress, rangeOf } from '../../src/modules/webhooks/webhook.targets';

/**
 * The rules of webhooks that need no database: the retry schedule (its default covers more than
 * 24 hours, the jitter stays within ±20%, the end of the schedule is the end), the settings'
 * checks, event patterns, which addresses count as public, and how long a name's lookup may
 * take (a resolver that does not answer stands in for a slow one).
 */

describe('retry schedule', () => {
  it('defaults to the Standard Webhooks schedule, which retries for more than 24 hours', () => {
    const config = loadConfig({});
    expect(config.webhooks.retrySchedule).toEqual(DEFAULT_RETRY_SCHEDULE);
    expect(DEFAULT_RETRY_SCHEDULE.reduce((a, b) => a + b, 0)).toBeGreaterThan(24 * 3600);
    expect(config.webhooks).toMatchObject({ disableAfterDays: 5, allowPrivate: false, pollMs: 1000, timeoutMs: 10_000 });
  });

  it('reads a schedule of seconds, decimals allowed, and refuses anything else with the key named', () => {
    expect(loadConfig({ WEBHOOK_RETRY_SCHEDULE: '0.5, 2,10' }).webhooks.retrySchedule).toEqual([0.5, 2, 10]);
    for (const bad of ['5,,10', 'a', '-1', '5;10', '700000']) {
      expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ WEBHOOK_DISABLE_AFTER_DAYS: '-1' })).toThrow(/WEBHOOK_DISABLE_AFTER_DAYS/);
    expect(() => loadConfig({ WEBHOOKS_ALLOW_PRIVATE: 'yes' })).toThrow(/WEBHOOKS_ALLOW_PRIVATE/);
  });

  it('waits the schedule\'s time after each failed attempt, jittered within 20%, and ends with it', () => {
    const now = new Date(0);
    expect(nextAttemptAt([5, 300], 1, now, () => 0)!.getTime()).toBe(4000);
    expect(nextAttemptAt([5, 300], 1, now, () => 1)!.getTime()).toBe(6000);
    expect(nextAttemptAt([5, 300], 2, now, () => 0.5)!.getTime()).toBe(300_000);
    expect(nextAttemptAt([5, 300], 3, now)).toBeNull();
  });
});

describe('event patterns', () => {
  it('matches an exact type and contact.*, nothing else', () => {
    expect(subscribes(['contact.moved'], 'contact.moved')).toBe(true);
    expect(subscribes(['contact.moved'], 'contact.created')).toBe(false);
    expect(subscribes(['contact.*'], 'contact.deleted')).toBe(true);
    expect(subscribes(['contact.*'], 'webhook.test')).toBe(false);
  });
});

describe('public addresses', () => {
  it.each([
    ['127.0.0.1', 'loopback'], ['::1', 'loopback'], ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'], ['fe80::1', 'linkLocal'], ['fd12::1', 'uniqueLocal'], ['0.0.0.0', 'unspecified'], ['::', 'unspecified'],
    ['224.0.0.251', 'multicast'], ['ff02::1', 'multicast'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'], ['255.255.255.255', 'broadcast'],
    // what ipaddr.js 1.9.1 calls unicast and is not: the list in webhook.targets.ts
    ['198.18.0.1', 'benchmarking'], ['198.19.255.254', 'benchmarking'], ['64:ff9b:1::a00:1', 'localNat64'], ['fec0::1', 'siteLocal'],
    ['::7f00:1', 'ipv4Compatible'], ['::a00:1', 'ipv4Compatible'], ['100::1', 'discardOnly'], ['2001:2::1', 'ietfProtocolAssignments'],
    ['3fff::1', 'documentation'], ['5f00::1', 'segmentRouting'],
    // the special ranges ipaddr.js knows
    ['192.0.0.8', 'reserved'], ['192.0.2.1', 'reserved'], ['198.51.100.1', 'reserved'], ['203.0.113.1', 'reserved'], ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'], ['64:ff9b::a00:1', 'rfc6052'], ['2001::1', 'teredo'], ['2002:a00:1::1', '6to4'], ['2002:5db8:d70e::1', '6to4'],
  ])('refuses %s (%s)', (address, range) => {
    expect(rangeOf(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '198.20.0.1', '198.17.255.254', '2001:4860:4860::8888', '64:ff9b:2::1'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('name lookups', () => {
  /** A resolver that answers only after `ms` (a public address), as a slow one does; how many lookups it was asked at most at once. */
  function slowResolver(ms: number) {
    const stats = { running: 0, most: 0, calls: 0 };
    const spy = jest.spyOn(dnsPromises, 'lookup').mockImplementation((() => {
      stats.calls++;
      stats.most = Math.max(stats.most, ++stats.running);
      return new Promise((resolve) => setTimeout(() => {
        stats.running--;
        resolve([{ address: '93.184.215.14', family: 4 }]);
      }, ms));
    }) as unknown as typeof dnsPromises.lookup);
    return { stats, done: async () => {
      await new Promise((resolve) => setTimeout(resolve, ms + 50));
      spy.mockRestore();
    } };
  }

  const delivery = { event_id: 'msg_dns_1', payload: '{}' };
  const within = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<'still waiting'>((resolve) => setTimeout(() => resolve('still waiting'), ms))]);

  it('bounds a lookup by the attempt\'s time-out and counts it in the attempt\'s duration', async () => {
    const resolver = slowResolver(1500);
    try {
      const outcome = await within(sendOnce('https://slow.example/hook', delivery, ['whsec_AAAA'], { timeoutMs: 200, allowPrivate: false }), 1000);
      expect(outcome).toMatchObject({ ok: false, responseCode: null, error: 'DNS lookup timed out after 200 ms' });
      expect((outcome as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(195);
    } finally {
      await resolver.done();
    }
  });

  it('keeps at most two lookups on the thread pool while the resolver is slow: the others wait within their own time-out', async () => {
    const resolver = slowResolver(800);
    try {
      const outcomes = await within(Promise.all(Array.from({ length: 6 }, () => sendOnce('https://slow.example/hook', delivery, ['whsec_AAAA'], { timeoutMs: 200, allowPrivate: false }))), 1000);
      expect(outcomes).not.toBe('still waiting');
      for (const o of outcomes as Array<{ error: string }>) expect(o.error).toBe('DNS lookup timed out after 200 ms');
      expect(resolver.stats.most).toBeLessThanOrEqual(2);
    } finally {
      await resolver.done();
    }
  });

  it('refuses a webhook whose name does not resolve within the time-out (400 on url)', async () => {
    const resolver = slowResolver(800);
    try {
      await expect(within(checkTarget('https://slow.example/hook', false, 200), 600)).rejects.toMatchObject({ status: 400 });
    } finally {
      await resolver.done();
    }
  });
});
