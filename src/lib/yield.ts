/**
 * Cooperative yields for a long pass over many items in the request path (an import's 100,000
 * rows): every request of the process shares one event loop, so a pass of a second or more
 * that never awaits holds every other request (a health check, a get by id) for as long.
 */

/** Lets the event loop run what waits (I/O callbacks, timers) before the caller goes on. */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}


/**
 * A pass in slices of about `sliceMs` of work each: after each item, `if (slices.due()) await
 * slices.pause()`. By time, not by count, so a slow item (an e-mail check) or a slow machine
 * does not stretch a slice.
 */
export class TimeSlices {
  private started = performance.now();
  private count = 0;

  /** `checkEvery`: how often `due` reads the clock, a cheap counter in between (1 for items that are themselves large, chunks of rows). */
  constructor(
    private readonly sliceMs = 10,
    private readonly checkEvery = 64,
  ) {}

  /** Whether this slice has used its time (the clock is read every `checkEvery` calls). */
  due(): boolean {
    if (++this.count < this.checkEvery) return false;
    this.count = 0;
    return performance.now() - this.started >= this.sliceMs;
  }

  /** Yields to the event loop and starts a new slice. */
  async pause(): Promise<void> {
    await yieldToLoop();
    this.started = performance.now();
    this.count = 0;
  }
}
