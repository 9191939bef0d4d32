import type { Db } from '../src/lib/db';
import { pick } from './demo-data';
import { loadGenerated } from './demo-load';
import { Progress } from './progress';

const DAY = 86_400_000;

/** The three demo organizations, made when missing. */
export async function demoOrganizations(db: Db): Promise<number[]> {
  const organizations: number[] = [];
  for (let i = 1; i <= 3; i++) {
    const name = `Demo Organization ${i}`;
    const existing = await db('organizations').where({ name }).first('id');
    if (existing) organizations.push(Number(existing.id));
    else {
      const [id] = await db('organizations').insert({ name, code: `DEMO${i}`, created_at: new Date(), updated_at: new Date() });
      organizations.push(Number(id));
    }
  }
  return organizations;
}

/**
 * A year of failed sign-ins, for the security lists at scale: spread over three demo
 * organizations and the null organization (unknown identifiers), with a few identifiers and
 * IP addresses under sustained attack, and the reasons sign-in records.
 */
export async function seedFailedLogins(db: Db, count: number, random: () => number): Promise<void> {
  const now = Date.now();
  const organizations = await demoOrganizations(db);
  const known = (await db('users').orderBy('id').limit(5000).pluck('email')).map(String);
  const attacked = known.slice(0, 20);
  const attackers = Array.from({ length: 25 }, (_, i) => `203.0.113.${i + 1}`);
  const agents = ['Mozilla/5.0 (Windows NT 10.0; Win64; x64)', 'Mozilla/5.0 (X11; Linux x86_64)', 'python-requests/2.31', 'curl/8.4.0'];
  const progress = new Progress('failed logins', count);
  // in the order they happened: the indexes on time grow at their end instead of at random
  const start = now - 365 * DAY;
  const step = (365 * DAY) / Math.max(1, count);
  const record = (i: number) => {
    const attack = random() < 0.3;
    const unknown = !attack && random() < 0.25;
    return {
      login_id: attack ? pick(random, attacked) : unknown ? `guess${Math.floor(random() * 50000)}@example.net` : pick(random, known),
      organization_id: unknown ? null : pick(random, organizations),
      ip_address: attack ? pick(random, attackers) : `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 254) + 1}`,
      user_agent: pick(random, agents),
      attempted_at: new Date(Math.floor(start + i * step)),
      reason: unknown ? 'User not found' : random() < 0.05 ? 'Account is deactivated' : 'Invalid password',
    };
  };
  const columns = ['login_id', 'organization_id', 'ip_address', 'user_agent', 'attempted_at', 'reason'] as const;
  await loadGenerated(db, 'failed_login_attempts', columns, count, record, progress);
}
