/**
 * The contacts module owns the directory: the users table (a contact is a user), its tree
 * order, its search and the directory lock. Other modules reach the user row only through
 * what this file exports (docs/architecture.md):
 *
 * - the user read model: findUser, findUserBySignIn (UserRecord), sessionSource (access's SessionSource);
 * - writes: ContactWrites, the one writer of contacts: a create, a change, a move, a delete or
 *   a batch of creates and changes (changeMany, the import's), each checked by the same rules
 *   (write/contact-rules.ts) under the directory lock; a writer in another module (registration,
 *   profile, import) describes its change and gives its own words for a taken e-mail or
 *   service number. `npm run seed:demo` writes through changeMany too. Only the first
 *   Super_admin's seed, written before any actor exists, uses the parts below it:
 *   changeDirectory(db, work) and insertContact. The other parts of a write (the forest
 *   writer, the tree's labels, the change stamps, the uniqueness checks) stay inside;
 * - setPassword, revokeTokensOfRole, markSignedIn: an account's own columns;
 * - the search backlog (SearchBacklog): the grams of an import's contacts, written after its commit;
 * - the check of the derived columns (checkDirectory, repairDirectory: tree/integrity.ts);
 * - the change feed (ChangeFeed, GET /api/contacts/changes) and its pruning (pruneChanges), the
 *   rows of which every writer above records without knowing (data/changes.writer.ts);
 * - the services and the router that app.ts wires.
 */
export { contactsRouter } from './http/contacts.router';
export { CONTACT_TEXT, filterRules, STATUSES } from './http/contacts.validators';
export type { Contact, UserRecord } from './domain/contact.record';
export { contactRowTag } from './domain/contact.record';
export { ContactReads } from './read/contact-reads.service';
export { ChangeFeed, CHANGES_GONE, CHANGES_PAGE, CURSOR_AHEAD, type FeedChange, type PlacedChange } from './read/change-feed.service';
export { pruneChanges } from './data/changes.writer';
export { ChangesPruning, changesCutoff } from './write/changes-pruning';
export { afterVersion, TYPES as CHANGE_TYPES, type ChangePosition } from './domain/change-cursor';
export { exportBatches, type ExportRow } from './data/export.queries';
export { FORMATS, TREE_SCOPES } from './read/formats';
export { CHILDREN_PAGE, CONTACT_PAGE, filtersOf, SEARCH_LIMIT, type ListInput } from './read/list-input';
export { ROLE_FILTERS, type ContactFilters } from './domain/filters';
export { contactExists } from './data/listing.queries';
export { UnitTrees } from './read/unit-tree.service';
export { unfilteredListCursor } from './read/list-paging';
export { contactQuery, findUser, findUserBySignIn, findUserRows, sessionSource, userIdBySignIn, type UserRow } from './data/users.queries';
export { SearchBacklog } from './data/backlog';
export { ContactSearch } from './search/contact-search.service';
export { contactGrams, SEARCH_FIELDS } from './domain/grams';
export { SearchIndex } from './search/search-index';
export { Walkers, type WalkerSettings } from './search/walkers';
export { checkDirectory, directorySound, FINDINGS, repairDirectory, type DirectoryReport } from './data/tree/integrity';
export { directoryChangesInFlight, onDirectoryCommit } from './data/tree/change-queue';
export { ContactWrites, type WriteWords } from './write/contact-writes.service';
export type { BatchCreate } from './write/contact-batch';
export type { ChangeSource, NewContacts, ParentRef as ContactParent, PlannedChange, RuleFailure } from './write/contact-change';
export { insertContact, type ContactChanges, type ContactInsert } from './data/contact.writer';
export { markSignedIn, revokeTokensOfRole, setPassword } from './data/account.writer';
export { changeDirectory, type UniqueField } from './data/uniqueness';
export { accountsPage, deprovisionedAccountId, findAccount, type AccountRecord } from './data/accounts.queries';
export type { AccountCompare, AccountCondition, AccountFilterField } from './domain/account-filter';
export type { TakenWords } from './write/contact-rules';
