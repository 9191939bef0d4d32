import type { Db } from '../src/lib/db';
import { pick } from './demo-data';
import { loadGenerated } from './demo-load';
import { demoOrganizations } from './demo-security';
import { Progress } from './progress';

const DAY = 86_400_000;

/** Actions in the proportions an admin team makes them, with the changes each records. */
const ACTIONS: Array<[weight: number, action: string, changes: (r: () => number) => object]> = [
  [40, 'contact.update', (r) => ({ phone: [`0171${Math.floor(r() * 1e7)}`, `0181${Math.floor(r() * 1e7)}`] })],
  [25, 'contact.move', (r) => ({ parent_id: [Math.floor(r() * 100_000) + 1, Math.floor(r() * 100_000) + 1] })],
  [15, 'contact.create', () => ({ name: [null, 'Demo Contact'] })],
  [10, 'contact.delete', () => ({ is_active: [true, false] })],
  [5, 'contact.password_reset', () => ({})],
  [5, 'unit.update', () => ({ name: ['Old Unit', 'New Unit'] })],
];
const TOTAL_WEIGHT = ACTIONS.reduce((sum, [w]) => sum + w, 0);

/**
 * A year of audit entries, for the audit list at scale (`--audit-events N`): spread over the
 * three demo organizations, made by a few hundred admins, about the directory's contacts, each
 * with its row in audit_event_targets as the service writes them.
 */
export async function seedAuditEvents(db: Db, count: number, random: () => number): Promise<void> {
  // organization 1 too: the bench reads the trail as its Admin as well
  const organizations = [1, ...(await demoOrganizations(db))];
  const actors = (await db('users').orderBy('id').limit(300).pluck('id')).map(Number);
  const contacts = (await db('users').orderBy('id').limit(100_000).pluck('id')).map(Number);
  const agents = ['Mozilla/5.0 (Windows NT 10.0; Win64; x64)', 'Mozilla/5.0 (X11; Linux x86_64)', 'PostmanRuntime/7.39.0'];
  const firstId = Number((await db('audit_events').max({ id: 'id' }))[0].id ?? 0) + 1;
  const start = Date.now() - 365 * DAY;
  const step = (365 * DAY) / Math.max(1, count);
  const targetOf = (i: number) => contacts[(i * 7919) % contacts.length];
  const event = (i: number) => {
    let roll = random() * TOTAL_WEIGHT;
    const [, action, changes] = ACTIONS.find(([w]) => (roll -= w) < 0) ?? ACTIONS[0];
    const unit = action.startsWith('unit.');
    return {
      id: firstId + i,
      at: new Date(Math.floor(start + i * step)),
      actor_id: pick(random, actors),
      actor_role: random() < 0.8 ? 'Admin' : 'Super_admin',
      organization_id: pick(random, organizations),
      action,
      target_type: unit ? 'unit' : 'contact',
      target_id: unit ? 1 : targetOf(i),
      changes: JSON.stringify(changes(random)),
      details: null,
      request_id: `demo-${i.toString(36)}`,
      ip_address: `10.0.${Math.floor(random() * 256)}.${Math.floor(random() * 254) + 1}`,
      user_agent: pick(random, agents),
    };
  };
  const columns = [
    'id', 'at', 'actor_id', 'actor_role', 'organization_id', 'action', 'target_type', 'target_id', 'changes', 'details', 'request_id', 'ip_address', 'user_agent',
  ] as const;
  // in the order they happened: the indexes on time grow at their end instead of at random
  await loadGenerated(db, 'audit_events', columns, count, event, new Progress('audit events', count));
  const target = (i: number) => ({ event_id: firstId + i, target_type: 'contact', target_id: targetOf(i) });
  await loadGenerated(db, 'audit_event_targets', ['event_id', 'target_type', 'target_id'] as const, count, target, new Progress('audit targets', count));
}
