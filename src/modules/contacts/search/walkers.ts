import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { KeptWalks } from './kept-walks';
import type { Walk, Walked, WalkResults } from './walk';
import type { SearchSnapshot } from './snapshot';
import type { SnapshotData } from './snapshot-data';

/**
 * The walks of a term over a snapshot's candidates, on threads of their own. At a million
 * contacts a term's walk is most of a search's CPU (some 2 ms of some 3), and the service's one
 * JavaScript thread did it between parsing, authenticating and serializing the other requests,
 * while the machine's other CPU waited. A walk thread reads the snapshot's arrays where they are
 * (they are in shared memory: shared-arrays.ts), so the index is held once however many threads
 * walk it, and each walk posts a few numbers there and back (docs/performance.md, "Walks on a
 * thread of their own").
 */

export type { Walk, Walked, WalkResults } from './walk';

/** Runs a walk on a snapshot, in this thread (the service's or a walk thread's), from the walks kept over it when there are. */
export function walkOn<W extends Walk>(snapshot: SearchSnapshot, w: W, kept: KeptWalks | null): Walked<W> {
  if (kept) return kept.run(snapshot, w);
  const result = w.walk === 'ranked' ? snapshot.ranked(w.needle, w.conditions, w.limit, w.skip) : snapshot.matchRanks(w.needle, w.conditions, w.skip, w.upTo);
  return { result: result as WalkResults[W['walk']], kept: false };
}

export interface WalkerSettings {
  /** how many walk threads; 0: every walk runs in the service's thread */
  threads: number;
  /** from how many contacts in a snapshot its walks go to the threads: below, a walk costs less than the trip */
  from: number;
  /** how many bytes of walks each thread that walks keeps, per snapshot (kept-walks.ts); 0 or none: none kept */
  keptBytes?: number;
}

/** How many snapshots a walk thread keeps (the newest): the one that answers, and the one before it while requests still hold it. */
export const HELD = 2;

/** What a walk thread is sent: the snapshot's data the first time it walks that snapshot. */
export interface WalkRequest {
  id: number;
  serial: number;
  data?: SnapshotData;
  walk: Walk;
}

export type WalkReply = ({ id: number } & Walked<Walk>) | { id: number; error: string };

/** Where a walk ran: on a walk thread, or in the service's thread (below `from`, without threads, or after a failure). */
export type WalkedOn = 'thread' | 'service';

/** What a Walkers reports: each walk's thread, and each failed walk on a thread (that walk then ran in the service's). */
export interface WalkReports {
  onWalk?: (on: WalkedOn, kept: boolean) => void;
  onError?: (err: unknown) => void;
}

/** After a walk failed on a thread, how long walks run in this thread before a thread is started again: one that cannot start is not started for every search. */
const RESTART_AFTER_MS = 5_000;

/**
 * The walk threads of one service, started when a walk first needs one. A walk goes to the
 * thread with the fewest walks waiting; one that fails there (the thread died, say) is
 * reported and runs in this thread instead, as the walks do for `restartAfterMs`; the next
 * walk after that starts the thread again.
 */
export class Walkers {
  private readonly threads: (WalkThread | null)[];
  /** until when walks run in this thread, after a failure */
  private resumeAt = 0;
  /** the walks kept in the service's thread, by snapshot: dropped with it */
  private readonly keptHere = new WeakMap<SearchSnapshot, KeptWalks>();

  constructor(
    private readonly settings: WalkerSettings,
    private readonly reports: WalkReports = {},
    private readonly restartAfterMs = RESTART_AFTER_MS,
  ) {
    this.threads = Array.from({ length: settings.threads }, () => null);
  }

  async run<W extends Walk>(snapshot: SearchSnapshot, w: W): Promise<WalkResults[W['walk']]> {
    if (this.threads.length === 0 || snapshot.size < this.settings.from || Date.now() < this.resumeAt) return this.here(snapshot, w);
    try {
      const walked = (await this.leastBusy().send(snapshot.data, w)) as Walked<W>;
      this.reports.onWalk?.('thread', walked.kept);
      return walked.result;
    } catch (err) {
      this.reports.onError?.(err);
      this.resumeAt = Date.now() + this.restartAfterMs;
      return this.here(snapshot, w);
    }
  }

