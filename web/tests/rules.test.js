// The rules in JavaScript against the Python engines: every playthrough of tests/web_cases.py replayed exactly.
// Run: node --test web/tests/   (writes the playthroughs with python3 unless OLIXONO_WEB_CASES names a file)

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { loadCases, replay } from './rules-replay.js';

const cases = loadCases();

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
  return null;
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
    replayAll(cases.games.filter((r) => r.kind === kind), () => null);
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
