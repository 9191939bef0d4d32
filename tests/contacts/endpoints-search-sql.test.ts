import { searchSuite } from './search-suite';

// the same searches in SQL (trigram table, ranked by the database)
searchSuite({ SEARCH_INDEX: 'sql' });
