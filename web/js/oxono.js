// The Oxono rules engine: the second implementation of olixono/oxono.py (docs/oxono.md).
// The board is 6 × 6; square `rank * 6 + file` (a1 = 0, f1 = 5, a6 = 30). Plain arrays, no bitboards: 36 squares
// do not fit a 32-bit int, and a spectator checks one move at a time.

import {
  Board, EndReason, GameKind, InvalidMoveError, InvalidPositionError, Outcome,
  checkTurn, loadPosition, parseSquare, pyRepr, readRanks, squareName, writeRanks,
} from './rules-common.js';

export const WIDTH = 6;
export const SQUARES = WIDTH * WIDTH;
export const SYMBOLS = 'XO';
export const PLAYERS = Object.freeze(['pink', 'black']);
export const PAWNS_PER_SYMBOL = 8;
export const PAWNS_IN_ALL = 2 * 2 * PAWNS_PER_SYMBOL;
/** X on d3, O on c4 (rule 4). */
export const START_TOTEMS = Object.freeze([3 + 2 * WIDTH, 2 + 3 * WIDTH]);
export const START = '6/6/6/6/6/6 pink d3 c4';

/** Direction steps as [rank, file] deltas: north, south, east, west (the Python engine's order). */
const DIRECTIONS = [[1, 0], [-1, 0], [0, 1], [0, -1]];

/**
 * The squares from `square` (excluded) to the edge in each direction.
 * @type {number[][][]}
 */
const RAYS = Array.from({ length: SQUARES }, (_, square) => DIRECTIONS.map(([dr, df]) => {
  const out = [];
  let rank = Math.floor(square / WIDTH) + dr;
  let file = (square % WIDTH) + df;
  while (rank >= 0 && rank < WIDTH && file >= 0 && file < WIDTH) {
    out.push(rank * WIDTH + file);
    rank += dr;
    file += df;
  }
  return out;
}));

/** Each square's orthogonal neighbours, in ascending order. @type {number[][]} */
const NEIGHBOURS = RAYS.map((rays) => rays.filter((ray) => ray.length > 0).map((ray) => ray[0]).sort((a, b) => a - b));

/** Every orthogonal line of four squares through each square. @type {number[][][]} */
const WINDOWS = Array.from({ length: SQUARES }, (_, square) => {
  const rank = Math.floor(square / WIDTH);
  const file = square % WIDTH;
  const out = [];
  for (let start = Math.max(0, file - 3); start <= Math.min(WIDTH - 4, file); start += 1) {
    out.push([0, 1, 2, 3].map((k) => rank * WIDTH + start + k));
  }
  for (let start = Math.max(0, rank - 3); start <= Math.min(WIDTH - 4, rank); start += 1) {
    out.push([0, 1, 2, 3].map((k) => (start + k) * WIDTH + file));
  }
  return out;
});

/** A pawn: its owner and the symbol it bears. @typedef {{ colour: string, symbol: string }} Pawn */

/** Move a totem to `to`, then place a pawn of its symbol on `pawn`. */
export class OxonoMove {
  /**
   * @param {string} totem `X` or `O`
   * @param {number} to
   * @param {number} pawn
   */
  constructor(totem, to, pawn) {
    const onBoard = (/** @type {number} */ s) => Number.isInteger(s) && s >= 0 && s < SQUARES;
    if ((totem !== 'X' && totem !== 'O') || !onBoard(to) || !onBoard(pawn)) {
      throw new InvalidMoveError(`not an Oxono move: totem=${pyRepr(String(totem))} to=${to} pawn=${pawn}`);
    }
    this.totem = totem;
    this.to = to;
    this.pawn = pawn;
    Object.freeze(this);
  }

  /**
   * Parse `<totem><to><pawn>` in any letter case, e.g. `oC6c5`.
   * @param {string} text
   */
  static fromText(text) {
    if (typeof text !== 'string' || text.length !== 5 || !/^[\x00-\x7f]*$/.test(text)) {
      throw new InvalidMoveError(`not an Oxono move: ${pyRepr(String(text))} (expected e.g. Oc6c5)`);
    }
    const totem = text[0].toUpperCase();
    if (totem !== 'X' && totem !== 'O') {
      throw new InvalidMoveError(`not an Oxono move: ${pyRepr(text)} (a move starts with the totem, X or O)`);
    }
    try {
      return new OxonoMove(totem, parseSquare(text.slice(1, 3), WIDTH), parseSquare(text.slice(3, 5), WIDTH));
    } catch (error) {
      if (error instanceof InvalidMoveError) {
        throw new InvalidMoveError(`not an Oxono move: ${pyRepr(text)} (${error.message})`);
      }
      throw error;
    }
  }

