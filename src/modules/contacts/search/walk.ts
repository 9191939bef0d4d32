import type { Condition, SetCounts } from '../domain/filters';

/**
 * A walk: the search endpoint's (snapshot.ts ranked) or a listing's (matchRanks). Its
 * conditions are the request's filters as data (domain/filters.ts conditionsOf), the same that
 * test the changed contacts: a thread is posted all a filter says, whatever filters are added.
 */
export type Walk =
  | { walk: 'ranked'; needle: string; conditions: readonly Condition[]; limit: number; skip?: Int32Array }
  | { walk: 'matched'; needle: string; conditions: readonly Condition[]; skip?: Int32Array; upTo?: number };

export interface WalkResults {
  ranked: { ranked: number[][]; total: number };
  matched: { ranks: Int32Array; total: number; counts: SetCounts };
}

/** A walk's answer, and whether it came from the walks kept (kept-walks.ts) rather than a walk over the candidates. */
export interface Walked<W extends Walk> {
  result: WalkResults[W['walk']];
  kept: boolean;
}
