import path from 'node:path';
import { imageRuntime, runProbe } from '../helpers/image-runtime';

/**
 * The memory probes (import-memory.test.ts, xlsx-memory.test.ts) claim to run "as the image runs
 * the service". This proves that the Dockerfile's Node.js flags reach a probe's process and take
 * effect there: each flag is in its argv, and the heap's limit is the one the flags make. V8's
 * limit counts the young generation (three semi-spaces' worth) beside the old one, so a heap
 * whose semi-spaces are capped at 8 MiB has a lower limit than one with the same old space and
 * V8's default semi-spaces (16 MiB on a 64-bit machine): if `--max-semi-space-size` were lost on
 * the way, the two would be equal. And a heap without `--max-old-space-size` may grow to gigabytes.
 */
const PROBE = path.join(__dirname, 'runtime-probe.ts');

test("a memory probe runs with the image's Node.js flags, and V8 applies them", async () => {
  const { nodeArgs } = imageRuntime();
  expect(nodeArgs).toEqual(expect.arrayContaining([expect.stringMatching(/^--max-old-space-size=\d+$/), expect.stringMatching(/^--max-semi-space-size=\d+$/)]));
  const probed = await runProbe<{ execArgv: string[]; heapLimitMiB: number }>(PROBE, []);
  expect(probed.execArgv).toEqual(expect.arrayContaining(nodeArgs));
  // the same probe with only the old space's cap: V8's own semi-spaces
  const oldSpaceOnly = nodeArgs.filter((a) => a.startsWith('--max-old-space-size='));
  const withDefaults = await runProbe<{ heapLimitMiB: number }>(PROBE, [], {}, oldSpaceOnly);
  const oldSpaceMiB = Number(oldSpaceOnly[0].split('=')[1]);
  // the old space's cap, and a young generation of some tens of MiB beside it
  expect(probed.heapLimitMiB).toBeGreaterThanOrEqual(oldSpaceMiB);
  expect(probed.heapLimitMiB).toBeLessThan(oldSpaceMiB + 64);
  expect(probed.heapLimitMiB).toBeLessThan(withDefaults.heapLimitMiB);
});