  /** Canonical text: upper-case totem, lower-case squares (the `move=` of a signed line). */
  text() {
    return `${this.totem}${squareName(this.to, WIDTH)}${squareName(this.pawn, WIDTH)}`;
  }

  toString() {
    return this.text();
  }

  /** @param {OxonoMove} other */
  equals(other) {
    return other.totem === this.totem && other.to === this.to && other.pawn === this.pawn;
  }
}

/**
 * Rule 10: where the pawn may go once the totem stands on `dest` (`free`: which squares are free, the totem's old
 * square included).
 * @param {number} dest
 * @param {boolean[]} free
 */
function pawnSquares(dest, free) {
  const near = NEIGHBOURS[dest].filter((s) => free[s]);
  if (near.length) return near;
  const anywhere = [];
  for (let s = 0; s < SQUARES; s += 1) if (free[s] && s !== dest) anywhere.push(s);
  return anywhere;
}

/** An Oxono game: the position, whose turn it is, and the moves played. @extends {Board<OxonoMove, { totemFrom: number, outcome: Outcome | null }>} */
export class OxonoBoard extends Board {
  constructor() {
    super();
    /** Each square's pawn, or null. @type {(Pawn | null)[]} */
    this.cells = new Array(SQUARES).fill(null);
    /** The squares of the X and O totems. @type {number[]} */
    this.totems = [...START_TOTEMS];
  }

  /**
   * Load a position text (`6/6/6/6/6/6 pink d3 c4` is the start); {@link InvalidPositionError} naming the text.
   * @param {string} text
   */
  static fromPosition(text) {
    return loadPosition(OxonoBoard, 'Oxono', text);
  }

  // -- state ------------------------------------------------------------------------------------------------------

  /**
   * The pawn on `square`, if any.
   * @param {number} square
   * @returns {Pawn | null}
   */
  pawnAt(square) {
    return this.cells[square];
  }

  /**
   * How many pawns marked `symbol` `player` still has to place.
   * @param {string} player
   * @param {string} symbol
   */
  pawnsLeft(player, symbol) {
    let placed = 0;
    for (const pawn of this.cells) if (pawn && pawn.colour === player && pawn.symbol === symbol) placed += 1;
    return PAWNS_PER_SYMBOL - placed;
  }

  /** How many pawns stand on the board. */
  pawnCount() {
    return this.cells.filter((pawn) => pawn !== null).length;
  }

  /**
   * The totem standing on `square` (`X` or `O`), if any.
   * @param {number} square
   */
  totemAt(square) {
    const index = this.totems.indexOf(square);
    return index < 0 ? null : SYMBOLS[index];
  }

  /** Rule 5: the symbols the player to move still has pawns of. */
  usableTotems() {
    return [...SYMBOLS].filter((symbol) => this.pawnsLeft(this.turn, symbol) > 0);
  }

  /**
   * Which squares are free for the totem of `symbol` (pawns and the other totem occupy; its own square is free).
   * @param {number} symbolIndex
   */
  freeFor(symbolIndex) {
    const other = this.totems[1 - symbolIndex];
    return this.cells.map((pawn, s) => pawn === null && s !== other);
  }

  /**
   * Rules 7–9: every square the totem of `symbol` may move to, in ascending order.
   * @param {string} symbol `X` or `O`
   */
  totemDestinations(symbol) {
    const index = SYMBOLS.indexOf(symbol);
    const square = this.totems[index];
    const free = this.freeFor(index);
    const enclosed = NEIGHBOURS[square].every((s) => !free[s]);
    const dests = [];
    for (const ray of RAYS[square]) {
      for (const s of ray) {
        if (!enclosed && !free[s]) break; // rule 7: slide over free squares
        if (free[s]) {
          dests.push(s);
          if (enclosed) break; // rule 8: jump the run, land on the first free square
        }
      }
    }
    if (enclosed && dests.length === 0) {
      // rule 9: anywhere free but where it stands
      for (let s = 0; s < SQUARES; s += 1) if (free[s] && s !== square) dests.push(s);
    }
    return dests.sort((a, b) => a - b);
  }

  /**
   * Rule 10: where the pawn may go once the totem of `symbol` stands on `to`.
   * @param {string} symbol
   * @param {number} to
   */
  pawnSquares(symbol, to) {
    return pawnSquares(to, this.freeFor(SYMBOLS.indexOf(symbol)));
  }

