// What both rules engines share: errors, outcomes, square names and the board's validated surface.
// The second implementation of olixono/common.py: the same names (in JavaScript's case), the same texts.

/** Move text that does not spell a move at all (bad syntax, unknown square). */
export class InvalidMoveError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'InvalidMoveError';
  }
}

/** A well-formed move that the position forbids; `reason` is the short human part alone. */
export class IllegalMoveError extends Error {
  /**
   * @param {string} message
   * @param {string} [reason]
   */
  constructor(message, reason) {
    super(message);
    this.name = 'IllegalMoveError';
    /** @type {string} */
    this.reason = reason ?? message;
  }
}

/** Position text that is malformed or describes an impossible position. */
export class InvalidPositionError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'InvalidPositionError';
  }
}

/** An action that needs a game in progress was asked of a finished game. */
export class GameOverError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'GameOverError';
  }
}

/** The games the engines play (`Board.KIND`; the offer's `kind=`). */
export const GameKind = Object.freeze({ OXONO: 'oxono', OLIX: 'olix' });

/** Why a game ended: by a rule of the game, or by a player (`resigned`; Olix: `agreed`). */
export const EndReason = Object.freeze({
  COLOUR: 'colour',
  SYMBOL: 'symbol',
  EXHAUSTED: 'exhausted',
  FORMATION: 'formation',
  STONES: 'stones',
  SETTLED: 'settled',
  AGREED: 'agreed',
  RESIGNED: 'resigned',
});

/** Each rule's ending, in words. @type {Readonly<Record<string, string>>} */
export const RULE_REASONS = Object.freeze({
  colour: 'four in a row of one colour',
  symbol: 'four in a row of one symbol',
  exhausted: 'all 32 pawns are placed',
  formation: 'a formation beyond the top of its track',
  stones: 'all stones are placed',
  settled: 'no marker can change any more',
});

/** How a game ended: `winner` is a player name, or `null` for a draw. */
export class Outcome {
  /**
   * @param {string | null} winner
   * @param {string} reason one of {@link EndReason}'s values
   * @param {boolean} [markers] whether it was counted on the markers (Olix's stones, settled and agreed endings)
   */
  constructor(winner, reason, markers = false) {
    this.winner = winner;
    this.reason = reason;
    this.markers = markers;
    Object.freeze(this);
  }

  /** The engine interface's form: `pink colour`, `draw exhausted` (the winner first, then the reason). */
  text() {
    return `${this.winner ?? 'draw'} ${this.reason}`;
  }

  /**
   * Who won and why, in words: `black wins by pink's resignation`.
   * @param {readonly string[]} players the game's two player names (the board's `PLAYERS`)
   */
  sentence(players) {
    const { winner, reason } = this;
    if (reason === EndReason.RESIGNED && winner !== null && players.includes(winner)) {
      return `${winner} wins by ${players[1 - players.indexOf(winner)]}'s resignation`;
    }
    if (reason === EndReason.AGREED) {
      if (!this.markers) return 'draw by agreement';
      if (winner === null) return 'draw on markers after the game was ended by agreement';
      return `${winner} wins on markers after the game was ended by agreement`;
    }
    const why = RULE_REASONS[reason] ?? reason;
    if (this.markers) return winner ? `${winner} wins on markers: ${why}` : `draw on markers: ${why}`;
    return winner ? `${winner} wins: ${why}` : `draw: ${why}`;
  }

  /**
   * Whether `other` tells the same ending (as Python's `Outcome.__eq__`: `markers` does not count).
   * @param {Outcome | null} other
   */
  equals(other) {
    return other !== null && other.winner === this.winner && other.reason === this.reason;
  }

  toString() {
    return this.text();
  }
}

/**
 * Python's `repr` of a string, as the engines' messages quote input (`'a1'`, `"it's"`).
 * @param {string} text
 */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.replace(/\\/g, '\\\\').replace(new RegExp(quote, 'g'), `\\${quote}`);
  return `${quote}${body}${quote}`;
}

/**
 * Chess-like name of a square: file letter then rank number (`a1`).
 * @param {number} square
 * @param {number} width
 */
export function squareName(square, width) {
  const rank = Math.floor(square / width);
  const file = square % width;
  return `${String.fromCharCode(97 + file)}${rank + 1}`;
}

/**
 * The square named by `text` (any letter case) on a `width` board; {@link InvalidMoveError} for anything that is
 * not exactly a file letter followed by a rank number without leading zero.
 * @param {string} text
 * @param {number} width
 */
export function parseSquare(text, width) {
  const match = typeof text === 'string' ? /^([A-Za-z])([1-9][0-9]?)$/.exec(text) : null;
  if (match === null) throw new InvalidMoveError(`not a square: ${pyRepr(String(text))}`);
  const file = match[1].toLowerCase().charCodeAt(0) - 97;
  const rank = Number(match[2]) - 1;
  if (file >= width || rank >= width) throw new InvalidMoveError(`not a square: ${pyRepr(text)}`);
  return rank * width + file;
}

