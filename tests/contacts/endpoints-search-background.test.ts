import { searchSuite } from './search-suite';

// as in production: the index is built in the background and, once a change has made it old,
// not again within the interval. Every search of the endpoint's suite follows a change of its
// own, so there the snapshot is always older than the directory: this run proves that an old
// snapshot answers only with the contacts changed since its build, read afresh (overlay.ts), and
// sees every change. The first searches, before the first build, run in SQL. The snapshot's own
// answers are proven by endpoints-search.test.ts, its refresh rules by search-index.test.ts.
searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '60000' });
