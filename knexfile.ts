/**
 * For the knex CLI (`npx tsx node_modules/knex/bin/cli.js migrate:status`, for example).
 * The service itself migrates on start; `npm run db:migrate` does the same by hand.
 */
import { config as loadEnv } from 'dotenv';
import { loadConfig } from './src/config';
import { knexConfig } from './src/lib/db';
import { MIGRATIONS } from './src/startup';

loadEnv({ quiet: true });

export default { ...knexConfig(loadConfig(process.env).db), migrations: MIGRATIONS };