/**
 * Read the ranks of a position text, top rank first, into a flat array of squares (`rank * width + file`):
 * each entry the stone's letter, or `''` for an empty square. Runs of empty squares are numbers without a leading
 * zero, at most two digits; `letters` are the characters a square may hold.
 * @param {string} ranksText the ranks, separated by `/`
 * @param {number} width
 * @param {string} letters
 * @returns {string[]}
 */
export function readRanks(ranksText, width, letters) {
  const ranks = ranksText.split('/');
  if (ranks.length !== width) throw new InvalidPositionError(`expected ${width} ranks separated by '/'`);
  /** @type {string[]} */
  const squares = new Array(width * width).fill('');
  ranks.forEach((rankText, i) => {
    const rank = width - 1 - i;
    let file = 0;
    let digits = '';
    for (const ch of `${rankText}/`) {
      if (ch >= '0' && ch <= '9') {
        digits += ch;
        continue;
      }
      if (digits) {
        if (digits[0] === '0' || digits.length > 2) {
          throw new InvalidPositionError(`bad run of empty squares ${pyRepr(digits)} in rank ${rank + 1}`);
        }
        file += Number(digits);
        digits = '';
      }
      if (ch === '/') break;
      if (!letters.includes(ch)) throw new InvalidPositionError(`unexpected character ${pyRepr(ch)} in rank ${rank + 1}`);
      if (file >= width) throw new InvalidPositionError(`rank ${rank + 1} holds more than ${width} squares`);
      squares[rank * width + file] = ch;
      file += 1;
    }
    if (file !== width) throw new InvalidPositionError(`rank ${rank + 1} does not hold exactly ${width} squares`);
  });
  return squares;
}

/**
 * Write the ranks of a position text, top rank first: each square's letter, a number for a run of empty ones.
 * @param {number} width
 * @param {(square: number) => string} letterAt the letter on a square, `''` when it is empty
 */
export function writeRanks(width, letterAt) {
  const rows = [];
  for (let rank = width - 1; rank >= 0; rank -= 1) {
    let row = '';
    let empty = 0;
    for (let file = 0; file < width; file += 1) {
      const letter = letterAt(rank * width + file);
      if (!letter) {
        empty += 1;
        continue;
      }
      if (empty) row += String(empty);
      empty = 0;
      row += letter;
    }
    rows.push(row + (empty ? String(empty) : ''));
  }
  return rows.join('/');
}

/**
 * Which player is to move given each side's count of pieces on the board (the first player moves first):
 * the index 0 or 1, or an {@link InvalidPositionError} naming the counts.
 * @param {readonly string[]} players
 * @param {number} firstCount
 * @param {number} secondCount
 * @param {string} turn the player the text names
 * @param {string} pieces `pawns`, `stones`
 */
export function checkTurn(players, firstCount, secondCount, turn, pieces) {
  if (!players.includes(turn)) {
    throw new InvalidPositionError(`the player to move must be ${players[0]} or ${players[1]}, not ${pyRepr(turn)}`);
  }
  let expected;
  if (firstCount === secondCount) expected = players[0];
  else if (firstCount === secondCount + 1) expected = players[1];
  else {
    throw new InvalidPositionError(
      `${players[0]} has ${firstCount} ${pieces} and ${players[1]} ${secondCount}: ${players[0]} moves first, so that cannot be`,
    );
  }
  if (turn !== expected) {
    throw new InvalidPositionError(
      `with ${firstCount} ${players[0]} and ${secondCount} ${players[1]} ${pieces} it is ${expected}'s turn, not ${turn}'s`,
    );
  }
  return players.indexOf(turn);
}

/**
 * What both engines share (Python's `olixono.common.Board`); a subclass supplies the rules: `parseMove`,
 * `legalMoves`, `whyIllegal`, `push`, `pop`, `position`, `load`, `agreed`, and the static `KIND`, `NAME`,
 * `PLAYERS`, `WIDTH`. It keeps `turnIndex` (0 or 1), `moveStack` with an `undo` record per move (what the
 * subclass needs to take it back), `ruleOutcome` (an ending by the rules) and `ending` (an ending by resignation
 * or agreement, which `pop` takes back first).
 * @template M, U
 */
export class Board {
  constructor() {
    /** @type {number} */
    this.turnIndex = 0;
    /** @type {M[]} */
    this.moveStack = [];
    /** @type {U[]} */
    this.undo = [];
    /** @type {Outcome | null} */
    this.ruleOutcome = null;
    /** @type {Outcome | null} */
    this.ending = null;
  }

  /** @returns {readonly string[]} */
  get players() {
    return /** @type {any} */ (this.constructor).PLAYERS;
  }

  /** The name of the player to move. */
  get turn() {
    return this.players[this.turnIndex];
  }

