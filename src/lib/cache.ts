/**
 * Values computed at most once per `ttlMs` per key; concurrent callers of a key that is being
 * computed share that computation. A failed computation is not kept. `ttlMs` 0 turns it off.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: Promise<V>; expires: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 1000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, compute: () => Promise<V>): Promise<V> {
    if (this.ttlMs <= 0) return compute();
    const hit = this.entries.get(key);
    if (hit && hit.expires > this.now()) return hit.value;
    if (this.entries.size >= this.max) this.evictExpired();
    const value = compute();
    this.entries.set(key, { value, expires: this.now() + this.ttlMs });
    value.catch(() => this.entries.delete(key));
    return value;
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.expires <= now) this.entries.delete(key);
    // still full: drop the oldest
    while (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
