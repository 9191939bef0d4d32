import { isMysql } from '../helpers/config';
import request from 'supertest';
import { setupTestContext } from '../helpers/context';
import { bearer } from '../helpers/factory';
import { treeProblems } from '../helpers/tree';
import { csv, HEADER, importCsv, personRow, tagOf, transferFixture } from './transfer-support';

const ctx = setupTestContext();
const f = transferFixture(ctx);

describe('POST /api/contacts/import: a file of contacts', () => {
  it('creates a whole tree given in any order (children before parents), with parents by service number', async () => {
    const [a, b, c] = [tagOf(), tagOf(), tagOf()];
    const res = await importCsv(ctx, f.admin, csv([HEADER, personRow(f, c, b), personRow(f, b, a), personRow(f, a)]));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ created: 3, updated: 0, failed: 0, errors: [], errors_total: 0 });
    const rows = await ctx.db('users').whereIn('service_no', [a, b, c]).select('id', 'service_no', 'parent_id', 'depth');
    const id = (sn: string) => rows.find((r) => r.service_no === sn)!.id;
    const parentOf = (sn: string) => rows.find((r) => r.service_no === sn)!.parent_id;
    expect(parentOf(a)).toBeNull();
    expect(Number(parentOf(b))).toBe(Number(id(a)));
    expect(Number(parentOf(c))).toBe(Number(id(b)));
    expect(await treeProblems(ctx.db)).toEqual([]);
  });

  it('keeps every character of a cell as given: backslashes, a literal \\N, quotes, tabs, Bengali (MySQL writes the rows as LOAD DATA lines)', async () => {
    const names = ['\\N', 'Back\\slash \\t \\\\ end\\', 'রহিম উদ্দিন "quoted"', 'Tab\there', 'Line\\nfeed 0\\0'];
    const tags = names.map(() => tagOf());
    const rows = names.map((name, i) => [name, ...personRow(f, tags[i]).slice(1)]);
    // and enough rows for LOAD DATA (bulk.ts writes fewer than 100 as one INSERT)
    const filler = Array.from({ length: 100 }, () => personRow(f, tagOf()));
    const statements: string[] = [];
    const seen = (q: { sql: string }) => statements.push(q.sql);
    ctx.db.on('query', seen);
    const res = await importCsv(ctx, f.admin, csv([HEADER, ...rows, ...filler]));
    ctx.db.off('query', seen);
    expect(res.status).toBe(200);
    if (isMysql()) expect(statements.filter((sql) => /^LOAD DATA .* INTO TABLE `users`/.test(sql))).toHaveLength(1);
    expect(res.body.data.created).toBe(names.length + filler.length);
    const stored = await ctx.db('users').whereIn('service_no', tags).select('service_no', 'name', 'mobile', 'department_id');
    for (const [i, tag] of tags.entries()) {
      const row = stored.find((r) => r.service_no === tag)!;
      expect(row.name).toBe(names[i]);
      // absent cells are NULL, not the text "\N" or ""
      expect(row.mobile).toBeNull();
      expect(row.department_id).toBeNull();
    }
    // times in UTC, as a single create writes them
    const id = (await ctx.db('users').where({ service_no: tags[0] }).first('id')).id;
    const contact = await request(ctx.app).get(`/api/contacts/${id}`).set(bearer(f.admin));
    expect(Math.abs(Date.parse(contact.body.data.contact.created_at) - Date.now())).toBeLessThan(60_000);
  });
});
