/** The database layer: connection settings, health, errors by code, transactions and writes sent behind, prepared and coalesced queries. */
export { bulkInsert, loadData, tsvField, writeRows, type BulkOptions } from './bulk';
export { createDb, ensureDatabase, knexConfig, SQLITE_CACHE_MIB_DEFAULT, type DbClient, type DbConfig } from './connection';
export { isForeignKeyViolation, isUnavailable, isUniqueViolation } from './errors';
export { drain, ping } from './health';
export { coalescedById, preparedByIds, preparedQuery } from './prepared';
export { streamRows } from './stream';
export { whereContains } from './text-match';
export { inTransaction } from './transaction';
export { dialectOf, type Db, type Dialect, type Queryable } from './types';
export { acceptWritesBehind, dropWritesSince, finishWrites, rowsLast, settleWritesBehind, writeBehind, writeLast, writesMark } from './write-behind';
