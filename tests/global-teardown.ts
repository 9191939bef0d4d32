import fs from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const template = process.env.TEST_SQLITE_TEMPLATE;
  if (template) for (const suffix of ['', '-wal', '-shm']) fs.rmSync(template + suffix, { force: true });
}
