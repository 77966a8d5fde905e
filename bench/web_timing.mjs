// What the page's benchmarks share: timing an asynchronous run in Node.

import { performance } from "node:perf_hooks";

/**
 * Milliseconds `run` takes.
 * @param {() => Promise<unknown>} run
 */
export async function timed(run) {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/**
 * The best of `rounds` runs, in milliseconds.
 * @param {number} rounds
 * @param {() => Promise<unknown>} run
 */
export async function best(rounds, run) {
  let fastest = Infinity;
  for (let round = 0; round < rounds; round++) fastest = Math.min(fastest, await timed(run));
  return fastest;
}
