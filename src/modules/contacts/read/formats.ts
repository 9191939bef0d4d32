import type { Queryable } from '../../../lib/db';
import { lineageOf, type AncestorRow } from '../data/tree/lineage';
import type { Contact } from '../domain/contact.record';

/**
 * The three shapes of a list of contacts (docs/api.md, Contacts), built from rows already in the
 * directory's pre-order. One pass over a Map; no recursion, so depth is not limited by the
 * call stack.
 */

export type Format = 'tree' | 'flat' | 'hierarchical';
export const FORMATS: readonly Format[] = ['tree', 'flat', 'hierarchical'];

/** What a create's or a move's `data.tree` holds: the contact's branch (the default), or its unit's whole tree. */
export type TreeScope = 'contact' | 'unit';
export const TREE_SCOPES: readonly TreeScope[] = ['contact', 'unit'];

interface TreeItem {
  id: number;
  parent_id: number | null;
}

export type Nested<T> = T & { children: Nested<T>[] };

/**
 * Nests items (in pre-order) under their parents. An item whose parent is not among them
 * stays at the top level; its parent_id lets a client attach it.
 */
export function nest<T extends TreeItem>(items: readonly T[]): Nested<T>[] {
  const byId = new Map<number, Nested<T>>();
  const top: Nested<T>[] = [];
  for (const item of items) {
    // the items become the nodes (no copy: they are made for this response)
    const node = Object.assign(item, { children: [] }) as Nested<T>;
    byId.set(item.id, node);
    const parent = item.parent_id === null ? undefined : byId.get(item.parent_id);
    if (parent) parent.children.push(node);
    else top.push(node);
  }
  return top;
}

/**
 * A contact where it stands, as one nested branch: its ancestors (`ancestors`, its parent first)
 * from the top down, each with one child, the next, and at the end the contact with its subtree
 * (`subtree`: the contact first, then descendants in pre-order). A descendant whose parent is
 * not among them (below an inactive contact) is left out. No items: no branch.
 */
export function nestBranch<T extends TreeItem>(ancestors: readonly T[], subtree: readonly T[]): Nested<T>[] {
  if (subtree.length === 0) return [];
  const byId = new Map<number, Nested<T>>();
  let head = Object.assign(subtree[0], { children: [] }) as Nested<T>;
  byId.set(head.id, head);
  for (const item of subtree.slice(1)) {
    const parent = item.parent_id === null ? undefined : byId.get(item.parent_id);
    if (!parent) continue;
    const node = Object.assign(item, { children: [] }) as Nested<T>;
    byId.set(item.id, node);
    parent.children.push(node);
  }
  for (const ancestor of ancestors) head = Object.assign(ancestor, { children: [head] }) as Nested<T>;
  return [head];
}

/**
 * For each item: `ancestors` (ids from the root down) and `path` (names from the root to the
 * item, joined by " > "), from a map holding the items and all their ancestors. The fields
 * are added to the items (no copy: they are made for this response).
 */
export function withPaths<T extends TreeItem & { name: string }>(
  items: readonly T[],
  lineage: ReadonlyMap<number, AncestorRow>,
): Array<T & { path: string; ancestors: number[] }> {
  return items.map((item) => {
    const ancestors: number[] = [];
    const names: string[] = [item.name];
    const seen = new Set<number>([item.id]);
    for (let at = item.parent_id; at !== null && !seen.has(at); ) {
      const row = lineage.get(at);
      if (!row) break;
      seen.add(at);
      ancestors.push(row.id);
      names.push(row.name);
      at = row.parent_id;
    }
    ancestors.reverse();
    names.reverse();
    // a copy of an object this wide is slow to build and to serialize (toListedContact)
    return Object.assign(item, { path: names.join(' > '), ancestors });
  });
}

/** Shapes contacts (in pre-order, with `level`) as the format asks; `lineage` saves the ancestors' query when the caller has them. */
export async function shape(db: Queryable, contacts: Array<Contact & { level: number }>, format: Format, lineage?: Map<number, AncestorRow>) {
  if (format === 'flat') return contacts;
  if (format === 'hierarchical') return withPaths(contacts, lineage ?? (await lineageOf(db, contacts.map((c) => c.id))));
  return nest(contacts);
}
