import { searchSuite } from './search-suite';

// the in-memory index, built for the version each search needs
searchSuite({ SEARCH_INDEX: 'memory', SEARCH_INDEX_REFRESH_MS: '0' });
