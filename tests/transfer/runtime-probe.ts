import v8 from 'node:v8';

/**
 * A memory probe that measures nothing: it prints the Node.js flags it was started with and the
 * heap's limit as V8 took them (runtime-flags.test.ts), one line of JSON, as the memory probes
 * print their figures.
 */
process.stdout.write(`${JSON.stringify({ execArgv: process.execArgv, heapLimitMiB: v8.getHeapStatistics().heap_size_limit / 2 ** 20 })}\n`);