  /** `null` while the game goes on, else who won and why. */
  outcome() {
    return this.ending ?? this.ruleOutcome;
  }

  isGameOver() {
    return this.outcome() !== null;
  }

  /**
   * The move `text` spells (any letter case), or {@link InvalidMoveError}.
   * @param {string} text
   * @returns {M}
   */
  parseMove(text) {
    throw new Error(`parseMove is not implemented for ${text}`);
  }

  /**
   * Why `move` is illegal here, in a few words, or `null` if it is legal.
   * @param {M} move
   * @returns {string | null}
   */
  whyIllegal(move) {
    throw new Error(`whyIllegal is not implemented for ${move}`);
  }

  /**
   * The fast unchecked path: play a move known to be legal.
   * @param {M} move
   */
  push(move) {
    throw new Error(`push is not implemented for ${move}`);
  }

  /** @returns {string} */
  position() {
    throw new Error('position is not implemented');
  }

  /** What ending the game by agreement now would give. @returns {Outcome} */
  agreed() {
    throw new Error('agreed is not implemented');
  }

  /** Every legal move (an empty list once the game is over). @returns {M[]} */
  legalMoves() {
    throw new Error('legalMoves is not implemented');
  }

  /**
   * The first half of `pop`: take back an ending by resignation or agreement (null), else the last move and its
   * undo record, which the subclass then reverts; a `RangeError` when there is nothing to undo.
   * @returns {{ move: M, undo: U } | null}
   */
  takeBack() {
    if (this.ending !== null) {
      this.ending = null;
      return null;
    }
    const undo = this.undo.pop();
    const move = this.moveStack.pop();
    if (undo === undefined || move === undefined) throw new RangeError('nothing to undo');
    return { move, undo };
  }

  /**
   * Copy whose turn it is, the history and the endings into `board` (the rest of `copy`); returns `board`.
   * @template {Board<M, U>} B
   * @param {B} board
   * @returns {B}
   */
  copyHistoryTo(board) {
    board.turnIndex = this.turnIndex;
    board.moveStack = [...this.moveStack];
    board.undo = [...this.undo];
    board.ruleOutcome = this.ruleOutcome;
    board.ending = this.ending;
    return board;
  }

  /** @param {M} move */
  isLegal(move) {
    return this.whyIllegal(move) === null;
  }

  /**
   * The validated path: parse `move` if it is text, check it, push it. Throws {@link InvalidMoveError} for text
   * that spells no move and {@link IllegalMoveError} for a move this position forbids; the board is unchanged
   * then. Returns the move played.
   * @param {M | string} move
   * @returns {M}
   */
  play(move) {
    /** @type {M} */
    let parsed;
    if (typeof move === 'string') {
      try {
        parsed = this.parseMove(move);
      } catch (error) {
        if (error instanceof InvalidMoveError) {
          throw new InvalidMoveError(`${error.message} in position ${pyRepr(this.position())}`);
        }
        throw error;
      }
    } else {
      parsed = move;
    }
    const reason = this.whyIllegal(parsed);
    if (reason !== null) {
      const text = /** @type {any} */ (parsed).text();
      throw new IllegalMoveError(`illegal move ${pyRepr(text)} in position ${pyRepr(this.position())}: ${reason}`, reason);
    }
    this.push(parsed);
    return parsed;
  }

  /**
   * `player` (by default the player to move) resigns; the other wins.
   * @param {string} [player]
   */
  resign(player) {
    const over = this.outcome();
    if (over !== null) throw new GameOverError(`cannot resign: the game is over (${over.text()})`);
    const loser = player === undefined ? this.turnIndex : this.players.indexOf(player);
    if (loser < 0) throw new Error(`no such player: ${player}`);
    this.ending = new Outcome(this.players[1 - loser], EndReason.RESIGNED);
    return this.ending;
  }

  /** End the game by agreement (`agreed`: a draw in Oxono, the position scored in Olix). */
  end() {
    const over = this.outcome();
    if (over !== null) throw new GameOverError(`cannot end by agreement: the game is over (${over.text()})`);
    this.ending = this.agreed();
    return this.ending;
  }
}

/**
 * Load a position text into a fresh board of class `BoardClass`; {@link InvalidPositionError} naming the text.
 * @template {Board<any, any> & { load(text: string): void }} B
 * @param {new () => B} BoardClass
 * @param {string} name the game's name for the message (`Oxono`)
 * @param {string} text
 * @returns {B}
 */
export function loadPosition(BoardClass, name, text) {
  const board = new BoardClass();
  try {
    if (typeof text !== 'string') throw new InvalidPositionError('not text');
    board.load(text);
  } catch (error) {
    if (error instanceof InvalidPositionError) {
      throw new InvalidPositionError(`invalid ${name} position ${pyRepr(String(text))}: ${error.message}`);
    }
    throw error;
  }
  return board;
}
