/**
 * At most one pass per `intervalMs` for each key; the calls refused in between are counted and
 * handed to the next pass. For log lines about a lasting condition (the database is down),
 * which would otherwise be written once per request.
 */
export class Throttle {
  private readonly last = new Map<string, { at: number; suppressed: number }>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** null: refused (counted); else how many were refused since the last pass. */
  pass(key: string): number | null {
    const now = this.now();
    const entry = this.last.get(key);
    if (entry && now - entry.at < this.intervalMs) {
      entry.suppressed++;
      return null;
    }
    if (this.last.size >= 100) this.last.clear();
    this.last.set(key, { at: now, suppressed: 0 });
    return entry?.suppressed ?? 0;
  }
}
