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

  verify(password: string, hash: string): Promise<boolean> {
    return bcrypt.compare(password, hash);
  }

  /**
   * Spends the same time as a real comparison and always fails: used when there is no
   * account or no password, so the answer's timing does not tell whether an account exists.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= bcrypt.hash('no account has this password', this.cost);
    await bcrypt.compare(password, await this.dummy);
    return false;
  }
}
