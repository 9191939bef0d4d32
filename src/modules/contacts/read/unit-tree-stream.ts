import type { Db } from '../../../lib/db';
import { contactsInOrder, unitLineage, unitShape } from '../data/unit-tree.queries';
import { countInto, statistics, type ContactFilters, type SetCounts } from '../domain/filters';
import { withPaths, type Format } from './formats';

/**
 * A large unit's tree, streamed (docs/api.md, "The tree of a unit"; docs/performance.md): the
 * same bytes as the tree built whole (unit-tree.service.ts), written as they are read, so the
 * first byte leaves at once and the service holds a chunk of contacts at a time, not the tree.
 *
 * 1. The envelope's head goes first: `{"status":"success","message":...,"data":{"unit_id":N,"contacts":[`.
 * 2. The tree's shape: the filtered contacts' ids and parent ids in pre-order (one statement,
 *    8 bytes a contact), and for `tree` the order nest() gives them (below).
 * 3. The contacts, CHUNK at a time, read by id in that order (names joined), each written as it
 *    comes; `tree` opens a contact's `children` and closes it by depth, as brackets.
 * 4. `statistics`, counted while writing (they follow `contacts` in the answer), and `filters`.
 *
 * The shape is the tree at one moment (one statement); each chunk's fields are those of its own
 * read, a moment later, as a client polling the tree would see them anyway. An error after the
 * head (the database gone, a contact removed by hand meanwhile) cannot change the status any
 * more: the connection is cut (lib/http/errors.ts), and the client sees a body that stops short
 * of its end, never a complete answer that is wrong.
 */

const CHUNK = 1_000;

/**
 * The order and the nesting depth in which nest() (formats.ts) shows the contacts (indexes into
 * the pre-order): each under its parent when that is among them (it comes earlier in pre-order),
 * else at the top level, children in pre-order. That order is the pre-order itself unless a
 * contact whose parent is left out stands inside another's subtree: it moves behind that subtree,
 * at the top level, as nest() puts it.
 */
export function nestedOrder(ids: Int32Array, parents: Int32Array): { order: Int32Array; depth: Int32Array } {
  const n = ids.length;
  const at = new Map<number, number>();
  const up = new Int32Array(n).fill(-1);
  const firstChild = new Int32Array(n).fill(-1);
  const lastChild = new Int32Array(n).fill(-1);
  const nextSibling = new Int32Array(n).fill(-1);
  const tops: number[] = [];
  for (let i = 0; i < n; i++) {
    at.set(ids[i], i);
    const p = parents[i] === 0 ? undefined : at.get(parents[i]);
    if (p === undefined || p === i) {
      tops.push(i);
      continue;
    }
    up[i] = p;
    if (lastChild[p] < 0) firstChild[p] = i;
    else nextSibling[lastChild[p]] = i;
    lastChild[p] = i;
  }
  const order = new Int32Array(n);
  const depth = new Int32Array(n);
  let k = 0;
  for (const top of tops) {
    // depth first without a stack: down to the first child, else on to the next sibling of the
    // nearest contact (this one or above it, below `top`) that has one
    let node = top;
    let d = 0;
    for (;;) {
      order[k] = node;
      depth[k++] = d;
      if (firstChild[node] >= 0) {
        node = firstChild[node];
        d++;
        continue;
      }
      while (node !== top && nextSibling[node] < 0) {
        node = up[node];
        d--;
      }
      if (node === top) break;
      node = nextSibling[node];
    }
  }
  return { order, depth };
}

export interface StreamedTree {
  unitId: number;
  message: string;
  filters: ContactFilters & { unit_id: number };
  format: Format;
  /** the `filters` echo, as the built tree answers it */
  echo: Record<string, unknown>;
}

/** The answer's JSON text in pieces (a chunk of contacts each), the envelope included. */
export async function* streamedUnitTree(db: Db, tree: StreamedTree): AsyncGenerator<string> {
  yield `{"status":"success","message":${JSON.stringify(tree.message)},"data":{"unit_id":${tree.unitId},"contacts":[`;
  const { ids, parents } = await unitShape(db, tree.filters);
  // hierarchical: every contact of the unit (its ancestors are all in it), for the paths
  const lineage = tree.format === 'hierarchical' ? await unitLineage(db, tree.unitId) : undefined;
  const nested = tree.format === 'tree' ? nestedOrder(ids, parents) : null;
  const counts: SetCounts = { roots: 0, supers: 0, admins: 0 };
  let previous = -1;
  for (let from = 0; from < ids.length; from += CHUNK) {
    const chunk = nested ? Array.from(nested.order.subarray(from, from + CHUNK), (i) => ids[i]) : ids.subarray(from, from + CHUNK);
    const contacts = await contactsInOrder(db, chunk);
    let out = '';
    for (let j = 0; j < contacts.length; j++) {
      const contact = contacts[j];
      countInto(counts, contact);
      if (nested) {
        const depth = nested.depth[from + j];
        // deeper: the first child of the one before; else close the ones this is not inside
        if (previous >= 0 && depth <= previous) out += `${']}'.repeat(previous - depth + 1)},`;
        const json = JSON.stringify(contact);
        out += `${json.slice(0, -1)},"children":[`;
        previous = depth;
      } else {
        if (from + j > 0) out += ',';
        out += JSON.stringify(lineage ? withPaths([contact], lineage)[0] : contact);
      }
    }
    yield out;
  }
  if (previous >= 0) yield ']}'.repeat(previous + 1);
  yield `],"statistics":${JSON.stringify(statistics(ids.length, counts))},"filters":${JSON.stringify(tree.echo)}}}`;
}
