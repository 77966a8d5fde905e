// Replaying the Python engines' playthroughs (tests/web_cases.py) on the JavaScript engines: the differential test.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError } from '../js/rules-common.js';
import { OlixBoard } from '../js/olix.js';
import { OxonoBoard } from '../js/oxono.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BOARDS = { oxono: OxonoBoard, olix: OlixBoard };

/**
 * The playthroughs: from the file `OLIXONO_WEB_CASES` names (the pytest wrapper writes it), else written now by
 * `python3 tests/web_cases.py` into a temporary folder.
 * @returns {{ rules: any[], games: any[] }}
 */
export function loadCases() {
  const named = process.env.OLIXONO_WEB_CASES;
  if (named) return JSON.parse(readFileSync(named, 'utf8'));
  const folder = mkdtempSync(join(tmpdir(), 'olixono-web-cases-'));
  try {
    const out = join(folder, 'cases.json');
    const python = process.env.PYTHON ?? 'python3';
    const made = spawnSync(python, ['tests/web_cases.py', out], {
      cwd: ROOT,
      env: { ...process.env, PYTHONPATH: ROOT },
      encoding: 'utf8',
      timeout: 300_000,
    });
    if (made.status !== 0) {
      throw new Error(`${python} tests/web_cases.py failed (${made.status ?? made.signal}):\n${made.stdout}\n${made.stderr}`);
    }
    return JSON.parse(readFileSync(out, 'utf8'));
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The JavaScript engine's answers to what a `check` step asks (the keys of `expected`), as tests/web_cases.py's
 * `snapshot` gives the Python engine's.
 * @param {any} board
 * @param {Record<string, unknown>} expected
 */
export function snapshot(board, expected) {
  const outcome = board.outcome();
  const legal = board.legalMoves().map((/** @type {any} */ m) => m.text());
  /** @type {Record<string, () => unknown>} */
  const answers = {
    position: () => board.position(),
    turn: () => board.turn,
    outcome: () => outcome?.text() ?? null,
    markers: () => outcome?.markers ?? null,
    sentence: () => outcome?.sentence(board.players) ?? null,
    legal: () => (typeof expected.legal === 'number' ? legal.length : legal.join(' ')),
    pawns_left: () => ['pink', 'black'].flatMap((p) => ['X', 'O'].map((s) => board.pawnsLeft(p, s))),
    totems: () => [...board.totems],
    formations: () => board.formationsText(),
    shapes: () => board.players.flatMap((/** @type {string} */ p) => Object.entries(board.formations(p))
      .map(([kind, f]) => `${kind}=${f.squareNames().join(',')}`)).join(' '),
    scoreboard: () => board.scoreboardText(),
    agreed: () => (outcome === null ? board.agreed().text() : null),
    show: () => board.show(),
  };
  return Object.fromEntries(Object.keys(expected).map((key) => [key, answers[key]()]));
}

/**
 * What an action refused: `invalid`, `illegal` (with its reason), `over`, `position`; anything else is a bug.
 * @param {unknown} error
 */
function refusal(error) {
  if (error instanceof InvalidMoveError) return { error: 'invalid', reason: null };
  if (error instanceof IllegalMoveError) return { error: 'illegal', reason: error.reason };
  if (error instanceof GameOverError) return { error: 'over', reason: null };
  if (error instanceof InvalidPositionError) return { error: 'position', reason: null };
  throw error;
}

/**
 * Replay one playthrough; the first difference from the Python engine's answers, described, or null.
 * @param {{ kind: 'oxono' | 'olix', steps: any[] }} record
 * @param {(board: any) => string | null} [extra] a check of this engine's own at every `check` step
 * @returns {string | null}
 */
export function replay(record, extra) {
  const Board = BOARDS[record.kind];
  /** @type {any} */
  let board = null;
  for (const [index, step] of record.steps.entries()) {
    const where = `${record.kind} step ${index} ${JSON.stringify(step).slice(0, 300)}`;
    /** @type {{ error: string | null, reason: string | null }} */
    let got = { error: null, reason: null };
    const before = board?.position();
    try {
      if (step.do === 'new') board = new Board();
      else if (step.do === 'load') board = Board.fromPosition(step.text);
      else if (step.do === 'play') board.play(step.move);
      else if (step.do === 'pop') board.pop();
      else if (step.do === 'resign') board.resign();
      else if (step.do === 'end') board.end();
      else if (step.do !== 'check') return `${where}: unknown step`;
    } catch (error) {
      got = refusal(error);
    }
    if (step.do === 'load') {
      if ((got.error === null) !== step.ok) return `${where}: loaded ${got.error === null}, Python ${step.ok}`;
    } else if (step.do === 'check') {
      const actual = snapshot(board, step.state);
      for (const key of Object.keys(step.state)) {
        if (JSON.stringify(actual[key]) !== JSON.stringify(step.state[key])) {
          return `${record.kind} step ${index}, ${key} differs in ${step.state.position}\n`
            + `  JavaScript: ${JSON.stringify(actual[key])}\n  Python:     ${JSON.stringify(step.state[key])}`;
        }
      }
      const own = extra?.(board);
      if (own) return `${record.kind} step ${index} (${step.state.position}): ${own}`;
    } else if (step.error !== undefined) {
      if (got.error !== step.error || (step.reason ?? null) !== (got.error === 'illegal' ? got.reason : null)) {
        return `${where}: JavaScript ${JSON.stringify(got)}`;
      }
      if (got.error !== null && board.position() !== before) return `${where}: a refused action changed the board`;
    } else if (got.error !== null) {
      return `${where}: refused, ${JSON.stringify(got)}`;
    }
  }
  return null;
}
