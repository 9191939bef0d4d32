/**
 * How many turns of the event loop ran while `work` did: a chain of setImmediate counts them.
 * A pass that never yields lets none run (one at most, the turn it ends in).
 */
export async function loopTurnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const result = await work();
  running = false;
  return { result, turns };
}
