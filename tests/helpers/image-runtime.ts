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
  const nodeArgs = /\bNODE_OPTIONS=(\S+)/.exec(last)?.slice(1) ?? [];
  if (!nodeArgs.some((a) => a.startsWith('--max-old-space-size='))) throw new Error('the Dockerfile sets no --max-old-space-size in NODE_OPTIONS');
  const env = Object.fromEntries([...last.matchAll(/\b(MALLOC_[A-Z_]+)=(\d+)/g)].map((m) => [m[1], m[2]]));
  return { nodeArgs, env };
}
