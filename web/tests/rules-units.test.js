// The JavaScript rules on their own: the reference counts, the move texts, the errors, the worked examples of
// docs/olix.md, and the surface a spectator's page reads. Run: node --test web/tests/rules-units.test.js

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GameOverError, IllegalMoveError, InvalidMoveError, InvalidPositionError, Outcome } from '../js/rules-common.js';
import { OlixBoard, OlixMove, START as OLIX_START, scoreboardOf } from '../js/olix.js';
import { OxonoBoard, OxonoMove, START as OXONO_START } from '../js/oxono.js';

test('oxono: the reference counts from the start (docs/oxono.md, rule 14)', () => {
  const board = new OxonoBoard();
  assert.deepEqual([1, 2, 3].map((depth) => board.perft(depth)), [68, 3612, 162680]);
  assert.equal(board.position(), OXONO_START);
});

test('oxono: a move in any letter case, written canonically', () => {
  for (const text of ['oC6C5', 'OC6C5', 'oc6c5', 'Oc6C5']) {
    const board = new OxonoBoard();
    assert.equal(board.play(text).text(), 'Oc6c5');
    assert.equal(board.position(), '6/2O3/6/6/6/6 black d3 c6');
    assert.deepEqual(board.pawnAt(26), { colour: 'pink', symbol: 'O' });
    assert.equal(board.totemAt(32), 'O');
    assert.equal(board.pawnsLeft('pink', 'O'), 7);
    assert.equal(board.turn, 'black');
  }
});

test('oxono: text that spells no move is invalid and names the input; the board is unchanged', () => {
  for (const text of ['', 'Oc6', 'Zc6c5', 'Oc6c5x', 'O c6c5', 'Oc6c55', '6c6c5', 'Oé6c5', 'Oa0a1']) {
    const board = new OxonoBoard();
    assert.throws(() => board.play(text), (error) => error instanceof InvalidMoveError && error.message.includes(`'${text}'`));
    assert.equal(board.position(), OXONO_START);
  }
});

test('oxono: a forbidden move is illegal, with the reason the Python engine gives', () => {
  const reasons = {
    Xd3d4: 'totem X on d3 cannot reach d3',
    Oc6c4: 'a pawn cannot go on c4 after totem O moves to c6',
    Xc4c5: 'totem X on d3 cannot reach c4',
    Xa4a5: 'totem X on d3 cannot reach a4',
    Oc5c5: 'a pawn cannot go on c5 after totem O moves to c5',
  };
  for (const [text, reason] of Object.entries(reasons)) {
    const board = new OxonoBoard();
    assert.throws(() => board.play(text), (error) => error instanceof IllegalMoveError && error.reason === reason
      && error.message === `illegal move '${text}' in position '${OXONO_START}': ${reason}`);
    assert.equal(board.position(), OXONO_START);
  }
});

test('oxono: positions that cannot be are refused, naming the text', () => {
  for (const text of ['6/6/6/6/6/6 black d3 c4', 'XXXXXX/XXXooo/ooooo1/6/6/6 black a1 b1', '6/6/6/6/6/6 pink d3 d3',
    '6/6/6/6/6/X5 black a1 c4', '6/6/6/6/6/6 pink d3 c4 ', '6/6/6/6/6/51 pink d3 c4', '6/6/6/6/6 pink d3 c4']) {
    assert.throws(() => OxonoBoard.fromPosition(text),
      (error) => error instanceof InvalidPositionError && error.message.startsWith(`invalid Oxono position '${text}': `));
  }
});

test('oxono: a win, then resigning, ending and playing are refused; pop takes the move back', () => {
  const board = OxonoBoard.fromPosition('xox3/6/6/6/6/XOO3 pink d3 c4');
  board.play('Xd2d1'); // pink X O O X in a row
  assert.ok(board.outcome()?.equals(new Outcome('pink', 'colour')));
  assert.equal(board.outcome()?.sentence(board.players), 'pink wins: four in a row of one colour');
  assert.deepEqual(board.legalMoves(), []);
  assert.throws(() => board.play('Oc5c6'), (error) => error instanceof IllegalMoveError && error.reason === 'the game is over');
  assert.throws(() => board.resign(), GameOverError);
  assert.throws(() => board.end(), GameOverError);
  assert.equal(board.pop()?.text(), 'Xd2d1');
  assert.equal(board.outcome(), null);
  assert.equal(board.resign('pink').sentence(board.players), 'black wins by pink\'s resignation');
  assert.equal(board.pop(), null);
  assert.equal(board.end().sentence(board.players), 'draw by agreement');
});

test('oxono: copies are independent', () => {
  const board = new OxonoBoard();
  const copy = board.copy();
  copy.play('Oc6c5');
  assert.equal(board.position(), OXONO_START);
  assert.equal(copy.moveStack.length, 1);
  assert.ok(new OxonoMove('O', 32, 26).equals(copy.moveStack[0]));
});

