import { ConfigError, loadConfig } from '../../src/config';
import { DEFAULT_RETRY_SCHEDULE } from '../../src/modules/webhooks';
import { subscribes } from '../../src/modules/webhooks/webhook.events';
import { nextAttemptAt } from '../../src/modules/webhooks/webhook.settings';
import { isPublicAddress, rangeOf } from '../../src/modules/webhooks/webhook.targets';

/**
 * The rules of webhooks that need no database: the retry schedule (its default covers more than
 * 24 hours, the jitter stays within ±20%, the end of the schedule is the end), the settings'
 * checks, event patterns, and which addresses count as public.
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
  ])('refuses %s (%s)', (address, range) => {
    expect(rangeOf(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});
