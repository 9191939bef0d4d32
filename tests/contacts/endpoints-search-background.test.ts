import { searchSuite } from './search-suite';

// as in production: the index is built in the background and, once a change has made it old,
// not again within the interval; meanwhile SQL answers, and every change must still be seen
searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '60000' });