test('olix: move texts', () => {
  for (const [text, square, canonical] of [['f6', 60, 'f6'], ['K11', 120, 'k11'], ['a1', 0, 'a1']]) {
    const move = OlixMove.fromText(String(text));
    assert.equal(move.square, square);
    assert.equal(move.text(), canonical);
  }
  for (const text of ['', 'f', 'f0', 'f12', 'l1', 'f06', '6f', 'f 6', ' f6', 'ff6', 'f6 ']) {
    assert.throws(() => OlixMove.fromText(text), (error) => error instanceof InvalidMoveError && error.message.includes(`'${text}'`));
  }
});

test('olix: the worked scoreboard and tie-break of docs/olix.md', () => {
  const board = new OlixBoard();
  for (const text of 'c3 h5 d4 h6 c4 h4 d3 h7 e3 h3 c5 h8 h9 h2 h1 i2'.split(' ')) board.play(text);
  assert.equal(board.formationsText(), 'first O=4 L=5 I=0 X=0 second O=0 L=0 I=7 X=0');
  assert.equal(board.scoreboardText(), 'O 4:first 6:- 8:- 9:-\nL 5:first 6:- 7:- 8:-\nI 4:- 5:- 6:- 7:second\nX 4:- 5:- 6:- 7:-');
  assert.equal(board.scoreboard().leader(), 'first');
  assert.deepEqual(board.formations('second').I.squareNames(), ['h2', 'h3', 'h4', 'h5', 'h6', 'h7', 'h8']);
  assert.deepEqual(board.formations('first').O.squareNames(), ['c3', 'd3', 'c4', 'd4']);
  assert.equal(board.stoneAt(7), 'first');
  board.play('e5');
  board.play('i3');
  const scoreboard = board.scoreboard();
  assert.equal(scoreboard.get('O').text(), 'O 4:both 6:- 8:- 9:-');
  assert.deepEqual(scoreboard.positions('first'), [1, 1]);
  assert.deepEqual(scoreboard.positions('second'), [4, 1]);
  assert.equal(scoreboard.leader(), 'second');
  assert.equal(board.agreed().sentence(board.players), 'second wins on markers after the game was ended by agreement');
  // the made-up draw: O 6 and X 4 against L 6 and I 4
  assert.equal(scoreboardOf([6, 0, 0, 4], [0, 6, 4, 0]).leader(), null);
});

test('olix: occupied squares and finished games are refused with the Python engine\'s reasons', () => {
  const board = new OlixBoard();
  board.play('f6');
  assert.throws(() => board.play('F6'), (error) => error instanceof IllegalMoveError && error.reason === 'f6 is occupied');
  const won = OlixBoard.fromPosition('11/11/11/11/11/XXXXXXXX3/11/11/O10/11/O1O1O1O1O1O second');
  assert.equal(won.outcome()?.text(), 'first formation');
  assert.throws(() => won.play('k11'), (error) => error instanceof IllegalMoveError
    && error.reason === 'the game is over (first formation)');
  assert.throws(() => OlixBoard.fromPosition('10O/11/11/11/11/XXXXXXXX3/11/11/O10/11/O1O1O1O1O1O first'),
    (error) => error instanceof InvalidPositionError && error.message.includes('automatic win'));
});

test('olix: the lattice of the rule tests loads settled (rule 11), a draw on markers', () => {
  const lattice = 'XXOO1XXOO1X/O1XXOO1XXOO/XOO1XXOO1XX/1XXOO1XXOO1/OO1XXOO1XXO/XXOO1XXOO1X/O1XXOO1XXOO/XOO1XXOO1XX/'
    + '1XXOO1XXOO1/OO1XXOO1XXO/XXOO1XXOO1X second';
  const board = OlixBoard.fromPosition(lattice);
  assert.equal(board.outcome()?.text(), 'draw settled');
  assert.equal(board.outcome()?.sentence(board.players), 'draw on markers: no marker can change any more');
  assert.ok(board.isSettled());
  assert.deepEqual(board.legalMoves(), []);
  assert.equal(new OlixBoard().isSettled(), false);
});

test('olix: resign, end by agreement and pop; copies are independent', () => {
  const board = new OlixBoard();
  assert.equal(board.end().text(), 'draw agreed');
  assert.equal(board.outcome()?.sentence(board.players), 'draw on markers after the game was ended by agreement');
  assert.equal(board.pop(), null);
  board.play('a1');
  const copy = board.copy();
  copy.play('b1');
  assert.equal(board.position(), '11/11/11/11/11/11/11/11/11/11/X10 second');
  assert.equal(copy.pop()?.text(), 'b1');
  assert.equal(copy.pop()?.text(), 'a1');
  assert.equal(copy.position(), OLIX_START);
  assert.throws(() => copy.pop(), RangeError);
  assert.equal(board.resign().text(), 'first resigned');
});