  // -- moves ------------------------------------------------------------------------------------------------------

  /** @param {string} text */
  parseMove(text) {
    return OxonoMove.fromText(text);
  }

  /** Every legal move, in the Python engine's order (totem X then O, destination, pawn square). */
  legalMoves() {
    if (this.isGameOver()) return [];
    const moves = [];
    for (const symbol of this.usableTotems()) {
      const free = this.freeFor(SYMBOLS.indexOf(symbol));
      for (const to of this.totemDestinations(symbol)) {
        for (const pawn of pawnSquares(to, free)) moves.push(new OxonoMove(symbol, to, pawn));
      }
    }
    return moves;
  }

  /**
   * Why `move` is illegal here, in words (the Python engine's words); `null` if it is legal.
   * @param {OxonoMove} move
   */
  whyIllegal(move) {
    if (!(move instanceof OxonoMove)) return `not an Oxono move: ${String(move)}`;
    if (this.isGameOver()) return 'the game is over';
    if (!this.usableTotems().includes(move.totem)) return `${this.turn} has no pawn marked ${move.totem} left`;
    const from = squareName(this.totems[SYMBOLS.indexOf(move.totem)], WIDTH);
    const to = squareName(move.to, WIDTH);
    if (!this.totemDestinations(move.totem).includes(move.to)) return `totem ${move.totem} on ${from} cannot reach ${to}`;
    if (!this.pawnSquares(move.totem, move.to).includes(move.pawn)) {
      return `a pawn cannot go on ${squareName(move.pawn, WIDTH)} after totem ${move.totem} moves to ${to}`;
    }
    return null;
  }

  /**
   * The fast unchecked path: apply `move`, assumed legal (see `play`).
   * @param {OxonoMove} move
   */
  push(move) {
    const index = SYMBOLS.indexOf(move.totem);
    this.undo.push({ totemFrom: this.totems[index], outcome: this.ruleOutcome });
    this.moveStack.push(move);
    this.totems[index] = move.to;
    this.cells[move.pawn] = { colour: this.turn, symbol: move.totem };
    const line = this.lineMadeAt(move.pawn);
    if (line) this.ruleOutcome = new Outcome(this.turn, line);
    else if (this.pawnCount() === PAWNS_IN_ALL) this.ruleOutcome = new Outcome(null, EndReason.EXHAUSTED);
    this.turnIndex ^= 1;
  }

  /** Undo the last action: a resignation or agreement if there was one (returns null), else the last move. */
  pop() {
    const last = this.takeBack();
    if (last === null) return null;
    const { move, undo } = last;
    this.turnIndex ^= 1;
    this.cells[move.pawn] = null;
    this.totems[SYMBOLS.indexOf(move.totem)] = undo.totemFrom;
    this.ruleOutcome = undo.outcome;
    return move;
  }

  /**
   * Rule 11: `colour` or `symbol` if the pawn on `square` completes a line of four (a colour line first).
   * @param {number} square
   * @returns {string | null}
   */
  lineMadeAt(square) {
    for (const key of /** @type {const} */ (['colour', 'symbol'])) {
      for (const window of WINDOWS[square]) {
        const first = this.cells[window[0]];
        if (first && window.every((s) => this.cells[s]?.[key] === first[key])) {
          return key === 'colour' ? EndReason.COLOUR : EndReason.SYMBOL;
        }
      }
    }
    return null;
  }

  /** A draw: what ending the game by agreement gives in Oxono. */
  agreed() {
    return new Outcome(null, EndReason.AGREED);
  }

  // -- text -------------------------------------------------------------------------------------------------------

  /** Position text: `<ranks 6 to 1> <turn> <X totem> <O totem>`, e.g. `6/2O3/6/6/6/6 black d3 c6`. */
  position() {
    const ranks = writeRanks(WIDTH, (s) => {
      const pawn = this.cells[s];
      if (pawn === null) return '';
      return pawn.colour === 'pink' ? pawn.symbol : pawn.symbol.toLowerCase();
    });
    return `${ranks} ${this.turn} ${this.totems.map((s) => squareName(s, WIDTH)).join(' ')}`;
  }

