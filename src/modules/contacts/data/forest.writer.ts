import type { Knex } from 'knex';
import { chunks } from '../../../lib/chunks';
import { writeRows } from '../../../lib/db';
import { TimeSlices } from '../../../lib/yield';
import { compareCodePoints } from '../../../lib/text';
import { ROLE_ID } from '../../access';
import { addToSearchBacklog } from './backlog';
import { noteChanges } from './changes.writer';
import { changeStamp, markSearchChanged } from './tree/lock';
import { sortNameOf } from './tree/keys';
import { TreeOrder } from './tree/order';
import type { ContactInsert } from './contact.writer';

/** A new contact of a forest: its parent is a contact already in the directory, another new one (by service number), or none. */
export interface ForestContact extends Omit<ContactInsert, 'parent_id'> {
  parent: { id: number } | { serviceNo: string } | null;
}

/** Rows per INSERT of contacts (bulkInsert splits it further). */
const INSERT_ROWS = 5000;

interface Node {
  index: number;
  contact: ForestContact;
  sortName: string;
  children: Node[];
  /** levels below the root of its new subtree */
  level: number;
}

/**
 * Inserts many new contacts at once, in a transaction that holds the directory lock
 * (changeDirectory). The caller has checked every rule a single create checks: unique e-mails
 * and service numbers, references, and parents that are active contacts of the same unit or
 * new contacts of the forest, with no cycle among them.
 *
 * The rows go in with their final order keys: each new subtree is labelled in memory
 * (TreeOrder.labelsForNew, one gap per group of siblings), then inserted a level at a time, so
 * a row's parent has its id before the row is written, and siblings get ids in their order.
 * Their search grams are left to the search backlog (backlog.ts), written after the commit;
 * the search version changes once. Each is noted `created` for the change feed (changes.writer.ts).
 * Returns the new ids by service number.
 */
export async function insertContactForest(trx: Knex.Transaction, contacts: readonly ForestContact[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (contacts.length === 0) return ids;
  // 100,000 contacts take a second or more of work here: in slices that let other requests run
  const slices = new TimeSlices();
  const nodes: Node[] = [];
  const byServiceNo = new Map<string, Node>();
  for (const [index, contact] of contacts.entries()) {
    const node = { index, contact, sortName: sortNameOf(contact.name), children: [], level: 0 };
    nodes.push(node);
    byServiceNo.set(contact.service_no, node);
    if (slices.due()) await slices.pause();
  }
  const rootsByParent = new Map<number | null, Node[]>();
  for (const node of nodes) {
    if (slices.due()) await slices.pause();
    const parent = node.contact.parent;
    if (parent && 'serviceNo' in parent) {
      const p = byServiceNo.get(parent.serviceNo);
      if (!p) throw new Error(`forest: parent ${parent.serviceNo} is not in the forest`);
      p.children.push(node);
    } else {
      const key = parent ? parent.id : null;
      const list = rootsByParent.get(key) ?? [];
      list.push(node);
      rootsByParent.set(key, list);
    }
  }
  const bySiblingOrder = (a: Node, b: Node) => compareCodePoints(a.sortName, b.sortName) || a.index - b.index;

  // labels and depths, one gap group per parent already in the directory
  const tree = new TreeOrder(trx);
  const labels = new Map<number, { tree_ord: number; depth: number }>();
  for (const [parentId, roots] of rootsByParent) {
    roots.sort(bySiblingOrder);
    const subtrees: Array<{ sortName: string; rows: Array<{ key: number; depth: number }> }> = [];
    for (const root of roots) {
      subtrees.push({ sortName: root.sortName, rows: preorder(root, bySiblingOrder) });
      if (slices.due()) await slices.pause();
    }
    for (const [key, label] of await tree.labelsForNew(parentId, subtrees)) labels.set(key, label);
  }

  // a level at a time, each in label order
  const levels: Node[][] = [];
  for (const node of nodes) (levels[node.level] ??= []).push(node);
  const now = new Date();
  const stamp = changeStamp(trx);
  for (const level of levels) {
    level.sort((a, b) => labels.get(a.index)!.tree_ord - labels.get(b.index)!.tree_ord);
    for (const chunk of chunks(level, INSERT_ROWS)) {
      const rows: Array<Record<string, unknown>> = [];
      for (const n of chunk) {
        rows.push(rowOf(n, labels.get(n.index)!, ids, now, stamp));
        if (slices.due()) await slices.pause();
      }
      await writeRows(trx, 'users', rows);
      const written = await trx('users').whereIn('service_no', chunk.map((n) => n.contact.service_no)).select('id', 'service_no');
      for (const r of written) ids.set(String(r.service_no), Number(r.id));
    }
  }

  await addToSearchBacklog(trx, [...ids.values()]);
  markSearchChanged(trx);
  // one row each in the change feed, written with the others of the change (lockedChange)
  const created: Array<{ id: number; organization_id: number }> = [];
  for (const c of contacts) {
    created.push({ id: ids.get(c.service_no)!, organization_id: c.organization_id ?? 1 });
    if (slices.due()) await slices.pause();
  }
  noteChanges(trx, 'created', created);
  return ids;
}

/** The subtree of `root` in pre-order, each row keyed by its node's index, levels set on the nodes. */
function preorder(root: Node, order: (a: Node, b: Node) => number): Array<{ key: number; depth: number }> {
  const rows: Array<{ key: number; depth: number }> = [];
  const stack: Array<{ node: Node; depth: number }> = [{ node: root, depth: 0 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    node.level = depth;
    rows.push({ key: node.index, depth });
    node.children.sort(order);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push({ node: node.children[i], depth: depth + 1 });
  }
  return rows;
}

function rowOf(node: Node, label: { tree_ord: number; depth: number }, ids: ReadonlyMap<string, number>, now: Date, stamp: number): Record<string, unknown> {
  const { parent, ...c } = node.contact;
  const parentId = parent === null ? null : 'id' in parent ? parent.id : ids.get(parent.serviceNo)!;
  return {
    name: c.name,
    sort_name: node.sortName,
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
    tree_ord: label.tree_ord,
    change_version: stamp,
    depth: label.depth,
    is_active: true,
    created_at: now,
    updated_at: now,
  };
}
