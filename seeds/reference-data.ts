import type { Knex } from 'knex';

/** A realistic starting structure: a headquarters with directorates, regional offices and an academy. */
const UNITS: Array<{ code: string; name: string; parent?: string; departments: string[] }> = [
  { code: 'HQ', name: 'Headquarters', departments: ['Command Secretariat', 'Legal Affairs', 'Public Relations'] },
  { code: 'OPS', name: 'Operations Directorate', parent: 'HQ', departments: ['Control Room', 'Intelligence', 'Planning'] },
  { code: 'DHK-RO', name: 'Dhaka Regional Office', parent: 'OPS', departments: ['Administration', 'Field Operations'] },
  { code: 'CTG-RO', name: 'Chattogram Regional Office', parent: 'OPS', departments: ['Administration', 'Field Operations', 'Port Liaison'] },
  { code: 'KHL-RO', name: 'Khulna Regional Office', parent: 'OPS', departments: ['Administration', 'Field Operations'] },
  { code: 'ADM', name: 'Administration Directorate', parent: 'HQ', departments: ['Establishment', 'Human Resources', 'Welfare'] },
  { code: 'LOG', name: 'Logistics Directorate', parent: 'HQ', departments: ['Procurement', 'Stores', 'Transport'] },
  { code: 'CSD', name: 'Central Supply Depot', parent: 'LOG', departments: ['Distribution', 'Warehousing'] },
  { code: 'ICT', name: 'ICT Directorate', parent: 'HQ', departments: ['Cyber Security', 'Help Desk', 'Network and Infrastructure', 'Software Development'] },
  { code: 'FIN', name: 'Finance and Accounts Directorate', parent: 'HQ', departments: ['Accounts', 'Audit', 'Budget'] },
  { code: 'TRG', name: 'Training Directorate', parent: 'HQ', departments: ['Curriculum', 'Evaluation'] },
  { code: 'ACAD', name: 'Training Academy', parent: 'TRG', departments: ['Advanced Courses', 'Basic Training'] },
];

const DESIGNATIONS: Array<{ code: string; name: string }> = [
  { code: 'DG', name: 'Director General' },
  { code: 'DIR', name: 'Director' },
  { code: 'DD', name: 'Deputy Director' },
  { code: 'AD', name: 'Assistant Director' },
  { code: 'CO', name: 'Commanding Officer' },
  { code: 'SO', name: 'Staff Officer' },
  { code: 'SH', name: 'Section Head' },
  { code: 'SYSADM', name: 'System Administrator' },
  { code: 'SE', name: 'Software Engineer' },
  { code: 'NE', name: 'Network Engineer' },
  { code: 'AO', name: 'Accounts Officer' },
  { code: 'ADMO', name: 'Administrative Officer' },
  { code: 'INS', name: 'Instructor' },
  { code: 'PA', name: 'Personal Assistant' },
  { code: 'CLK', name: 'Clerk' },
  { code: 'DRV', name: 'Driver' },
];

/** Ranks with their seniority (1 is the most senior). */
const RANKS: Array<{ code: string; name: string; level: number }> = [
  'General:GEN', 'Lieutenant General:LT GEN', 'Major General:MAJ GEN', 'Brigadier General:BRIG GEN', 'Colonel:COL',
  'Lieutenant Colonel:LT COL', 'Major:MAJ', 'Captain:CAPT', 'Lieutenant:LT', 'Second Lieutenant:2LT',
  'Master Warrant Officer:MWO', 'Senior Warrant Officer:SWO', 'Warrant Officer:WO', 'Sergeant:SGT',
  'Corporal:CPL', 'Lance Corporal:LCPL', 'Sainik:SNK',
].map((entry, i) => {
  const [name, code] = entry.split(':');
  return { name, code, level: i + 1 };
});

/** Seeds units, departments, designations and ranks into tables that are still empty. */
export async function seedReferenceData(trx: Knex.Transaction): Promise<void> {
  const now = new Date();
  const stamp = { created_at: now, updated_at: now };
  if (!(await trx('units').first('id'))) {
    const ids = new Map<string, number>();
    for (const unit of UNITS) {
      const [id] = await trx('units').insert({
        name: unit.name,
        code: unit.code,
        parent_id: unit.parent ? ids.get(unit.parent) : null,
        ...stamp,
      });
      ids.set(unit.code, Number(id));
      await trx('departments').insert(unit.departments.map((name) => ({ unit_id: Number(id), name, ...stamp })));
    }
  }
  if (!(await trx('designations').first('id'))) {
    await trx('designations').insert(DESIGNATIONS.map((d) => ({ ...d, ...stamp })));
  }
  if (!(await trx('ranks').first('id'))) {
    await trx('ranks').insert(RANKS.map((r) => ({ ...r, ...stamp })));
  }
}
