import type { Db } from '../src/lib/db';
import { unfilteredListCursor } from '../src/modules/contacts';

export interface Targets {
  contactIds: number[];
  deepPage: number;
  /** the listing's cursor (default filters) where page `deepPage` of 100 starts: as deep, by cursor (docs/api.md, Paging) */
  deepCursor: string;
  searchTerms: string[];
  largestUnitId: number;
  largestUnitSize: number;
  wideNodeId: number;
  wideNodeChildren: number;
  moveUnitSize: number;
  moveLeaves: number[];
  moveParents: number[];
  failedLogins: number;
  /** SCIM's Users: contacts of organization 1 (the bench's SCIM token's), by e-mail and by id */
  scimEmails: string[];
  scimIds: number[];
}

/**
 * What the benchmark asks for, read from the data: random contacts, a flat page half-way
 * through the directory, the largest unit, the widest node, and contacts to move around in a
 * typical (median-sized) unit: leaves moved under other contacts of their unit.
 */
export async function pickTargets(db: Db): Promise<Targets> {
  const [{ n }] = await db('users').where({ is_active: true }).count({ n: '*' });
  const active = Number(n);
  const contactIds = (await db('users').where({ is_active: true }).orderByRaw('(id * 2654435761) % 1000003').limit(2000).pluck('id')).map(Number);
  const units = await db('users').where({ is_active: true }).groupBy('unit_id').select('unit_id', db.raw('COUNT(*) as n')).orderBy('n', 'desc');
  const largest = units[0];
  const median = units[Math.floor(units.length / 2)];
  const wide = await db('users')
    .where({ is_active: true })
    .whereNotNull('parent_id')
    .groupBy('parent_id')
    .select('parent_id', db.raw('COUNT(*) as n'))
    .orderBy('n', 'desc')
    .first();
  const moveUnit = Number(median.unit_id);
  const leaves = (
    await db('users as u')
      .where({ 'u.unit_id': moveUnit, 'u.is_active': true })
      .whereNotExists((q) => q.select('c.id').from('users as c').whereRaw('c.parent_id = u.id'))
      .limit(400)
      .pluck('u.id')
  ).map(Number);
  const leafSet = new Set(leaves);
  const parents = (await db('users').where({ unit_id: moveUnit, is_active: true }).limit(400).pluck('id'))
    .map(Number)
    .filter((id) => !leafSet.has(id));
  // what people type into a search box: 4 to 7 characters of someone's name, e-mail, service
  // number or phone, taken from 2,000 random contacts (each request draws one at random, so
  // about half the requests of a 10-second scenario ask a term again: the walks kept over the
  // index answer those, SEARCH_KEPT_WALKS_MB; with SEARCH_KEPT_WALKS_MB=0 every term is walked)
  const sample = await db('users').whereIn('id', contactIds).select('name', 'email', 'service_no', 'phone');
  const searchTerms = sample.map((row, i) => {
    const field = [row.name, row.name, String(row.email).split('@')[0], row.service_no, row.phone][i % 5] as string;
    const length = 4 + (i % 4);
    const start = Math.max(0, (i * 7919) % Math.max(1, field.length - length));
    return field.slice(start, start + length).trim();
  }).filter((term) => Array.from(term).length >= 2);
  const [{ f }] = await db('failed_login_attempts').count({ f: '*' });
  const scim = await db('users').whereIn('id', contactIds).where({ organization_id: 1 }).select('id', 'email');
  const deepPage = Math.max(1, Math.floor(active / 200));
  const before = await db('users').where({ is_active: true }).orderBy('tree_ord').offset(Math.max(0, (deepPage - 1) * 100 - 1)).first('id', 'tree_ord');
  return {
    scimEmails: scim.map((r) => String(r.email)),
    scimIds: scim.map((r) => Number(r.id)),
    contactIds,
    deepPage,
    deepCursor: unfilteredListCursor(Number(before.id), Number(before.tree_ord)),
    searchTerms,
    largestUnitId: Number(largest.unit_id),
    largestUnitSize: Number(largest.n),
    wideNodeId: Number(wide.parent_id),
    wideNodeChildren: Number(wide.n),
    moveUnitSize: Number(median.n),
    moveLeaves: leaves,
    moveParents: parents.length > 0 ? parents : leaves,
    failedLogins: Number(f),
  };
}
