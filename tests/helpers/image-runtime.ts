import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * How the Docker image runs the service, read from the Dockerfile's last stage so that a test
 * that measures memory "as the image runs it" cannot drift from the image: the Node.js flags of
 * its NODE_OPTIONS (the heap's cap) and its glibc settings (MALLOC_*, docs/performance.md,
 * "An import's memory").
 */
export function imageRuntime(): { nodeArgs: string[]; env: Record<string, string> } {
  const dockerfile = readFileSync(path.join(__dirname, '..', '..', 'Dockerfile'), 'utf8');
  const last = dockerfile
    .slice(dockerfile.lastIndexOf('\nFROM '))
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  // NODE_OPTIONS=--flag, or NODE_OPTIONS="--flag --flag"
  const options = /\bNODE_OPTIONS=(?:"([^"]*)"|(\S+))/.exec(last);
  const nodeArgs = (options?.[1] ?? options?.[2] ?? '').split(/\s+/).filter(Boolean);
  if (!nodeArgs.some((a) => a.startsWith('--max-old-space-size='))) throw new Error('the Dockerfile sets no --max-old-space-size in NODE_OPTIONS');
  const env = Object.fromEntries([...last.matchAll(/\b(MALLOC_[A-Z_]+)=(\d+)/g)].map((m) => [m[1], m[2]]));
  return { nodeArgs, env };
}

/**
 * Runs a memory probe (a script that prints one line of JSON last) in a process of its own, as
 * the image runs the service: its heap cap and glibc settings, `--expose-gc` for the probe's own
 * collections, and the flags of PROBE_NODE_ARGS (`--max-semi-space-size=2`, say) for trying others.
 * `nodeArgs` replaces the image's Node.js flags (runtime-flags.test.ts, to compare). Resolves with
 * that line, parsed; rejects when the probe fails.
 */
export function runProbe<T>(script: string, args: string[], env: Record<string, string> = {}, nodeArgs = imageRuntime().nodeArgs): Promise<T> {
  const image = imageRuntime();
  const extra = process.env.PROBE_NODE_ARGS ? process.env.PROBE_NODE_ARGS.split(' ') : [];
  const child = spawn(process.execPath, ['--expose-gc', ...nodeArgs, ...extra, '--import', 'tsx', script, ...args], {
    cwd: path.join(__dirname, '..', '..'),
    env: { ...process.env, ...image.env, ...env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      const line = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`the probe exited with ${code}: ${stderr}`));
      else resolve(JSON.parse(line) as T);
    });
  });
}
