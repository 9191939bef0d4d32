import type { Knex } from 'knex';
import { createTable } from './helpers';

/**
 * The search index of contacts: every trigram of the lower-cased name, e-mail, service number,
 * phone and mobile, packed into one integer (src/modules/contacts/search-grams.ts). A substring
 * query reads the posting lists of its trigrams instead of scanning every contact.
 */
export async function up(knex: Knex): Promise<void> {
  await createTable(knex, 'contact_search_grams', (t) => {
    t.bigInteger('gram').notNullable();
    t.integer('contact_id').unsigned().notNullable()
      .references('id').inTable('users').onDelete('CASCADE').onUpdate('CASCADE');
    t.primary(['gram', 'contact_id']);
    t.index(['contact_id']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('contact_search_grams');
}
