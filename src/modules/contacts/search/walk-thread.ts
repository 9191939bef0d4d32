import { parentPort } from 'node:worker_threads';
import { SearchSnapshot } from './snapshot';
import { HELD, walkOn, type WalkReply, type WalkRequest } from './walkers';

/**
 * A search walk thread (walkers.ts): it keeps the newest HELD snapshots it was sent, over the
 * service's shared memory, and answers each walk with what the same walk in the service's
 * thread would answer.
 */
const held = new Map<number, SearchSnapshot>();
const port = parentPort!;

port.on('message', (request: WalkRequest) => {
  let reply: WalkReply;
  try {
    if (request.data) {
      held.set(request.serial, new SearchSnapshot(request.data));
      if (held.size > HELD) held.delete(held.keys().next().value!);
    }
    const snapshot = held.get(request.serial);
    if (!snapshot) throw new Error(`snapshot ${request.serial} is not held`);
    const result = walkOn(snapshot, request.walk);
    // the page's places, in an array of their own that moves to the service's thread uncopied
    if ('ranks' in result) {
      const ranks = result.ranks.slice();
      port.postMessage({ id: request.id, result: { ...result, ranks } } satisfies WalkReply, [ranks.buffer]);
      return;
    }
    reply = { id: request.id, result };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
