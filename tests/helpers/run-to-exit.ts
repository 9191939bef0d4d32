import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

export interface Exit {
  code: number | null;
  /** what the process wrote to stdout, line by line */
  stdout: string[];
  stderr: string;
  /** from the start to the exit */
  ms: number;
}

/**
 * Runs `script` (src/server.ts, src/cli.ts) in its own process with development settings plus
 * `settings` (none of the test run's database, Redis or limit keys), and resolves with what it
 * wrote once it exits; kills it after `timeoutMs`. For starts that must fail: server-process.ts
 * starts servers that listen.
 */
export function runToExit(script: string, args: string[], settings: Record<string, string>, timeoutMs = 30_000): Promise<Exit> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(NODE_ENV|LOG_LEVEL|PORT|DB_|DATABASE_URL|REDIS_URL|RATE_LIMIT|LOGIN_RATE|JWT_|ADMIN_|BCRYPT|CORS_|TRUST_PROXY|BODY_LIMIT|METRICS_|JEST|TEST_)/.test(key)) {
      delete env[key];
    }
  }
  Object.assign(env, { NODE_ENV: 'development', LOG_LEVEL: 'info', PORT: '0', ...settings });
  const started = Date.now();
  // `node --import tsx`, as server-process.ts starts the server
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: stdout.split('\n').filter((line) => line.trim() !== ''), stderr, ms: Date.now() - started });
    });
  });
}

/** Each line parsed as JSON; fails the test on a line that is not. */
export function jsonLines(lines: string[]): Array<Record<string, unknown>> {
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
  });
}
