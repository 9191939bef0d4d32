import type { Knex } from 'knex';
import { writeRows } from '../../../lib/db';
import { TimeSlices } from '../../../lib/yield';
import { ROLE_ID } from '../../access';
import { addToSearchBacklog } from './backlog';
import { noteChanges } from './changes.writer';
import { changeStamp, markSearchChanged } from './tree/lock';
import { TreeOrder } from './tree/order';
import type { ContactInsert } from './contact.writer';
import { NewIds, NewPlaces, TOP, UNDER_CONTACT, UNDER_NEW } from './new-contacts';

/** A new contact of a forest: its parent is a contact already in the directory, another new one (by service number), or none. */
export interface ForestContact extends Omit<ContactInsert, 'parent_id'> {
  parent: { id: number } | { serviceNo: string } | null;
}

/**
 * A forest of many new contacts (an import's): their places (parents resolved, sort names),
 * and each contact's fields, made only when its row is inserted.
 */
export interface NewForest {
  places: NewPlaces;
  contactAt(k: number): Omit<ContactInsert, 'parent_id'>;
}

/** Rows per INSERT of contacts (bulkInsert splits it further): the objects of one chunk at a time. */
const INSERT_ROWS = 2000;

/**
 * Inserts many new contacts at once, in a transaction that holds the directory lock
 * (changeDirectory). The caller has checked every rule a single create checks: unique e-mails
 * and service numbers, references, and parents that are active contacts of the same unit or
 * new contacts of the forest, with no cycle among them.
 *
 * The rows go in with their final order keys: each new subtree is labelled in memory
 * (TreeOrder.labelsForNew, one gap per group of siblings), then inserted a level at a time, so
 * a row's parent has its id before the row is written, and siblings get ids in their order.
 * The tree is numbers by index (children as ranges of one array, the pre-order, labels and
 * levels), and a row's fields are made only for the chunk it is inserted with: 100,000 new
 * contacts are not an object each at once (docs/performance.md, "An import's memory").
 * Their search grams are left to the search backlog (backlog.ts), written after the commit;
 * the search version changes once. Each is noted `created` for the change feed (changes.writer.ts).
 * Returns the new ids, by index and by service number.
 */
