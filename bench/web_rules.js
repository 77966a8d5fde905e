// The JavaScript rules' speed and size: prints one figure a line as `name: value` (recorded in BENCHMARKS.md).
//
//     node bench/web_rules.js            # best of 20 replays after 3 warm-ups
//     node bench/web_rules.js --quick    # best of 5 after 1
//
// Figures: `olix_replay_100_ms`, replaying a 100-move Olix game through the validated path (`play(text)`, as a
// spectator checks each move: parse, legality, formations, scoreboard, every ending); `oxono_replay_ms`, the same
// for a whole Oxono game; `olix_ply_mean_us`, the Olix replay a ply; and the code a page loads for each game
// (`*_bytes`, the modules as served, and gzipped).

import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

import { OlixBoard } from '../web/js/olix.js';
import { OxonoBoard } from '../web/js/oxono.js';

const quick = process.argv.includes('--quick');
const [warmups, repeats] = quick ? [1, 5] : [3, 20];

/**
 * A small seeded generator (mulberry32): the same games on every run.
 * @param {number} seed
 */
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The move texts of a uniformly random game of `Board` from `seed`, to its end.
 * @param {any} Board
 * @param {number} seed
 * @returns {string[]}
 */
function randomGame(Board, seed) {
  const next = random(seed);
  const board = new Board();
  while (!board.isGameOver()) {
    const moves = board.legalMoves();
    board.push(moves[Math.floor(next() * moves.length)]);
  }
  return board.moveStack.map((/** @type {any} */ move) => move.text());
}

/**
 * The first seeded game of `Board` whose length passes `accept`, searched over at most 1,000 seeds.
 * @param {any} Board
 * @param {(length: number) => boolean} accept
 */
function seededGame(Board, accept) {
  for (let seed = 1; seed <= 1000; seed += 1) {
    const game = randomGame(Board, seed);
    if (accept(game.length)) return game;
  }
  throw new Error('no seeded game of the wanted length in 1,000 seeds');
}

/**
 * The best wall time, in milliseconds, of replaying `moves` on a new `Board` through `play`.
 * @param {any} Board
 * @param {string[]} moves
 */
function bestReplay(Board, moves) {
  let best = Infinity;
  for (let run = 0; run < warmups + repeats; run += 1) {
    const start = process.hrtime.bigint();
    const board = new Board();
    for (const text of moves) board.play(text);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (!board.isGameOver()) throw new Error('the replayed game did not end');
    if (run >= warmups) best = Math.min(best, ms);
  }
  return best;
}

/**
 * The size of the modules a page loads for one game: as served, and gzipped.
 * @param {string[]} files paths under web/js/
 */
function size(files) {
  const source = Buffer.concat(files.map((file) => readFileSync(new URL(`../web/js/${file}`, import.meta.url))));
  return `${source.length} (gzip ${gzipSync(source, { level: 9 }).length})`;
}

const olixGame = seededGame(OlixBoard, (length) => length === 100);
const oxonoGame = seededGame(OxonoBoard, (length) => length === 32);
const olixMs = bestReplay(OlixBoard, olixGame);
console.log(`olix_replay_100_ms: ${olixMs.toFixed(2)}`);
console.log(`olix_ply_mean_us: ${((olixMs * 1000) / olixGame.length).toFixed(0)}`);
console.log(`oxono_replay_ms: ${bestReplay(OxonoBoard, oxonoGame).toFixed(2)} (${oxonoGame.length} moves)`);
console.log(`olix_bytes: ${size(['rules-common.js', 'olix.js'])}`);
console.log(`oxono_bytes: ${size(['rules-common.js', 'oxono.js'])}`);
console.log(`rules_bytes: ${size(['rules-common.js', 'olix.js', 'oxono.js'])}`);