  private here<W extends Walk>(snapshot: SearchSnapshot, w: W): WalkResults[W['walk']] {
    const bytes = this.settings.keptBytes ?? 0;
    let kept = this.keptHere.get(snapshot) ?? null;
    if (!kept && bytes > 0) this.keptHere.set(snapshot, (kept = new KeptWalks(bytes)));
    const walked = walkOn(snapshot, w, kept);
    this.reports.onWalk?.('service', walked.kept);
    return walked.result;
  }

  /** How many walk threads run now. */
  get running(): number {
    return this.threads.filter((t) => t !== null && !t.stopped).length;
  }

  /** Stops the threads; a walk after this starts them again. */
  async close(): Promise<void> {
    const running = this.threads.filter((t): t is WalkThread => t !== null);
    this.threads.fill(null);
    await Promise.all(running.map((t) => t.stop()));
  }

  private leastBusy(): WalkThread {
    let best = 0;
    for (let i = 0; i < this.threads.length; i++) {
      if (!this.threads[i] || this.threads[i]!.stopped) this.threads[i] = new WalkThread(this.settings.keptBytes ?? 0);
      if (this.threads[i]!.waiting < this.threads[best]!.waiting) best = i;
    }
    return this.threads[best]!;
  }
}

/** The heap a walk thread may grow to beside the walks it keeps: its other arrays are small, the candidates of a walk. */
const THREAD_HEAP_MB = 64;

/** One walk thread, and the walks it was sent that have not come back. */
class WalkThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, { resolve: (result: unknown) => void; reject: (err: Error) => void }>();
  /** the serials of the snapshots the thread holds, newest last: as the thread keeps them (walk-thread.ts) */
  private readonly held: number[] = [];
  private next = 0;
  stopped = false;

  constructor(keptBytes: number) {
    this.worker = startThread(keptBytes);
    // a walk thread never keeps the process alive: shutting down ends it
    this.worker.unref();
    this.worker.on('message', (reply: WalkReply) => {
      const waiting = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if ('error' in reply) waiting?.reject(new Error(`search walk thread: ${reply.error}`));
      else waiting?.resolve({ result: reply.result, kept: reply.kept });
    });
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`search walk thread exited with code ${code}`)));
  }

  get waiting(): number {
    return this.pending.size;
  }

  send(data: SnapshotData, walk: Walk): Promise<unknown> {
    if (this.stopped) return Promise.reject(new Error('search walk thread stopped'));
    const id = this.next++;
    const first = !this.held.includes(data.serial);
    if (first) {
      this.held.push(data.serial);
      if (this.held.length > HELD) this.held.shift();
    }
    const request: WalkRequest = { id, serial: data.serial, data: first ? data : undefined, walk };
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve,
        reject: (err) => {
          // the thread may not hold the snapshot (it failed to take it): sent again with the next walk
          const at = this.held.indexOf(data.serial);
          if (at >= 0) this.held.splice(at, 1);
          reject(err);
        },
      });
      this.worker.postMessage(request);
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    this.stopped = true;
    for (const waiting of this.pending.values()) waiting.reject(err);
    this.pending.clear();
  }
}

/** What a walk thread is started with. */
export interface WalkThreadData {
  keptBytes: number;
}

/**
 * A thread running walk-thread.ts, built (.js) or, from the TypeScript sources (the tests,
 * `npm run dev`), compiled as it loads by tsx, which those run with.
 */
function startThread(keptBytes: number): Worker {
  const ext = path.extname(__filename);
  const entry = path.join(__dirname, `walk-thread${ext}`);
  const heapMb = THREAD_HEAP_MB + Math.ceil((HELD * keptBytes) / 2 ** 20);
  const options = { resourceLimits: { maxOldGenerationSizeMb: heapMb }, workerData: { keptBytes } satisfies WalkThreadData };
  if (ext !== '.ts') return new Worker(entry, options);
  const source = `require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(entry)});`;
  return new Worker(source, { eval: true, ...options });
}
