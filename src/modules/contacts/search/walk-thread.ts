import { parentPort, workerData } from 'node:worker_threads';
import { KeptWalks } from './kept-walks';
import { SearchSnapshot } from './snapshot';
import { HELD, walkOn, type WalkReply, type WalkRequest, type WalkThreadData } from './walkers';

/**
 * A search walk thread (walkers.ts): it keeps the newest HELD snapshots it was sent, over the
 * service's shared memory, each with the walks it keeps over it (kept-walks.ts), and answers
 * each walk with what the same walk in the service's thread would answer.
 */
const { keptBytes } = workerData as WalkThreadData;
const held = new Map<number, { snapshot: SearchSnapshot; kept: KeptWalks | null }>();
const port = parentPort!;

port.on('message', (request: WalkRequest) => {
  let reply: WalkReply;
  try {
    if (request.data) {
      held.set(request.serial, { snapshot: new SearchSnapshot(request.data), kept: keptBytes > 0 ? new KeptWalks(keptBytes) : null });
      if (held.size > HELD) held.delete(held.keys().next().value!);
    }
    const at = held.get(request.serial);
    if (!at) throw new Error(`snapshot ${request.serial} is not held`);
    const { result, kept } = walkOn(at.snapshot, request.walk, at.kept);
    // the page's places, in an array of their own that moves to the service's thread uncopied
    if ('ranks' in result) {
      const ranks = result.ranks.slice();
      port.postMessage({ id: request.id, result: { ...result, ranks }, kept } satisfies WalkReply, [ranks.buffer]);
      return;
    }
    reply = { id: request.id, result, kept };
  } catch (err) {
    reply = { id: request.id, error: err instanceof Error ? err.message : String(err) };
  }
  port.postMessage(reply);
});
