import type { Queryable } from './types';

/** What a `read_versions` row covers (the migration that made the table says which changes). */
export type ReadVersion = 'account' | 'reference' | 'locations';

/** Marks a change of what reads show, in the change's own transaction (or statement). */
export async function bumpVersion(db: Queryable, name: ReadVersion): Promise<void> {
  await db('read_versions').where({ name }).increment('version', 1);
}
