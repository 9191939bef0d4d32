import { searchSuite } from './search-suite';

// the in-memory index as endpoints-search.test.ts runs it, with every term walked on a walk
// thread (search/walkers.ts): a directory of any size, not only from SEARCH_THREADS_FROM on
searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '0', SEARCH_THREADS: '1', SEARCH_THREADS_FROM: '0' });
