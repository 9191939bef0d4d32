import bcrypt from 'bcrypt';

/**
 * bcrypt through the native `bcrypt` module: its async calls run on libuv's thread pool, so
 * a cost-12 hash (~200 ms of CPU) never blocks the event loop. Hashes are standard `$2b$`.
 */
export class PasswordHasher {
  private dummy?: Promise<string>;

  constructor(private readonly cost: number) {}

  hash(password: string): Promise<string> {
    return bcrypt.hash(password, this.cost);
  }

  /**
   * Whether `password` matches `hash`. Without a hash (no account, or an account with no
   * password) it spends the same time on a comparison that fails, so the answer's timing does
   * not tell whether an account exists.
   */
  async verify(password: string, hash: string | null | undefined): Promise<boolean> {
    if (hash) return bcrypt.compare(password, hash);
    this.dummy ??= bcrypt.hash('no account has this password', this.cost);
    await bcrypt.compare(password, await this.dummy);
    return false;
  }
}
