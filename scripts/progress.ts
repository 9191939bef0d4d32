/** A progress bar on standard error: `label [#####.....]  52%  52000/100000  3.1 s`. */
export class Progress {
  private count = 0;
  private readonly started = Date.now();
  private lastDraw = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {
    this.draw();
  }

  advance(by: number): void {
    this.count += by;
    if (Date.now() - this.lastDraw > 100) this.draw();
  }

  done(): void {
    this.count = this.total;
    this.draw();
    process.stderr.write('\n');
  }

  private draw(): void {
    this.lastDraw = Date.now();
    const share = this.total === 0 ? 1 : Math.min(1, this.count / this.total);
    const width = 30;
    const bar = '#'.repeat(Math.round(share * width)).padEnd(width, '.');
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1);
    process.stderr.write(`\r${this.label.padEnd(14)} [${bar}] ${String(Math.round(share * 100)).padStart(3)}%  ${this.count}/${this.total}  ${seconds} s`);
  }
}
