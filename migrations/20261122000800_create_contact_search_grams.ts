import type { Knex } from 'knex';
import { createTable, isMysql } from './helpers';

/**
 * The search index of contacts: every trigram of the lower-cased name, e-mail, service number,
 * phone and mobile, packed into one integer (src/modules/contacts/search-grams.ts). A substring
 * query reads the posting lists of its trigrams instead of scanning every contact.
 *
 * One B-tree, in key order (gram, contact_id), and nothing else: the code that changes a
 * contact removes exactly the grams of its old values by key, so no index on contact_id (and
 * no foreign key, which would need one) is kept up to date on every insert. Rows of a contact
 * removed by hand outside the API stay behind harmlessly: searches join users.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isMysql(knex)) {
    // SQLite: WITHOUT ROWID keeps the rows in key order in one B-tree, as InnoDB does
    await knex.raw(`CREATE TABLE contact_search_grams (
      gram INTEGER NOT NULL,
      contact_id INTEGER NOT NULL,
      PRIMARY KEY (gram, contact_id)
    ) WITHOUT ROWID`);
    return;
  }
  await createTable(knex, 'contact_search_grams', (t) => {
    t.bigInteger('gram').notNullable();
    t.integer('contact_id').unsigned().notNullable();
    t.primary(['gram', 'contact_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('contact_search_grams');
}
