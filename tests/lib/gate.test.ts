import { Gate } from '../../src/lib/gate';

/** A task that runs until its `finish` is called, recording when it started. */
function pending(log: string[], name: string) {
  let finish!: (fail?: boolean) => void;
  const task = () =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      finish = (fail) => (fail ? reject(new Error(name)) : resolve(name));
    });
  return { task, finish: (fail?: boolean) => finish(fail) };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('runs at most `max` tasks at once, the waiting ones first come first served', async () => {
  const gate = new Gate(2);
  const log: string[] = [];
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => pending(log, name));
  const results = [a, b, c, d].map((t) => gate.run(t.task));
  await settle();
  expect(log).toEqual(['start a', 'start b']);
  b.finish();
  await settle();
  expect(log).toEqual(['start a', 'start b', 'start c']);
  a.finish();
  await settle();
  expect(log).toEqual(['start a', 'start b', 'start c', 'start d']);
  c.finish();
  d.finish();
  expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
});

test('a task that fails gives its place to the next, and its caller gets the failure', async () => {
  const gate = new Gate(1);
  const log: string[] = [];
  const [a, b] = ['a', 'b'].map((name) => pending(log, name));
  const first = gate.run(a.task);
  const second = gate.run(b.task);
  await settle();
  a.finish(true);
  await expect(first).rejects.toThrow('a');
  await settle();
  expect(log).toEqual(['start a', 'start b']);
  b.finish();
  expect(await second).toBe('b');
  // the place is free again
  expect(await gate.run(async () => 'c')).toBe('c');
});
