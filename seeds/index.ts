import type { Config } from '../src/config';
import { inTransaction, type Db } from '../src/lib/db';
import type { Logger } from '../src/lib/logger';
import { PasswordHasher, ROLE_ID } from '../src/modules/access';
import { changeDirectory, insertContact } from '../src/modules/contacts';
import { DEFAULT_ORGANIZATION_ID } from '../src/modules/reference';
import { seedAccess } from './access';
import { seedLocations } from './locations';
import { seedReferenceData } from './reference-data';

export const DEFAULT_ORGANIZATION = { id: DEFAULT_ORGANIZATION_ID, name: 'Default Organization', code: 'DEFAULT' };

/**
 * Brings a migrated database to a usable state and changes nothing that is already there:
 * the access table is completed, organization 1 and the reference data and locations go into
 * empty tables, and the first Super_admin is created when no user has ADMIN_EMAIL.
 */
export async function seedDatabase(db: Db, config: Readonly<Config>, logger: Logger): Promise<void> {
  await inTransaction(db, async (trx) => {
    await seedAccess(trx);
    if (!(await trx('organizations').where({ id: DEFAULT_ORGANIZATION.id }).first('id'))) {
      const now = new Date();
      await trx('organizations').insert({ ...DEFAULT_ORGANIZATION, created_at: now, updated_at: now });
    }
    await seedReferenceData(trx);
    await seedLocations(trx);
  });

  if (await db('users').where({ email: config.admin.email }).first('id')) return;
  // hashed before the transaction: a cost-12 hash should not hold the database's locks
  const adminHash = await new PasswordHasher(config.bcryptCost).hash(config.admin.password);
  await changeDirectory(db, async (trx) => {
    if (await trx('users').where({ email: config.admin.email }).first('id')) return;
    const unit = (await trx('units').where({ code: 'HQ' }).first('id')) ?? (await trx('units').orderBy('id').first('id'));
    const designation =
      (await trx('designations').where({ code: 'SYSADM' }).first('id')) ?? (await trx('designations').orderBy('id').first('id'));
    const serviceNo = (await trx('users').where({ service_no: 'ADMIN-0001' }).first('id')) ? `ADMIN-${Date.now()}` : 'ADMIN-0001';
    await insertContact(trx, {
      name: config.admin.name,
      email: config.admin.email,
      service_no: serviceNo,
      password_hash: adminHash,
      unit_id: Number(unit.id),
      designation_id: Number(designation.id),
      role_id: ROLE_ID.superAdmin,
      organization_id: DEFAULT_ORGANIZATION.id,
    });
    logger.info({ email: config.admin.email }, 'created the first Super_admin');
  });
}
