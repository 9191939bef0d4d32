/**
 * Lets at most `max` tasks run at once; the others wait, first come first served. For work
 * whose memory grows with how many run together (a whole unit's tree held in memory), not
 * with how fast they finish: in one Node.js process they share one CPU anyway.
 */
export class Gate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly max: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running < this.max) this.running++;
    // a finishing task hands its place straight to the first one waiting
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
