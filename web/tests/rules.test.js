// The rules in JavaScript against the Python engines: every playthrough of tests/web_cases.py replayed exactly.
// Run: node --test web/tests/   (writes the playthroughs with python3 unless OLIXONO_WEB_CASES names a file)

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadCases, replay } from './rules-replay.js';
import { KINDS, WIDTH } from '../js/olix.js';

const cases = loadCases();

/**
 * Whether each of the board's best formations lies where it says: its squares are the player's stones and make a
 * formation of its type worth its value (the squares chosen may differ from the Python engine's among equals).
 * @param {any} board
 */
function formationsHold(board) {
  if (board.constructor.KIND !== 'olix') return null;
  for (const player of board.players) {
    for (const [kind, formation] of Object.entries(board.formations(player))) {
      const { value, squares } = /** @type {{ value: number, squares: readonly number[] }} */ (formation);
      if (squares.some((s) => board.stoneAt(s) !== player)) return `${player}'s ${kind} lies on other squares`;
      const ranks = squares.map((s) => Math.floor(s / WIDTH));
      const files = squares.map((s) => s % WIDTH);
      const span = (/** @type {number[]} */ xs) => Math.max(...xs) - Math.min(...xs) + 1;
      let fits = value === 0 ? squares.length === 0 : squares.length === value;
      if (value && kind === 'I') fits &&= span(ranks) === 1 ? span(files) === value : span(ranks) === value && span(files) === 1;
      if (value && kind === 'X') fits &&= span(ranks) === value && span(files) === value;
      if (value && kind === 'L') fits &&= span(ranks) + span(files) - 1 === value;
      if (value && kind === 'O') {
        const [left, right, bottom, top] = [Math.min(...files), Math.max(...files), Math.min(...ranks), Math.max(...ranks)];
        for (let r = bottom; r <= top; r += 1) {
          for (let f = left; f <= right; f += 1) {
            const own = board.stoneAt(r * WIDTH + f) === player;
            if (own !== squares.includes(r * WIDTH + f)) fits = false;
            if ((r === bottom || r === top || f === left || f === right) && !own) fits = false;
          }
        }
      }
      if (!fits || !KINDS.includes(kind)) return `${player}'s ${kind} (${value}) is no such formation: ${squares}`;
    }
  }
  return null;
}

/**
 * Every legal move's text parses back to itself and is legal by `whyIllegal` (the rule tests' positions only).
 * @param {any} board
 */
function movesRoundTrip(board) {
  for (const move of board.legalMoves()) {
    const again = board.parseMove(move.text());
    if (again.text() !== move.text()) return `${move.text()} reads back as ${again.text()}`;
    if (board.whyIllegal(again) !== null) return `${move.text()} is listed but refused: ${board.whyIllegal(again)}`;
  }
  return formationsHold(board);
}

/**
 * Replay a group of playthroughs, failing with the first few differences.
 * @param {any[]} group
 * @param {(board: any) => string | null} extra
 */
function replayAll(group, extra) {
  assert.ok(group.length > 0, 'no playthroughs');
  const failures = [];
  for (const [index, record] of group.entries()) {
    const failure = replay(record, extra);
    if (failure) failures.push(`playthrough ${index}: ${failure}`);
  }
  assert.equal(failures.length, 0, `${failures.length} of ${group.length} differ from Python:\n${failures.slice(0, 5).join('\n')}`);
}

for (const kind of ['oxono', 'olix']) {
  test(`${kind}: the Python rule tests' positions and moves`, () => {
    replayAll(cases.rules.filter((r) => r.kind === kind), movesRoundTrip);
  });

  test(`${kind}: seeded random games, position by position`, () => {
    replayAll(cases.games.filter((r) => r.kind === kind), formationsHold);
  });
}

test('the random games reach every ending a rule can give', () => {
  const endings = new Set();
  for (const record of cases.games) {
    for (const step of record.steps) if (step.do === 'check' && step.state.outcome) endings.add(step.state.outcome.split(' ')[1]);
  }
  for (const reason of ['colour', 'symbol', 'formation', 'stones', 'resigned', 'agreed']) {
    assert.ok(endings.has(reason), `no random game ended by ${reason}: ${[...endings]}`);
  }
});