  /**
   * Read a position text into this fresh board (`OxonoBoard.fromPosition` is the public way). Exactly one spelling
   * of each position is accepted; a position that already holds a line was won by the player who moved last.
   * @param {string} text
   */
  load(text) {
    const fields = text.split(' ');
    if (fields.length !== 4) throw new InvalidPositionError('expected 4 fields separated by single spaces');
    const [ranksText, turn, xText, oText] = fields;
    readRanks(ranksText, WIDTH, 'XOxo').forEach((letter, s) => {
      if (letter) this.cells[s] = { colour: letter === letter.toUpperCase() ? 'pink' : 'black', symbol: letter.toUpperCase() };
    });
    try {
      this.totems = [parseSquare(xText, WIDTH), parseSquare(oText, WIDTH)];
    } catch (error) {
      if (error instanceof InvalidMoveError) throw new InvalidPositionError(`bad totem square: ${error.message}`);
      throw error;
    }
    if (this.totems[0] === this.totems[1]) throw new InvalidPositionError('both totems on one square');
    if (this.totems.some((s) => this.cells[s] !== null)) throw new InvalidPositionError('a totem stands on a pawn');
    for (const player of PLAYERS) {
      for (const symbol of SYMBOLS) {
        if (this.pawnsLeft(player, symbol) < 0) {
          throw new InvalidPositionError(`${player} has more than ${PAWNS_PER_SYMBOL} pawns marked ${symbol}`);
        }
      }
    }
    const counts = PLAYERS.map((player) => this.cells.filter((pawn) => pawn?.colour === player).length);
    this.turnIndex = checkTurn(PLAYERS, counts[0], counts[1], turn, 'pawns');
    if (this.position() !== text) throw new InvalidPositionError(`not in canonical form (it would be ${pyRepr(this.position())})`);
    const line = this.anyLine();
    if (line) this.ruleOutcome = new Outcome(PLAYERS[1 - this.turnIndex], line);
    else if (this.pawnCount() === PAWNS_IN_ALL) this.ruleOutcome = new Outcome(null, EndReason.EXHAUSTED);
  }

  /** Like `lineMadeAt`, over the whole board (for loaded positions): a colour line anywhere first. */
  anyLine() {
    /** @type {string | null} */
    let symbolLine = null;
    for (let s = 0; s < SQUARES; s += 1) {
      if (this.cells[s] === null) continue;
      const line = this.lineMadeAt(s);
      if (line === EndReason.COLOUR) return line;
      symbolLine ??= line;
    }
    return symbolLine;
  }

  /** The board as text, rank 6 at the top: pink pawns upper case, black lower case, totems in brackets. */
  show() {
    const lines = [];
    for (let rank = WIDTH - 1; rank >= 0; rank -= 1) {
      let cells = '';
      for (let file = 0; file < WIDTH; file += 1) {
        const s = rank * WIDTH + file;
        const totem = this.totemAt(s);
        const pawn = this.cells[s];
        if (totem) cells += `[${totem}]`;
        else if (pawn === null) cells += ' . ';
        else cells += ` ${pawn.colour === 'pink' ? pawn.symbol : pawn.symbol.toLowerCase()} `;
      }
      lines.push(`${rank + 1} ${cells.trimEnd()}`);
    }
    lines.push(`   ${'abcdef'.split('').map((f) => `${f}  `).join('').trimEnd()}`);
    const status = this.outcome();
    if (status) {
      lines.push(`game over: ${status.sentence(PLAYERS)}`);
    } else {
      const left = PLAYERS.map((p) => `${p} X${this.pawnsLeft(p, 'X')} O${this.pawnsLeft(p, 'O')}`).join(' ');
      lines.push(`${this.turn} to move; pawns left: ${left}`);
    }
    return lines.join('\n');
  }

  /** An independent copy, history included. */
  copy() {
    const board = new OxonoBoard();
    board.cells = [...this.cells];
    board.totems = [...this.totems];
    return this.copyHistoryTo(board);
  }

  /**
   * The number of move sequences of `depth` plies from here (finished games stop early).
   * @param {number} depth
   * @returns {number}
   */
  perft(depth) {
    if (this.isGameOver()) return depth ? 0 : 1;
    if (depth === 0) return 1;
    const moves = this.legalMoves();
    if (depth === 1) return moves.length;
    let total = 0;
    for (const move of moves) {
      this.push(move);
      total += this.perft(depth - 1);
      this.pop();
    }
    return total;
  }
}

/** What code that works for either game reads off the class (Python's `Board.KIND`, `NAME`, `PLAYERS`, `WIDTH`). */
Object.assign(OxonoBoard, { KIND: GameKind.OXONO, NAME: 'Oxono', PLAYERS, WIDTH });
