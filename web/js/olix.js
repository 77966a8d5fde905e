// The Olix rules engine: the second implementation of olixono/olix.py (docs/olix.md).
// The board is 11 × 11; square `rank * 11 + file` (a1 = 0, k1 = 10, a11 = 110). Where the Python engine updates
// its formations incrementally, this one recomputes the mover's best formations from all its stones after each
// stone (stones never leave, so the best so far is the best on the board): slower, and plainly the rules. The
// squares a best formation shows are the Python engine's choice among equals (`shapeThrough`), so both draw the same.

import {
  Board, EndReason, GameKind, InvalidMoveError, InvalidPositionError, Outcome,
  checkTurn, loadPosition, parseSquare, pyRepr, readRanks, squareName, writeRanks,
} from './rules-common.js';

export const WIDTH = 11;
export const SQUARES = WIDTH * WIDTH;
export const STONES_PER_PLAYER = 50;
export const STONES_IN_ALL = 2 * STONES_PER_PLAYER;
export const PLAYERS = Object.freeze(['first', 'second']);
/** How `show` draws first's and second's stones (never X or O, which name formations). */
export const STONE_GLYPHS = Object.freeze(['#', 'o']);
export const START = '11/11/11/11/11/11/11/11/11/11/11 first';

/** The formation types, in scoreboard order; internally indexed 0–3. */
export const KINDS = Object.freeze(['O', 'L', 'I', 'X']);
const [O_, L_, I_, X_] = [0, 1, 2, 3];
/** Rule 8: the four fields of each track. @type {Readonly<Record<string, readonly number[]>>} */
export const FIELDS = Object.freeze({
  O: Object.freeze([4, 6, 8, 9]),
  L: Object.freeze([5, 6, 7, 8]),
  I: Object.freeze([4, 5, 6, 7]),
  X: Object.freeze([4, 5, 6, 7]),
});
const TRACKS = KINDS.map((kind) => FIELDS[kind]);
const FIRST_FIELD = TRACKS.map((fields) => fields[0]);
const TOP_FIELD = TRACKS.map((fields) => fields[fields.length - 1]);

