/**
 * The baseline: a bare Express handler that runs the same primary-key SELECT as
 * GET /api/contacts/:id (with the same joins), straight on the driver, without
 * authentication, validation, logging or rate limits. Started by bench/run.ts.
 *
 *   BARE_SQL=... PORT=... tsx bench/bare-server.ts
 */
import express from 'express';
import { loadConfig } from '../src/config';

async function main() {
  const config = loadConfig(process.env);
  const sql = process.env.BARE_SQL!;
  const app = express();
  let query: (id: number) => Promise<unknown>;
  if (config.db.client === 'mysql') {
    const mysql = await import('mysql2/promise');
    const connection = config.db.url
      ? { uri: config.db.url }
      : { host: config.db.host, port: config.db.port, user: config.db.user, password: config.db.password, database: config.db.database };
    const pool = mysql.createPool({ ...connection, connectionLimit: config.db.poolMax, timezone: 'Z', charset: 'utf8mb4' });
    query = async (id) => ((await pool.query(sql, [id])) as [unknown[], unknown])[0][0];
  } else {
    const Database = (await import('better-sqlite3')).default;
    const statement = new Database(config.db.sqliteFilename, { readonly: true }).prepare(sql);
    query = async (id) => statement.get(id);
  }
  app.get('/contacts/:id', async (req, res) => {
    const row = await query(Number(req.params.id));
    if (row) res.json({ status: 'success', data: { contact: row } });
    else res.status(404).json({ status: 'error' });
  });
  const server = app.listen(Number(process.env.PORT));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

void main();
