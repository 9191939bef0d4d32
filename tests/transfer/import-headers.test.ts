import { setupTestContext } from '../helpers/context';
import { csv, importCsv, tagOf, transferFixture } from './transfer-support';

/** The headers people write for the import's columns (docs/import-export.md, Columns). */

const ctx = setupTestContext({ RATE_LIMIT_MAX: '1000000' });
const f = transferFixture(ctx);

describe('POST /api/contacts/import: headers as people write them', () => {
  it('reads Full name, Service Number, E-mail, Phone No., Mobile No., Alternate mobile, Unit name, Job title and Manager service No. as their columns', async () => {
    const [parent, child] = [tagOf(), tagOf()];
    const header = ['Full name', 'Service Number', 'E-mail', 'Phone No.', 'Mobile No.', 'Alternate mobile', 'Unit name', 'Job title', 'Manager service No.'];
    const rows = [
      [`Person ${parent}`, parent, `${parent}@import.test`, '01700000000', '01800000000', '01900000000', f.unit.name, f.designation, ''],
      [`Person ${child}`, child, `${child}@import.test`, '01700000001', '', '', f.unit.name, f.designation, parent],
    ];
    const res = await importCsv(ctx, f.admin, csv([header, ...rows]));
    expect({ status: res.status, created: res.body.data?.created, ignored: res.body.data?.ignored_columns }).toEqual({ status: 200, created: 2, ignored: [] });
    const stored = await ctx.db('users').whereIn('service_no', [parent, child]).orderBy('service_no').select('service_no', 'email', 'phone', 'mobile', 'alternative_mobile', 'parent_id', 'id');
    const byNo = new Map(stored.map((r) => [r.service_no, r]));
    expect(byNo.get(parent)).toMatchObject({ email: `${parent.toLowerCase()}@import.test`, phone: '01700000000', mobile: '01800000000', alternative_mobile: '01900000000' });
    expect(Number(byNo.get(child)!.parent_id)).toBe(Number(byNo.get(parent)!.id));
  });

  it('reads Email address and Employee ID too, and still refuses two headers of one column (Email and E-mail)', async () => {
    const a = tagOf();
    const ok = await importCsv(ctx, f.admin, csv([['Name', 'Employee ID', 'Email address', 'Telephone', 'Unit', 'Designation'], [`Person ${a}`, a, `${a}@import.test`, '01700000000', f.unit.code, f.designation]]));
    expect({ status: ok.status, created: ok.body.data?.created }).toEqual({ status: 200, created: 1 });
    const twice = await importCsv(ctx, f.admin, csv([['Name', 'Service No', 'Email', 'E-mail'], ['X', tagOf(), 'x@import.test', 'y@import.test']]));
    expect({ status: twice.status, errors: twice.body.errors }).toEqual({ status: 400, errors: [{ field: 'file', message: 'The header names the column email twice' }] });
  });

  it('leaves Manager and Reports to unread (they may hold a name), listed as ignored', async () => {
    const a = tagOf();
    const res = await importCsv(ctx, f.admin, csv([['Name', 'Service No', 'Email', 'Phone', 'Unit', 'Designation', 'Manager', 'Reports to'], [`Person ${a}`, a, `${a}@import.test`, '01700000000', f.unit.code, f.designation, 'Some Boss', 'Some Boss']]));
    expect({ status: res.status, ignored: res.body.data?.ignored_columns }).toEqual({ status: 200, ignored: ['Manager', 'Reports to'] });
  });
});