/** Steps as [rank, file] deltas, in pairs of opposite directions: east/west, north/south, the two diagonals. */
const STEPS = [[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [-1, -1], [-1, 1], [1, -1]];
const [EAST, WEST, NORTH, SOUTH] = [0, 1, 2, 3];

/**
 * For each step, the length of the unbroken run of `stones` from each square (itself included) that way.
 * @param {Int8Array} stones 1 on a square of the set
 * @returns {Int8Array[]}
 */
function runsOf(stones) {
  return STEPS.map(([dr, df]) => {
    const run = new Int8Array(SQUARES);
    // visit squares so that the next one along the step is done first
    const ranks = dr > 0 ? [...Array(WIDTH).keys()].reverse() : [...Array(WIDTH).keys()];
    const files = df > 0 ? [...Array(WIDTH).keys()].reverse() : [...Array(WIDTH).keys()];
    for (const rank of ranks) {
      for (const file of files) {
        const s = rank * WIDTH + file;
        if (!stones[s]) continue;
        const r = rank + dr;
        const f = file + df;
        const inside = r >= 0 && r < WIDTH && f >= 0 && f < WIDTH;
        run[s] = 1 + (inside ? run[r * WIDTH + f] : 0);
      }
    }
    return run;
  });
}

/**
 * The squares `start`, `start + step`, … (`length` of them), ascending.
 * @param {number} start
 * @param {number[]} step
 * @param {number} length
 */
function runSquares(start, [dr, df], length) {
  const out = [];
  for (let k = 0; k < length; k += 1) out.push((Math.floor(start / WIDTH) + dr * k) * WIDTH + (start % WIDTH) + df * k);
  return out.sort((a, b) => a - b);
}

/**
 * A set of stones with what its formations are read from: the runs every way and the stones' counts in
 * rectangles. `best(kind)` is the value of its best formation of a type (0 when none), `squares(kind)` that
 * formation's squares (the first found scanning from a1; for an L, the longer arm each way, east and north on a
 * tie, as the Python engine draws it).
 */
class Formations {
  /** @param {Int8Array} stones */
  constructor(stones) {
    this.stones = stones;
    this.runs = runsOf(stones);
    // count[r][f]: stones in ranks < r and files < f
    this.count = Array.from({ length: WIDTH + 1 }, () => new Int16Array(WIDTH + 1));
    for (let r = 0; r < WIDTH; r += 1) {
      for (let f = 0; f < WIDTH; f += 1) {
        this.count[r + 1][f + 1] = this.count[r][f + 1] + this.count[r + 1][f] - this.count[r][f] + stones[r * WIDTH + f];
      }
    }
  }

  /**
   * The best formation of type `kind` (0–3): its value (0 when none) and where it lies.
   * @param {number} kind
   * @returns {{ value: number, squares: number[] }}
   */
  best(kind) {
    if (kind === O_) return this.bestO();
    if (kind === L_) return this.bestL();
    return this.bestLine(kind === I_ ? [0, 2] : [4, 6]);
  }

  /**
   * I or X (rules 4, 5): the longest run of four or more along the given step pairs.
   * @param {number[]} pairs indices into STEPS of the forward step of each direction (its opposite follows)
   */
  bestLine(pairs) {
    let value = 0;
    let squares = /** @type {number[]} */ ([]);
    for (let s = 0; s < SQUARES; s += 1) {
      for (const pair of pairs) {
        // a run is counted from its start: the square with nothing behind it
        if (this.runs[pair + 1][s] !== 1) continue;
        const length = this.runs[pair][s];
        if (length >= 4 && length > value) {
          value = length;
          squares = runSquares(s, STEPS[pair], length);
        }
      }
    }
    return { value, squares };
  }

  /** L (rule 6): on each corner the longer arm each way, if both hold three stones. */
  bestL() {
    const [east, west, north, south] = this.runs;
    let value = 0;
    let squares = /** @type {number[]} */ ([]);
    for (let s = 0; s < SQUARES; s += 1) {
      const across = Math.max(east[s], west[s]);
      const up = Math.max(north[s], south[s]);
      if (across < 3 || up < 3 || across + up - 1 <= value) continue;
      value = across + up - 1;
      squares = this.lSquares(s);
    }
    return { value, squares };
  }

  /**
   * The squares of the best L on `corner`: the longer arm each way, east and north on a tie.
   * @param {number} corner
   */
  lSquares(corner) {
    const [east, west, north, south] = this.runs;
    const across = runSquares(corner, STEPS[east[corner] >= west[corner] ? EAST : WEST], Math.max(east[corner], west[corner]));
    const up = runSquares(corner, STEPS[north[corner] >= south[corner] ? NORTH : SOUTH], Math.max(north[corner], south[corner]));
    return [...new Set([...across, ...up])].sort((a, b) => a - b);
  }

  /** O (rule 7): a rectangle at least 2 × 2 with a full boundary, worth the stones in it. */
  bestO() {
    const [east, , north] = this.runs;
    let value = 0;
    let rect = [0, 0, 0, 0];
    for (let bottom = 0; bottom < WIDTH; bottom += 1) {
      for (let left = 0; left < WIDTH; left += 1) {
        const corner = bottom * WIDTH + left;
        for (let width = 2; width <= east[corner]; width += 1) {
          const right = left + width - 1;
          const up = Math.min(north[corner], north[bottom * WIDTH + right]);
          for (let height = 2; height <= up; height += 1) {
            const top = bottom + height - 1;
            if (east[top * WIDTH + left] < width) continue;
            const c = this.count;
            const inside = c[top + 1][right + 1] - c[bottom][right + 1] - c[top + 1][left] + c[bottom][left];
            if (inside > value) {
              value = inside;
              rect = [left, right, bottom, top];
            }
          }
        }
      }
    }
    const [left, right, bottom, top] = rect;
    const squares = [];
    if (value) {
      for (let r = bottom; r <= top; r += 1) {
        for (let f = left; f <= right; f += 1) if (this.stones[r * WIDTH + f]) squares.push(r * WIDTH + f);
      }
    }
    return { value, squares };
  }
}

// -- which squares a new best shows: the Python engine's choice, among the formations through the new stone ----------

/**
 * The stones of one rank as an 11-bit line (bit: the file); 0 off the board.
 * @param {Formations} formations
 * @param {number} rank
 */
function rankBits(formations, rank) {
  if (rank < 0 || rank >= WIDTH) return 0;
  let bits = 0;
  for (let file = 0; file < WIDTH; file += 1) if (formations.stones[rank * WIDTH + file]) bits |= 1 << file;
  return bits;
}

/**
 * The lowest bit `a <= pos` and the highest `b >= pos` of `line`, if `a < b`: the widest pair of side columns.
 * @param {number} line
 * @param {number} pos
 * @returns {[number, number] | null}
 */
function widest(line, pos) {
  if (!line) return null;
  const a = 31 - Math.clz32(line & -line);
  const b = 31 - Math.clz32(line);
  return a <= pos && pos <= b && a < b ? [a, b] : null;
}

/**
 * The run of `line` through `pos` (0 if `pos` is not set).
 * @param {number} line
 * @param {number} pos
 */
function runThrough(line, pos) {
  if (!(line >> pos & 1)) return 0;
  let low = pos;
  let high = pos;
  while (low > 0 && line >> (low - 1) & 1) low -= 1;
  while (high < WIDTH - 1 && line >> (high + 1) & 1) high += 1;
  return (2 << high) - (1 << low);
}

/**
 * The stones in a line's bits.
 * @param {number} line
 */
function bitCount(line) {
  let n = 0;
  for (let rest = line; rest; rest &= rest - 1) n += 1;
  return n;
}

/**
 * The squares of the new best formation of type `kind` (worth `value`, more than `before`) that the Python engine
 * shows after a stone on `square`: I and X along the longer run through it (the horizontal or the rising diagonal
 * on a tie); L on the first best corner along its rank's run, then its file's (longer arm each way, east and north
 * on a tie); O the widest rectangle whose edges the walk from its rank finds, the lowest side columns on a tie, the
 * first found on a tie of those. A choice that is not worth `value` is a bug, and says so.
 * @param {Formations} formations
 * @param {number} kind
 * @param {number} square
 * @param {number} before
 * @param {number} value
 * @returns {number[]}
 */
function shapeThrough(formations, kind, square, before, value) {
  const { runs } = formations;
  const [east, west, north, south] = runs;
  const rank = Math.floor(square / WIDTH);
  const file = square % WIDTH;
  /** @type {number[]} */
  let squares = [];
  if (kind === I_ || kind === X_) {
    // STEPS in pairs: east/west, north/south for I; the rising diagonal, then the falling one, for X
    const base = kind === I_ ? 0 : 4;
    const length = (/** @type {number} */ pair) => runs[pair][square] + runs[pair + 1][square] - 1;
    const pair = length(base) >= length(base + 2) ? base : base + 2;
    const back = runs[pair + 1][square] - 1;
    const [dr, df] = STEPS[pair + 1];
    squares = runSquares((rank + dr * back) * WIDTH + file + df * back, STEPS[pair], length(pair));
  } else if (kind === L_) {
    let best = before;
    let corner = -1;
    const corners = [];
    for (let f = file - west[square] + 1; f < file + east[square]; f += 1) corners.push(rank * WIDTH + f);
    for (let r = rank - south[square] + 1; r < rank + north[square]; r += 1) corners.push(r * WIDTH + file);
    for (const c of corners) {
      const across = Math.max(east[c], west[c]);
      const along = Math.max(north[c], south[c]);
      if (across >= 3 && along >= 3 && across + along - 1 > best) {
        best = across + along - 1;
        corner = c;
      }
    }
    if (corner >= 0) squares = formations.lSquares(corner);
  } else {
    squares = oThrough(formations, rank, file, before);
  }
  if (squares.length !== value) {
    throw new Error(`internal error: the ${KINDS[kind]} shown after ${squareName(square, WIDTH)} is not worth ${value}`);
  }
  return squares;
}

/**
 * The O the Python engine shows after a stone on (`rank`, `file`) beat `before`: it walks up and down from the
 * stone's rank while two side columns around the file go on, noting the ranks that can be an edge, and measures the
 * widest rectangle on each pair of edges.
 * @param {Formations} formations
 * @param {number} rank
 * @param {number} file
 * @param {number} before
 * @returns {number[]}
 */
function oThrough(formations, rank, file, before) {
  const row = rankBits(formations, rank);
  /** @type {[number, number][][]} */
  const [tops, bottoms] = [1, -1].map((step) => {
    const edges = /** @type {[number, number][]} */ ([]);
    let alive = row;
    for (let r = rank + step; widest(alive & rankBits(formations, r), file) !== null; r += step) {
      alive &= rankBits(formations, r);
      const edge = alive & runThrough(rankBits(formations, r), file);
      if (widest(edge, file) !== null) edges.push([r, edge]);
    }
    return edges;
  });
  if (!tops.length && !bottoms.length) return [];
  const edge = runThrough(row, file);
  if (widest(edge, file) !== null) {
    tops.push([rank, edge]);
    bottoms.push([rank, edge]);
  }
  let best = before;
  /** @type {number[] | null} */
  let rect = null;
  for (const [top, topEdge] of tops) {
    for (const [bottom, bottomEdge] of bottoms) {
      const pair = widest(topEdge & bottomEdge, file);
      if (pair === null || top === bottom) continue;
      const [a, b] = pair;
      const segment = (2 << b) - (1 << a);
      let value = 0;
      for (let r = bottom; r <= top; r += 1) value += bitCount(rankBits(formations, r) & segment);
      const lower = rect !== null && (a < rect[0] || (a === rect[0] && b < rect[1]));
      if (value > best || (value === best && lower)) {
        best = value;
        rect = [a, b, bottom, top];
      }
    }
  }
  if (rect === null) return [];
  const [left, right, bottom, top] = rect;
  const squares = [];
  for (let r = bottom; r <= top; r += 1) {
    for (let f = left; f <= right; f += 1) if (formations.stones[r * WIDTH + f]) squares.push(r * WIDTH + f);
  }
  return squares;
}

/** A player's best formation of one type: its value (0 when none) and its squares. */
export class Formation {
  /**
   * @param {number} value
   * @param {readonly number[]} squares ascending
   */
  constructor(value, squares) {
    this.value = value;
    this.squares = Object.freeze([...squares]);
    Object.freeze(this);
  }

  /** The names of its squares, in square order. */
  squareNames() {
    return this.squares.map((s) => squareName(s, WIDTH));
  }
}

/**
 * One track of the scoreboard (rule 9): `record` is the larger of the two players' best values of this type,
 * `holders` the players whose best equals it and reaches the first field.
 */
export class Track {
  /**
   * @param {string} kind
   * @param {number} record
   * @param {readonly string[]} holders
   */
  constructor(kind, record, holders) {
    this.kind = kind;
    this.record = record;
    this.holders = Object.freeze([...holders]);
    Object.freeze(this);
  }

  get fields() {
    return FIELDS[this.kind];
  }

  /** The value of the marked field, or null (nobody holds one, or the record lies above the top field). */
  get field() {
    return this.holders.length && this.fields.includes(this.record) ? this.record : null;
  }

  /** The marked field's position on the track, 1–4, or null. */
  get position() {
    return this.field === null ? null : this.fields.indexOf(this.record) + 1;
  }

  /** `O 4:- 6:second 8:- 9:-`: each field as value and holder. */
  text() {
    const marked = this.field;
    const who = this.holders.length === 2 ? 'both' : (this.holders[0] ?? '-');
    return `${this.kind} ${this.fields.map((value) => `${value}:${value === marked ? who : '-'}`).join(' ')}`;
  }
}

/** The four tracks, in order O L I X. */
export class Scoreboard {
  /** @param {readonly Track[]} tracks */
  constructor(tracks) {
    this.tracks = Object.freeze([...tracks]);
    Object.freeze(this);
  }

  /** @param {string} kind */
  get(kind) {
    return this.tracks[KINDS.indexOf(kind)];
  }

  /**
   * The field positions (1–4) of `player`'s markers, highest first.
   * @param {string} player
   * @returns {number[]}
   */
  positions(player) {
    return this.tracks
      .filter((t) => t.position !== null && t.holders.includes(player))
      .map((t) => /** @type {number} */ (t.position))
      .sort((a, b) => b - a);
  }

  /** Rule 12: more markers wins; then the higher field positions, compared from the top; else null (even). */
  leader() {
    const [first, second] = PLAYERS.map((p) => this.positions(p));
    if (first.length !== second.length) return first.length > second.length ? PLAYERS[0] : PLAYERS[1];
    for (let i = 0; i < first.length; i += 1) {
      if (first[i] !== second[i]) return first[i] > second[i] ? PLAYERS[0] : PLAYERS[1];
    }
    return null;
  }

  /** Four lines, one per track. */
  text() {
    return this.tracks.map((t) => t.text()).join('\n');
  }
}

/**
 * Rule 9: the scoreboard the two players' best values (in order O L I X) give.
 * @param {readonly number[]} firstBest
 * @param {readonly number[]} secondBest
 */
export function scoreboardOf(firstBest, secondBest) {
  return new Scoreboard(KINDS.map((kind, k) => {
    const record = Math.max(firstBest[k], secondBest[k]);
    const holders = PLAYERS.filter((_, p) => [firstBest, secondBest][p][k] === record && record >= FIRST_FIELD[k]);
    return new Track(kind, record, holders);
  }));
}

/**
 * Rule 10: a value above its track's top field.
 * @param {readonly number[]} best
 */
function winsOutright(best) {
  return best.some((value, k) => value > TOP_FIELD[k]);
}

/** Place a stone on `square`. */
export class OlixMove {
  /** @param {number} square */
  constructor(square) {
    if (!Number.isInteger(square) || square < 0 || square >= SQUARES) {
      throw new InvalidMoveError(`not an Olix square: ${square}`);
    }
    this.square = square;
    Object.freeze(this);
  }

  /**
   * Parse a square name in any letter case, e.g. `f6` or `K11`.
   * @param {string} text
   */
  static fromText(text) {
    try {
      return MOVES[parseSquare(text, WIDTH)];
    } catch (error) {
      if (error instanceof InvalidMoveError) {
        throw new InvalidMoveError(`not an Olix move: ${pyRepr(String(text))} (expected a square a1..k11, e.g. f6)`);
      }
      throw error;
    }
  }

  /** Canonical text: the lower-case square name (the `move=` of a signed line). */
  text() {
    return squareName(this.square, WIDTH);
  }

  toString() {
    return this.text();
  }

  /** @param {OlixMove} other */
  equals(other) {
    return other.square === this.square;
  }
}

/** The move of each square, shared (moves are immutable). */
export const MOVES = Object.freeze(Array.from({ length: SQUARES }, (_, s) => new OlixMove(s)));

/**
 * A formation a player could still make on squares the opponent has not taken, that would move a marker.
 * @typedef {{ player: number, kind: number, squares: number[], value: number }} Witness
 */

/**
 * What a move changed, kept to take it back.
 * @typedef {{ best: number[], shape: Formation[], outcome: Outcome | null, witness: Witness | null }} Undo
 */

/** An Olix game: the stones, whose turn it is, the moves played and how it ended. @extends {Board<OlixMove, Undo>} */
export class OlixBoard extends Board {
  constructor() {
    super();
    /** The player (0, 1) on each square, -1 when empty. */
    this.cells = new Int8Array(SQUARES).fill(-1);
    /** Per player, the best values in order O L I X. @type {number[][]} */
    this.best = [[0, 0, 0, 0], [0, 0, 0, 0]];
    /** Per player, the best formations in order O L I X. @type {Formation[][]} */
    this.shape = [0, 1].map(() => KINDS.map(() => new Formation(0, [])));
    /** @type {Witness | null} */
    this.witness = null;
    /** Stones that came with a loaded position (not in `moveStack`). */
    this.preplaced = 0;
  }

  /**
   * Load a position text (`11/11/11/11/11/11/11/11/11/11/11 first` is the start).
   * @param {string} text
   */
  static fromPosition(text) {
    return loadPosition(OlixBoard, 'Olix', text);
  }

  // -- state ------------------------------------------------------------------------------------------------------

  /**
   * The player whose stone stands on `square`, if any.
   * @param {number} square
   */
  stoneAt(square) {
    const p = this.cells[square];
    return p < 0 ? null : PLAYERS[p];
  }

  /**
   * The squares holding `player`'s stones, ascending.
   * @param {string} player
   */
  stones(player) {
    const p = PLAYERS.indexOf(player);
    const out = [];
    for (let s = 0; s < SQUARES; s += 1) if (this.cells[s] === p) out.push(s);
    return out;
  }

  /** How many stones stand on the board. */
  stoneCount() {
    return this.cells.reduce((n, p) => n + (p >= 0 ? 1 : 0), 0);
  }

  /**
   * `player`'s best formation of each type (value 0 and no squares when none), by type letter.
   * @param {string} player
   * @returns {Record<string, Formation>}
   */
  formations(player) {
    const p = PLAYERS.indexOf(player);
    return Object.fromEntries(KINDS.map((kind, k) => [kind, this.shape[p][k]]));
  }

  /** `first O=n L=n I=n X=n second O=n L=n I=n X=n`. */
  formationsText() {
    return PLAYERS.map((player, p) => `${player} ${KINDS.map((kind, k) => `${kind}=${this.best[p][k]}`).join(' ')}`).join(' ');
  }

  /** Rule 9: who holds a marker on which field of each track. */
  scoreboard() {
    return scoreboardOf(this.best[0], this.best[1]);
  }

  /** Four lines, O L I X, each field as `value:holder`. */
  scoreboardText() {
    return this.scoreboard().text();
  }

  // -- moves ------------------------------------------------------------------------------------------------------

  /** @param {string} text */
  parseMove(text) {
    return OlixMove.fromText(text);
  }

  /** Every legal move, in square order. */
  legalMoves() {
    if (this.isGameOver()) return [];
    return MOVES.filter((move) => this.cells[move.square] < 0);
  }

  /**
   * Why `move` cannot be played here (the Python engine's words), or null if it can.
   * @param {OlixMove} move
   */
  whyIllegal(move) {
    if (!(move instanceof OlixMove)) return `not an Olix move: ${String(move)}`;
    const over = this.outcome();
    if (over !== null) return `the game is over (${over.text()})`;
    if (this.cells[move.square] >= 0) return `${move.text()} is occupied`;
    return null;
  }

  /**
   * The fast unchecked path: place a stone on `move.square`, assumed empty, in a game not over; then decide
   * whether the game ended (automatic win, all stones placed, settled).
   * @param {OlixMove} move
   */
  push(move) {
    const p = this.turnIndex;
    this.undo.push({ best: this.best[p], shape: this.shape[p], outcome: this.ruleOutcome, witness: this.witness });
    this.moveStack.push(move);
    this.turnIndex = 1 - p;
    this.cells[move.square] = p;
    this.rescore(p, move.square);
    this.decide();
  }

  /** Undo the last action: an agreed or resigned ending if there is one (returns null), else the last move. */
  pop() {
    const last = this.takeBack();
    if (last === null) return null;
    const { move, undo } = last;
    const p = 1 - this.turnIndex;
    this.turnIndex = p;
    this.cells[move.square] = -1;
    this.best[p] = undo.best;
    this.shape[p] = undo.shape;
    this.ruleOutcome = undo.outcome;
    this.witness = undo.witness;
    return move;
  }

  /**
   * Recompute player `p`'s best formations after their stone on `square`. A type's squares change only when its
   * value rose, and are then chosen among the formations through the new stone as the Python engine chooses them
   * (`shapeThrough`), so that both show the same squares.
   * @param {number} p
   * @param {number} square
   */
  rescore(p, square) {
    const formations = new Formations(this.ownedBy(p));
    const best = [...this.best[p]];
    const shape = [...this.shape[p]];
    KINDS.forEach((_, k) => {
      const { value } = formations.best(k);
      if (value > best[k]) {
        shape[k] = new Formation(value, shapeThrough(formations, k, square, best[k], value));
        best[k] = value;
      }
    });
    this.best[p] = best;
    this.shape[p] = shape;
  }

  /**
   * The squares of player `p` as a set (1 on each).
   * @param {number} p
   */
  ownedBy(p) {
    return this.cells.map((owner) => (owner === p ? 1 : 0));
  }

  /** After a stone: the end by rule 10 (automatic win), by all stones placed, or settled (rule 11). */
  decide() {
    const last = 1 - this.turnIndex;
    if (winsOutright(this.best[last])) {
      this.ruleOutcome = new Outcome(PLAYERS[last], EndReason.FORMATION);
    } else if (this.stoneCount() >= STONES_IN_ALL) {
      this.ruleOutcome = this.scored(EndReason.STONES);
    } else if (!this.witnessHolds() && !this.findWitness()) {
      this.ruleOutcome = this.scored(EndReason.SETTLED);
    }
  }

  // -- rule 11: the settled ending --------------------------------------------------------------------------------

  /** Whether the last witness found still stands: no opponent stone on it, and it still beats what it must. */
  witnessHolds() {
    const w = this.witness;
    if (w === null || w.squares.some((s) => this.cells[s] === 1 - w.player)) return false;
    return w.value > this.best[w.player][w.kind] && w.value >= this.best[1 - w.player][w.kind];
  }

  /**
   * Look for a formation a player could still make that would move a marker (filling every square the opponent
   * has not taken with the player's stones, one worth more than the player's best, at least the track's record
   * and at least its first field); keep it as the witness. False when there is none: the game is settled.
   */
  findWitness() {
    for (const p of [0, 1]) {
      const room = new Formations(this.cells.map((owner) => (owner === 1 - p ? 0 : 1)));
      for (const k of [I_, X_, L_, O_]) {
        const need = Math.max(this.best[p][k] + 1, this.best[1 - p][k], FIRST_FIELD[k]);
        const found = room.best(k);
        if (found.value >= need) {
          this.witness = { player: p, kind: k, squares: found.squares, value: found.value };
          return true;
        }
      }
    }
    this.witness = null;
    return false;
  }

  /** Rule 11 (decided): no marker can change any more, whatever is placed. */
  isSettled() {
    return !this.findWitness();
  }

  /** The position scored on the markers (rule 12), as ending it by agreement now would. */
  agreed() {
    return this.scored(EndReason.AGREED);
  }

  /**
   * The outcome of ending here for `reason`, scored by rule 12.
   * @param {string} reason
   */
  scored(reason) {
    return new Outcome(this.scoreboard().leader(), reason, true);
  }

  // -- text -------------------------------------------------------------------------------------------------------

  /** Position text: ranks 11 down to 1 (`X` first, `O` second, numbers for empty runs) and the turn. */
  position() {
    const ranks = writeRanks(WIDTH, (s) => ['', 'X', 'O'][this.cells[s] + 1]);
    return `${ranks} ${this.turn}`;
  }

  /**
   * Read a position text into this fresh board (`OlixBoard.fromPosition` is the public way). A position already
   * over loads as over: an automatic win belongs to the player who moved last.
   * @param {string} text
   */
  load(text) {
    const fields = text.split(' ');
    if (fields.length !== 2) {
      throw new InvalidPositionError('expected the ranks and the player to move, separated by one space');
    }
    const [ranksText, turn] = fields;
    // each player's stones in the order the text gives them (rank 11 first), as the Python engine adds them
    const letters = readRanks(ranksText, WIDTH, 'XO');
    const order = [...letters.keys()].sort((a, b) => Math.floor(b / WIDTH) - Math.floor(a / WIDTH) || a - b);
    const stones = ['X', 'O'].map((letter) => order.filter((s) => letters[s] === letter));
    const counts = stones.map((squares) => squares.length);
    if (counts[0] > STONES_PER_PLAYER) {
      throw new InvalidPositionError(`first has ${counts[0]} stones, more than ${STONES_PER_PLAYER}`);
    }
    this.turnIndex = checkTurn(PLAYERS, counts[0], counts[1], turn, 'stones');
    stones.forEach((squares, p) => squares.forEach((s) => {
      this.cells[s] = p;
      this.rescore(p, s);
    }));
    this.preplaced = counts[0] + counts[1];
    if (this.position() !== text) throw new InvalidPositionError(`not in canonical form (it would be ${pyRepr(this.position())})`);
    if (winsOutright(this.best[this.turnIndex])) {
      throw new InvalidPositionError(`${this.turn} holds an automatic win but ${PLAYERS[1 - this.turnIndex]} moved last`);
    }
    this.decide();
  }

  /** The board as text, rank 11 at the top: `#` first's stones, `o` second's, then whose turn or the end. */
  show() {
    const lines = [];
    for (let rank = WIDTH - 1; rank >= 0; rank -= 1) {
      const cells = [];
      for (let file = 0; file < WIDTH; file += 1) {
        const p = this.cells[rank * WIDTH + file];
        cells.push(p < 0 ? '.' : STONE_GLYPHS[p]);
      }
      lines.push(`${String(rank + 1).padStart(2)} ${cells.join(' ')}`);
    }
    lines.push(`   ${'abcdefghijk'.split('').join(' ')}`);
    const legend = `${STONE_GLYPHS[0]} first, ${STONE_GLYPHS[1]} second`;
    const status = this.outcome();
    if (status) lines.push(`game over: ${status.sentence(PLAYERS)} (${legend})`);
    else lines.push(`${this.turn} (${STONE_GLYPHS[this.turnIndex]}) to move; ${legend}`);
    return lines.join('\n');
  }

  /** An independent copy, history included. */
  copy() {
    const board = new OlixBoard();
    board.cells = this.cells.slice();
    board.best = [...this.best];
    board.shape = [...this.shape];
    board.witness = this.witness;
    board.preplaced = this.preplaced;
    return this.copyHistoryTo(board);
  }
}

/** What code that works for either game reads off the class (Python's `Board.KIND`, `NAME`, `PLAYERS`, `WIDTH`). */
Object.assign(OlixBoard, { KIND: GameKind.OLIX, NAME: 'Olix', PLAYERS, WIDTH });