export async function insertContactForest(trx: Knex.Transaction, contacts: readonly ForestContact[] | NewForest): Promise<NewIds> {
  const { places, contactAt } = 'places' in contacts ? contacts : await forestOf(contacts);
  const n = places.count;
  const ids = new NewIds(places);
  if (n === 0) return ids;
  // 100,000 contacts take a second or more of work here: in slices that let other requests run
  const slices = new TimeSlices();

  // the children of new contact k: children[childStart[k] .. childStart[k + 1]), in sibling order
  const childStart = new Int32Array(n + 1);
  const rootsByParent = new Map<number | null, number[]>();
  for (let k = 0; k < n; k++) {
    const kind = places.kind[k];
    if (kind === UNDER_NEW) childStart[places.parent[k] + 1]++;
    else if (kind === TOP || kind === UNDER_CONTACT) {
      const key = kind === TOP ? null : places.parent[k];
      const roots = rootsByParent.get(key);
      if (roots) roots.push(k);
      else rootsByParent.set(key, [k]);
    } else throw new Error(`forest: the parent of ${places.serviceNo(k)} is not in the forest`);
  }
  for (let k = 0; k < n; k++) childStart[k + 1] += childStart[k];
  const children = new Int32Array(n);
  const filled = childStart.slice(0, n);
  for (let k = 0; k < n; k++) if (places.kind[k] === UNDER_NEW) children[filled[places.parent[k]]++] = k;
  for (let k = 0; k < n; k++) {
    if (childStart[k + 1] - childStart[k] > 1) children.subarray(childStart[k], childStart[k + 1]).sort(places.siblingOrder);
    if (slices.due()) await slices.pause();
  }

  // labels and depths, one gap group per parent already in the directory; `level`: below the root of its new subtree
  const tree = new TreeOrder(trx);
  const level = new Int32Array(n);
  const depth = new Int32Array(n);
  const label = new Float64Array(n);
  const preorder = new Int32Array(n);
  for (const [parentId, roots] of rootsByParent) {
    roots.sort(places.siblingOrder);
    const sizes: number[] = [];
    const stack: number[] = [];
    let placed = 0;
    for (const root of roots) {
      const first = placed;
      stack.push(root);
      while (stack.length > 0) {
        const k = stack.pop()!;
        preorder[placed++] = k;
        for (let c = childStart[k + 1] - 1; c >= childStart[k]; c--) {
          level[children[c]] = level[k] + 1;
          stack.push(children[c]);
        }
      }
      sizes.push(placed - first);
      if (slices.due()) await slices.pause();
    }
    const labelled = await tree.labelsForNew(parentId, { length: roots.length, sortName: (s) => places.sortName(roots[s]), rows: (s) => sizes[s] });
    for (let i = 0; i < placed; i++) {
      const k = preorder[i];
      label[k] = labelled.tree_ord[i];
      depth[k] = labelled.depth + level[k];
    }
  }

  // a level at a time, each in label order
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) order[k] = k;
  order.sort((a, b) => level[a] - level[b] || label[a] - label[b]);
  const now = new Date();
  const stamp = changeStamp(trx);
  for (let at = 0; at < n; ) {
    let end = at + 1;
    while (end < n && end - at < INSERT_ROWS && level[order[end]] === level[order[at]]) end++;
    const rows: Array<Record<string, unknown>> = [];
    for (let i = at; i < end; i++) {
      const k = order[i];
      const kind = places.kind[k];
      const parentId = kind === TOP ? null : kind === UNDER_CONTACT ? places.parent[k] : ids.ids[places.parent[k]];
      rows.push(rowOf(contactAt(k), places.sortName(k), parentId, label[k], depth[k], now, stamp));
      if (slices.due()) await slices.pause();
    }
    await writeRows(trx, 'users', rows);
    const written = await trx('users').whereIn('service_no', rows.map((r) => r.service_no as string)).select('id', 'service_no');
    const created: Array<{ id: number; organization_id: number }> = [];
    for (const r of written) {
      const k = places.indexOf(String(r.service_no))!;
      ids.ids[k] = Number(r.id);
      created.push({ id: Number(r.id), organization_id: places.organization[k] || 1 });
    }
    await addToSearchBacklog(trx, created.map((c) => c.id));
    // one row each in the change feed, written with the others of the change (lockedChange)
    noteChanges(trx, 'created', created);
    at = end;
  }
  markSearchChanged(trx);
  return ids;
}

/** The forest of contacts given as objects (a test's, a few): their places noted, each contact as it is. */
async function forestOf(contacts: readonly ForestContact[]): Promise<NewForest> {
  const places = new NewPlaces(contacts.length);
  contacts.forEach((contact, k) => places.note({ ref: k, contact, parent: contact.parent }));
  await places.resolve();
  return { places, contactAt: (k) => contacts[k] };
}

function rowOf(
  c: Omit<ContactInsert, 'parent_id'>,
  sortName: string,
  parentId: number | null,
  treeOrd: number,
  depth: number,
  now: Date,
  stamp: number,
): Record<string, unknown> {
  return {
    name: c.name,
    sort_name: sortName,
    email: c.email,
    service_no: c.service_no,
    password_hash: c.password_hash ?? null,
    phone: c.phone ?? null,
    mobile: c.mobile ?? null,
    alternative_mobile: c.alternative_mobile ?? null,
    rank_id: c.rank_id ?? null,
    unit_id: c.unit_id,
    department_id: c.department_id ?? null,
    designation_id: c.designation_id,
    parent_id: parentId,
    role_id: c.role_id ?? ROLE_ID.user,
    organization_id: c.organization_id ?? 1,
    status: c.status ?? 'offline',
    tree_ord: treeOrd,
    change_version: stamp,
    depth,
    is_active: true,
    created_at: now,
    updated_at: now,
  };
}
