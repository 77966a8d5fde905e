// One game's verified record, as any receiver keeps it (protocol/judge.py's Receiver): feed it lines in any order,
// any number of times, from anyone; it ignores exact duplicates, keeps (within bounds) lines that arrive before their
// parent, applies every line that verifies and answers every other with a LineRejected event naming its code.
//
// What it judges, as protocol/judge.py does: the seating (offer, joins, accept, reveal and the coin, the host's claim),
// the main chain with its moves (the JavaScript rules), proposals, resign and abort, races (the line of higher rank
// stands), chat, presence and confirmations, the waiting room and the resync it asks for; time controls (clock:,
// days:, rules:2's first moves), receipts, flag claims and timeouts (claims.js); takeback lines and undos (an undo's
// consent= is checked before the line is judged, since WebCrypto answers asynchronously and the judge does not);
// rematch lines; equivocation proofs and the forfeit rule (evidence.js, seating.js); time witnesses (witness.js).
// It signs nothing: a watcher's judge (Python's GameSession signs for its player, Witnessing for a witness).

import { consents, decode, decodeText } from "./messages.js";
import { publicKey } from "./keys.js";
import { RemoteProtocolError } from "./protocol-errors.js";
import { ANSWERS, Claims, numberOf } from "./claims.js";
import { LAG_MOST_MS, SLACK_MS, TimeControl, answerWindow, claimAfter, timeUsed } from "./clock.js";
import { Evidence } from "./evidence.js";
import { Result, ResultReason, event } from "./events.js";
import { Seating } from "./seating.js";
import { WaitingRoom } from "./waiting.js";
import { Witnesses } from "./witness.js";
import {
  CONFIRMED, DISPUTED, GUEST, HOST, MAX_CHAIN, MAX_JOINS, MAX_SUPERSEDED, Phase, REMARKS, RULES, SIDE_LINES, Sender,
  UNSEEN, beginsTurn, checkTerms, clocked, commitment, firstMoveFree, hostMovesFirst, refusedOnSight, state,
  witnessesOf,
} from "./protocol-rules.js";
import { OxonoBoard } from "./oxono.js";
import { OlixBoard } from "./olix.js";
import { InvalidMoveError } from "./rules-common.js";

/** @typedef {import("./messages.js").Message} Message */
/** @typedef {import("./keys.js").PublicKey} PublicKey */
/** @typedef {import("./events.js").Event} Event */
/** @typedef {import("./protocol-rules.js").State} State */
/** @typedef {OxonoBoard | OlixBoard} AnyBoard */

/** The board classes by the offer's kind=. */
export const BOARDS = Object.freeze({ oxono: OxonoBoard, olix: OlixBoard });


/**
 * The start of a line as an event quotes it (at most 200 characters, whatever its bytes), as Python's `quoted`.
 * @param {string | Uint8Array} data
 * @returns {string}
 */
export function quoted(data) {
  const text = typeof data === "string" ? data
    : new TextDecoder("utf-8", { fatal: false }).decode(data.subarray(0, 200));
  let end = 0;
  for (let points = 0; points < 200 && end < text.length; points++) {
    const unit = text.charCodeAt(end);
    const next = text.charCodeAt(end + 1); // (NaN past the end)
    end += unit >= 0xd800 && unit < 0xdc00 && next >= 0xdc00 && next < 0xe000 ? 2 : 1; // a pair: one code point
  }
  return text.slice(0, end);
}

/**
 * What a claimant's timeout waits for: its flag claim against the turn that the line `began` (a hash) began.
 * @param {PublicKey} key
 * @param {string} began
 */
function flagToken(key, began) {
  return `flag ${key.text} ${began}`;
}

/**
 * @param {PublicKey | null | undefined} a
 * @param {PublicKey | null | undefined} b
 */
function same(a, b) {
  return a != null && b != null && a.text === b.text;
}

/** The verified state of one game, as any receiver keeps it (a spectator's: no key of its own). */
export class Receiver {
  /** @param {string | null} [gameId] */
  constructor(gameId = null) {
    /** @type {string | null} */
    this.gameId = gameId;
    /** @type {string | null} */
    this.kind = null;
    /** @type {string | null} */
    this.terms = null;
    /** @type {PublicKey | null} */
    this.invite = null;
    /** @type {PublicKey | null} */
    this._host = null;
    /** @type {AnyBoard | null} */
    this._board = null;
    /** @type {State} */
    this._state = state({ phase: Phase.WAITING });
    /** @type {Message[]} */
    this._chain = [];
    /** @type {State[]} the state before each chain line */
    this._before = [];
    /** @type {string[]} */
    this._transcript = [];
    this._seating = new Seating();
    this._evidence = new Evidence();
    this._claims = new Claims();
    this._witnesses = new Witnesses();
    /** @type {Map<string, Message>} claimants' timeouts the witnesses void, by hash */
    this._void = new Map();
    /** @type {Message[]} refused lines to judge again (early claims, once the claimant's receipts grow) */
    this._again = [];
    /** @type {Map<string, Message>} each player's rematch line (one a player), once the game is over */
    this._rematches = new Map();
    /** @type {Map<string, Message>} each player's latest takeback line, by the head it names */
    this._takebacks = new Map();
    /** @type {Map<string, any[]>} the moves each undo on the chain took back, by its hash, last first */
    this._undone = new Map();
    /** @type {Map<string, Message>} every undo line seen, by hash: its consent= is checked before it is judged */
    this._undos = new Map();
    /** @type {Map<string, boolean>} whether an undo's consent= is a key's signature ("undo hash key text") */
    this._consents = new Map();
    /** @type {Map<string, Message>} lines set aside by races, by hash */
    this._superseded = new Map();
    /** @type {Map<string, [number, string]>} each seated key's chat head: (seq, hash) */
    this._chats = new Map();
    /** @type {Map<string, [number, boolean]>} each seated key's latest presence: (seq, here) */
    this._presence = new Map();
    /** @type {Set<string>} the seated keys that said a relay of the game runs in their program */
    this._relayRunners = new Set();
    /** @type {Map<string, Map<number, Message>>} each seated key's confirmations, by number */
    this._confirms = new Map();
    /** @type {string[]} tokens to release besides those a judged line gives */
    this._released = [];
    /** @type {Set<string>} every line applied, joined or set aside */
    this._known = new Set();
    /** @type {Map<string, Message>} the messages of the lines known (chat to take back, proofs' lines), by text */
    this._knownMessages = new Map();
    this._waiting = new WaitingRoom((key) => this._seated(key));
    /** @type {number | null} where the forfeit the state holds cut the record, if any */
    this._forfeitedAt = null;
    /** @type {State} the state before that forfeit */
    this._forfeitBase = this._state;
  }

  /** @returns {TimeControl | null} the game's time control, from its offer's terms (null: untimed) */
  get clock() {
    return this._claims.clock;
  }

  /**
   * While the player to move has yet to make its first move, off its clock (rules:2, a timed game): the time that
   * move has; null otherwise.
   * @returns {number | null}
   */
  get firstMoveMs() {
    const clock = this.clock;
    if (clock === null || this._state.phase !== Phase.PLAYING || !this._freeFirst(this._state)) return null;
    return clock.firstMoveMs;
  }

  /**
   * Whether the player to move in `st` is on its first move and that move is off its clock (rules:2, timed).
   * @param {State} st
   */
  _freeFirst(st) {
    return this._claims.firstFree && st.clocks !== null && st.moves < 2;
  }

  /**
   * The clock of the player to move in `st` as the record has it (0 untimed); on a first move off the clock, the
   * time a first move has.
   * @param {State} st
   */
  _turnClock(st) {
    if (this._freeFirst(st)) return /** @type {TimeControl} */ (this.clock).firstMoveMs;
    return st.clocks !== null ? st.clocks[st.turn] : 0;
  }

  /**
   * Whether the move numbered `moves` (from 0) was on its mover's clock (not a first move off it, rules:2).
   * @param {number} moves
   */
  _charged(moves) {
    return !(this._claims.firstFree && moves < 2);
  }

  /**
   * The line that began the turn in which the line at `seq` is sent: the last move or reveal before it.
   * @param {number} seq
   * @returns {Message | null}
   */
  _turnBegan(seq) {
    for (let index = Math.min(seq, this._chain.length) - 1; index >= 0; index--) {
      if (beginsTurn(this._chain[index])) return this._chain[index];
    }
    return null;
  }

  /**
   * `key`'s flag claim against the turn now being played, if any.
   * @param {PublicKey} key
   * @returns {Message | null}
   */
  flagOf(key) {
    const began = this._turnBegan(this._chain.length);
    if (this._state.phase !== Phase.PLAYING || began === null) return null;
    return this._claims.flagsOf(key, this._chain).get(began.seq) ?? null;
  }

  /** @returns {[Message, string][]} every flag claim on the record, and how it stands (claims.js's statuses) */
  claims() {
    return this._claims.statuses(this._chain, this._seatedKeys());
  }

  /** @returns {PublicKey[]} the host and the guest, as far as they are known */
  _seatedKeys() {
    return /** @type {PublicKey[]} */ ([this._host, this._state.guest].filter((key) => key !== null));
  }

  /**
   * While the game is played: the clock of the player to move as a claim against this turn is judged; null
   * otherwise.
   * @returns {number | null}
   */
  claimRemaining() {
    const began = this._turnBegan(this._chain.length);
    if (this._state.phase !== Phase.PLAYING || began === null) return null;
    const remaining = this._claimRemaining(this._state, began.seq);
    if (!this._witnesses.keys.length) return remaining;
    return Math.max(remaining, this._witnessedRemaining(this._state, began.seq));
  }

  /**
   * The clock of the player to move in `st` (whose turn the line at `began` began) as a claim against it is judged:
   * in a live game, the record's less what its moves before left unexplained by the claimant's receipts.
   * @param {State} st
   * @param {number} began
   */
  _claimRemaining(st, began) {
    const remaining = this._turnClock(st);
    const clock = this.clock;
    if (clock === null || clock.days || st.seats === null || this._board === null) return remaining;
    const player = this._board.players[st.turn];
    const moves = this._chain.filter(clocked).map((line) => line.seq);
    const answers = this.answers();
    let unexplained = 0;
    for (let ply = 0; ply < Math.min(moves.length, answers.length); ply++) {
      if (moves[ply] < began + 1 && answers[ply].player === player && this._charged(ply)) {
        unexplained += answers[ply].unexplained ?? 0;
      }
    }
    return Math.max(0, remaining - unexplained);
  }

  /** @returns {import("./clock.js").Answer[]} every move of a timed game as the receipts show it; empty untimed */
  answers() {
    if (this.clock === null || this._state.seats === null || this._host === null || this._state.guest === null) return [];
    return this._claims.answers(this._chain, [this._host, this._state.guest], (key) => this.playerOf(key),
      (receipt) => this._evidence.doubled(receipt));
  }

  /** @returns {Record<string, import("./clock.js").TimeUsed>} each player's thinking and unexplained time so far */
  timeUsed() {
    if (this._board === null || this.clock === null || this._state.seats === null) return {};
    return timeUsed(this.answers(), this._board.players);
  }

  /** @returns {string[]} the lines of the player to move that the claimant's timeout ending the game set aside */
  get displaced() {
    const head = this._chain.at(-1);
    if (head === undefined || head.type !== "timeout" || head.get("now") === null || !this.over) return [];
    return this._claims.displaced(head).map((line) => line.line);
  }

  // -- read-only views ---------------------------------------------------------------------------------------------
  /** The phase (protocol-rules.js's Phase: "offered", "playing", …). */
  get phase() {
    return this._state.phase;
  }

  /** @returns {AnyBoard | null} a copy of the board (null before the offer) */
  get board() {
    return this._board === null ? null : /** @type {AnyBoard} */ (this._board.copy());
  }

  /** @returns {string | null} */
  get position() {
    return this._board === null ? null : this._board.position();
  }

  /** @returns {readonly Message[]} the main chain: the offer, the accepted join, the accept, … */
  get chain() {
    return [...this._chain];
  }

  /**
   * @returns {string[]} the verified lines in the order they were applied, each chain line followed by the players'
   *   receipts of it and flag claims against the turn it began, then the players' confirmations
   */
  get transcript() {
    /** @type {string[]} */
    const confirms = [];
    for (const key of [this._host, this._state.guest]) {
      const mine = key === null ? undefined : this._confirms.get(key.text);
      if (mine === undefined) continue;
      for (const n of [...mine.keys()].sort((a, b) => a - b)) confirms.push(/** @type {Message} */ (mine.get(n)).line);
    }
    /** @type {Map<number, string[]>} */
    const beside = new Map();
    for (const kept of [this._claims.receiptsOf, this._claims.flagsOf]) {
      for (const key of this._seatedKeys()) {
        const lines = [...kept.call(this._claims, key, this._chain)].sort(([a], [b]) => a - b);
        for (const [seq, line] of lines) beside.set(seq, [...beside.get(seq) ?? [], line.line]);
      }
    }
    if (!beside.size) return [...this._transcript, ...confirms];
    const placed = new Map(this._chain.map((message) => [message.line, message.seq]));
    /** @type {string[]} */
    const lines = [];
    for (const text of this._transcript) {
      lines.push(text);
      const at = placed.get(text);
      if (at !== undefined) lines.push(...beside.get(at) ?? []);
    }
    return [...lines, ...confirms];
  }

  /**
   * @returns {string[]} what a game's record holds: the transcript, then both lines of every seated key's proof not
   *   in it, the lines a claimant's timeout set aside and what decided a host's seating
   */
  get record() {
    const lines = this.transcript;
    const held = new Set(lines);
    const proofs = this.proofs.filter((proof) => this.roleOf(proof.key) !== null);
    for (const line of [...proofs.flatMap((proof) => [proof.first, proof.second]), ...this.displaced,
      ...this.seatingLines(), ...[...this._void.values()].map((timeout) => timeout.line),
      ...this._witnesses.conflicts().map((conflict) => conflict.line)]) {
      if (!held.has(line)) {
        held.add(line);
        lines.push(line);
      }
    }
    return lines;
  }

  /** @returns {Message | null} */
  get head() {
    return this._chain.at(-1) ?? null;
  }

  get nextSeq() {
    return this._chain.length;
  }

  /** @returns {PublicKey | null} */
  get host() {
    return this._host;
  }

  /** @returns {PublicKey | null} */
  get guest() {
    return this._state.guest;
  }

  /** @returns {ReadonlyMap<string, Message>} the join candidates kept for the host to choose from, by key text */
  get joins() {
    return this._seating.candidates;
  }

  /** @returns {Record<string, PublicKey>} each player name's key, once the coin flip is done (empty before) */
  get seats() {
    const seats = this._state.seats;
    if (seats === null || this._board === null) return {};
    const players = this._board.players;
    return { [players[0]]: seats[0], [players[1]]: seats[1] };
  }

  get started() {
    return this._state.seats !== null;
  }

  /** @returns {Record<string, number> | null} a timed game's clocks once the seats are drawn: each player's time left */
  get clocks() {
    const clocks = this._state.clocks;
    if (clocks === null || this._board === null) return null;
    const players = this._board.players;
    return { [players[0]]: clocks[0], [players[1]]: clocks[1] };
  }

  /** The turns played (every move). */
  get moves() {
    return this._state.moves;
  }

  /**
   * The moves on the board after the chain's lines before seq `before` (null: all), in the order played: every move
   * but those an undo took back.
   * @param {number | null} [before]
   * @returns {Message[]}
   */
  standing(before = null) {
    /** @type {Message[]} */
    const moves = [];
    for (const line of this._chain.slice(0, before ?? undefined)) {
      if (line.type === "move") moves.push(line);
      else if (line.type === "undo") moves.splice(moves.length - Number(line.get("plies")));
    }
    return moves;
  }

  /**
   * The game `key` asked, once this one was over, to play next (null: none).
   * @param {PublicKey} key
   * @returns {string | null}
   */
  rematchOf(key) {
    return this._rematches.get(key.text)?.get("next") ?? null;
  }

  /** @returns {string | null} the game both players agreed to play next: of the two their lines name, the lower */
  get rematch() {
    if (this._rematches.size < 2) return null;
    const games = [...this._rematches.values()].map((line) => /** @type {string} */ (line.get("next")));
    return games.sort()[0];
  }

  /**
   * `key`'s takeback line naming the chain's head while the game is played (null: none, or lapsed).
   * @param {PublicKey} key
   * @returns {Message | null}
   */
  takebackOf(key) {
    const line = this._takebacks.get(key.text);
    const head = this.head;
    if (line === undefined || head === null || this._state.phase !== Phase.PLAYING || line.prev !== head.hash) return null;
    return line;
  }

  /** @returns {Result | null} */
  get result() {
    return this._state.result;
  }

  get over() {
    return this._state.phase === Phase.OVER;
  }

  /** @returns {string | null} the player whose proposal to end the game is open, if any */
  get proposal() {
    const index = this._state.proposal;
    return index === null || this._board === null ? null : this._board.players[index];
  }

  /** @returns {PublicKey | null} the key that extends the main chain next */
  get actor() {
    return this._actor(this._state);
  }

  /** @returns {string[]} the lines kept until what they wait for arrives */
  get waiting() {
    return this._waiting.lines();
  }

  /**
   * How `key`'s latest confirmation stands against this receiver's ending: CONFIRMED, DISPUTED, UNSEEN, or null.
   * @param {PublicKey} key
   * @returns {string | null}
   */
  confirmation(key) {
    const confirms = this._confirms.get(key.text);
    if (confirms === undefined || confirms.size === 0) return null;
    if (this._evidence.proofsOf(key).some((proof) => proof.slot.startsWith("confirm-"))) return DISPUTED;
    const latest = /** @type {Message} */ (confirms.get(Math.max(...confirms.keys())));
    const result = this._state.result;
    if (result === null || !this._chain.length) return UNSEEN;
    const head = /** @type {Message} */ (this._chain.at(-1));
    const final = Number(latest.get("final"));
    if (final === head.seq && latest.prev === head.hash && latest.get("result") === result.code()) return CONFIRMED;
    if (final > head.seq && this._forfeitedAt === null) return UNSEEN; // (past a forfeit's point: what it overrode)
    return DISPUTED;
  }

  /**
   * The final sequence number and result code that `key`'s latest confirmation names, if any.
   * @param {PublicKey} key
   * @returns {[number, string] | null}
   */
  confirmedEnding(key) {
    const confirms = this._confirms.get(key.text);
    if (confirms === undefined || confirms.size === 0) return null;
    const latest = /** @type {Message} */ (confirms.get(Math.max(...confirms.keys())));
    return [Number(latest.get("final")), /** @type {string} */ (latest.get("result"))];
  }

  /**
   * The lines of `key`'s kept until a line before them arrives (a gap, while it lasts).
   * @param {PublicKey} key
   * @returns {Message[]}
   */
  waitingOf(key) {
    return this._waiting.linesOf(key);
  }

  /** @returns {PublicKey[]} the seated keys whose latest confirmation names this receiver's ending */
  get confirmedBy() {
    return [this._host, this._state.guest].filter((key) => key !== null && this._confirms.has(key.text)
      && this.confirmation(key) === CONFIRMED).map((key) => /** @type {PublicKey} */ (key));
  }

  /**
   * Whether `key`'s client says it is connected (null: it has said nothing yet).
   * @param {PublicKey} key
   * @returns {boolean | null}
   */
  present(key) {
    const latest = this._presence.get(key.text);
    return latest === undefined ? null : latest[1];
  }

  /**
   * Whether `key` (seated) said that a relay of this game runs inside its program.
   * @param {PublicKey} key
   */
  runsRelay(key) {
    return this._relayRunners.has(key.text);
  }

  /**
   * host, guest or null.
   * @param {PublicKey} key
   * @returns {string | null}
   */
  roleOf(key) {
    if (same(key, this._host)) return HOST;
    if (same(key, this._state.guest)) return GUEST;
    return null;
  }

  /**
   * The player name seated with `key`, if any.
   * @param {PublicKey} key
   * @returns {string | null}
   */
  playerOf(key) {
    for (const [player, seated] of Object.entries(this.seats)) if (same(seated, key)) return player;
    return null;
  }

  /**
   * How to call `key` here: its player name, else its role, else its fingerprint.
   * @param {PublicKey} key
   */
  nameOf(key) {
    return this.playerOf(key) ?? this.roleOf(key) ?? key.fingerprint;
  }

  // -- the table ---------------------------------------------------------------------------------------------------
  /**
   * @param {State} st
   * @returns {PublicKey | null}
   */
  _actor(st) {
    if (st.phase === Phase.OFFERED) return this._host;
    if (st.phase === Phase.ACCEPTED) return st.guest;
    if (st.phase === Phase.PLAYING && st.seats !== null) return st.seats[st.turn];
    return null;
  }

  /**
   * @param {PublicKey} key
   * @param {State} st
   * @returns {string | null}
   */
  _sender(key, st) {
    const phase = st.phase;
    if (phase === Phase.OFFERED) return same(key, this._host) ? Sender.HOST : Sender.ANYONE;
    if (phase === Phase.ACCEPTED) {
      if (same(key, this._host)) return Sender.HOST;
      return same(key, st.guest) ? Sender.GUEST : null;
    }
    if (phase === Phase.PLAYING && st.seats !== null) {
      if (same(key, st.seats[st.turn])) return Sender.ACTOR;
      if (same(key, st.seats[1 - st.turn])) return Sender.WAITER;
    }
    return null;
  }

  /**
   * Check that the table lets `message`'s signer send it in `st` (and its guard): its rank, and a move's parse.
   * @param {Message} message
   * @param {State} st
   * @param {boolean} [guard]
   * @returns {[number, unknown]}
   */
  _judge(message, st, guard = true) {
    if (st.phase === Phase.OVER) {
      throw new RemoteProtocolError("after-end", `the game ended (${/** @type {Result} */ (st.result).text()})`);
    }
    const sender = this._sender(message.signer, st);
    if (sender === null) throw new RemoteProtocolError("wrong-signer", `${message.signer.fingerprint} is not a player here`);
    const ranks = RULES[st.phase][sender] ?? {};
    const rank = ranks[message.type];
    if (rank === undefined) {
      const allowed = Object.keys(ranks).join(", ") || "nothing";
      throw new RemoteProtocolError("wrong-seat",
        `${sender} may send ${allowed} while the game is ${st.phase}, not ${message.type}`);
    }
    return [rank, guard ? this._guard(message, st, sender) : null];
  }

  /**
   * The checks a type needs beyond the table; a move's parse.
   * @param {Message} message
   * @param {State} st
   * @param {string} sender
   * @returns {unknown}
   */
  _guard(message, st, sender) {
    const kind = message.type;
    if (kind === "move") {
      const move = this._checkMove(/** @type {string} */ (message.get("move")));
      this._claims.checkMove(message, st.clocks !== null ? st.clocks[st.turn] : null, this._freeFirst(st));
      return move;
    }
    if (kind === "undo") {
      this._checkUndo(message, st);
      return null;
    }
    const mine = sender === Sender.ACTOR ? st.turn : 1 - st.turn;
    if (kind === "timeout") {
      const began = this._turnBegan(message.seq);
      this._claims.checkTimeout(message, sender === Sender.ACTOR, this._claimRemaining(st, began !== null ? began.seq : 0),
        this._freeFirst(st));
    } else if (kind === "reveal") {
      if (commitment(/** @type {string} */ (message.get("secret"))) !== this._chain[1].get("commit")) {
        throw new RemoteProtocolError("bad-reveal", "SHA-256 of secret= is not the join's commit=");
      }
    } else if (kind === "abort" && st.phase === Phase.PLAYING) {
      if (st.moves > 0) {
        throw new RemoteProtocolError("wrong-seat", "after the coin flip only the first player may abort, before "
          + "their first move (the second may resign)");
      }
    } else if (REMARKS.has(kind) && st.remarks.has(kind)) {
      throw new RemoteProtocolError("wrong-seat", `${kind} is allowed once a turn`);
    }
    if (kind === "propose" && st.proposal !== null) {
      const why = st.proposal === mine ? "a proposal of theirs is open" : "the other player's proposal is open: agree";
      throw new RemoteProtocolError("wrong-seat", `cannot propose: ${why}`);
    }
    if (kind === "withdraw" && st.proposal !== mine) {
      throw new RemoteProtocolError("wrong-seat", "withdraw takes back one's own open proposal, and none is open");
    }
    if ((kind === "agree" || kind === "decline") && st.proposal !== 1 - mine) {
      throw new RemoteProtocolError("wrong-seat", `${kind} answers the other player's proposal, and none is open`);
    }
    return null;
  }

  /**
   * An undo takes back one or two moves, none of either player's first, with the other player's consent; one of one
   * move is on the clock as a move is, one of two leaves the turn (and its clock) where it is, once a turn.
   * @param {Message} message
   * @param {State} st
   */
  _checkUndo(message, st) {
    const board = /** @type {AnyBoard} */ (this._board);
    const plies = Number(message.get("plies"));
    const seats = /** @type {[PublicKey, PublicKey]} */ (st.seats);
    if (plies === 0) {
      throw new RemoteProtocolError("bad-field", "an undo takes back 1 or 2 moves (plies=0 is a takeback line's refusal)");
    }
    if (board.moveStack.length - plies < 2) {
      throw new RemoteProtocolError("wrong-seat", "each player's first move stays: no undo takes it back");
    }
    if (plies === 2 && st.remarks.has("undo")) {
      throw new RemoteProtocolError("wrong-seat", "an undo of two moves is allowed once a turn");
    }
    const waiter = seats[1 - st.turn];
    const consented = this._consents.get(`${message.hash} ${waiter.text}`);
    if (consented === undefined) throw new Error(`the consent of undo ${message.hash} was not checked for ${waiter.text}`);
    if (!consented) {
      throw new RemoteProtocolError("bad-signature", `consent= is not ${waiter.fingerprint}'s signature of a takeback `
        + `of ${plies} naming seq ${message.seq - 1}`);
    }
    if (plies === 1) {
      this._claims.checkMove(message, st.clocks !== null ? st.clocks[st.turn] : null);
    } else if (message.get("think") !== null || message.get("left") !== null) {
      throw new RemoteProtocolError("bad-clock", "an undo of two moves leaves the turn, and its clock, where it is: it "
        + "carries no think= or left=");
    }
  }

  /**
   * Check, before `message` is judged, the consent= of every undo that this line may bring to judgement, against
   * every key that may be its waiter by then (WebCrypto answers asynchronously; the judge is synchronous).
   * @param {Message} message
   */
  async _checkConsents(message) {
    if (message.type === "undo") this._undos.set(message.hash, message);
    if (!this._undos.size) return;
    /** @type {Map<string, PublicKey>} */
    const keys = new Map();
    const add = (/** @type {PublicKey | null} */ key) => {
      if (key !== null) keys.set(key.text, key);
    };
    add(this._host);
    add(this._state.guest);
    add(message.signer);
    add(message.peer);
    for (const key of this._seating.evidentKeys()) add(key);
    for (const line of this._waiting.linesOf(null)) if (line.type === "accept" || line.type === "offer") add(line.peer ?? line.signer);
    for (const undo of this._undos.values()) {
      for (const key of keys.values()) {
        const slot = `${undo.hash} ${key.text}`;
        if (!this._consents.has(slot)) this._consents.set(slot, await consents(undo, key));
      }
    }
  }

  /**
   * The legal move `text` spells in canonical form, or RemoteProtocolError.
   * @param {string} text
   * @returns {unknown}
   */
  _checkMove(text) {
    const board = /** @type {AnyBoard} */ (this._board);
    /** @type {any} */
    let move;
    try {
      move = board.parseMove(text);
    } catch (error) {
      if (error instanceof InvalidMoveError) throw new RemoteProtocolError("illegal-move", error.message);
      throw error;
    }
    if (move.text() !== text) throw new RemoteProtocolError("non-canonical", `move=${text} is written ${move.text()}`);
    const reason = board.whyIllegal(move);
    if (reason !== null) throw new RemoteProtocolError("illegal-move", `${text}: ${reason}`);
    return move;
  }

  // -- feeding lines -----------------------------------------------------------------------------------------------
  /**
   * Check one line and apply it if it verifies, then anything it unblocks.
   * @param {string | Uint8Array} data
   * @returns {Promise<Event[]>}
   */
  async receive(data) {
    if (this.holds(data)) return [];
    let message;
    try {
      message = await decode(data);
    } catch (error) {
      if (!(error instanceof RemoteProtocolError)) throw error;
      return [event("LineRejected", { code: error.code, detail: error.detail, line: quoted(data) })];
    }
    await this._checkConsents(message);
    return this._receive(message);
  }

  /**
   * @param {Iterable<string | Uint8Array>} lines
   * @returns {Promise<Event[]>}
   */
  async receiveAll(lines) {
    /** @type {Event[]} */
    const events = [];
    for (const line of lines) events.push(...await this.receive(line));
    return events;
  }

  /**
   * Whether this line is part of what the receiver verified: applied, a join, or set aside.
   * @param {string | Uint8Array} data
   */
  holds(data) {
    if (typeof data === "string") return this._known.has(data);
    try {
      return this._known.has(new TextDecoder("utf-8", { fatal: true }).decode(data));
    } catch {
      return false;
    }
  }

  /**
   * Judge a decoded line, then what it unblocks.
   * @param {Message} first
   * @returns {Event[]}
   */
  _receive(first) {
    /** @type {Event[]} */
    const events = [];
    /** @type {Message[]} */
    const work = [first];
    for (let round = 0; round < MAX_CHAIN; round++) {
      while (work.length) {
        const message = /** @type {Message} */ (work.shift());
        /** @type {string[]} */
        let released;
        try {
          released = this._process(message, events);
        } catch (error) {
          if (!(error instanceof RemoteProtocolError)) throw error;
          events.push(event("LineRejected", { code: error.code, detail: error.detail, line: quoted(message.line) }));
          released = [];
          if (error.code === "early-claim") this._claims.holdEarly(message); // perhaps not once more receipts come
        }
        for (const token of [...released, ...this._released]) work.push(...this._waiting.release(token));
        this._released = [];
        work.push(...this._again);
        this._again = [];
      }
      this._settle(events);
      this._witnessClaims(events);
      this._claimVerdict(events);
      for (const token of this._released) work.push(...this._waiting.release(token));
      this._released = [];
      work.push(...this._again.sort((a, b) => a.seq - b.seq || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0)));
      this._again = [];
      if (!work.length) break;
    }
    return events;
  }

  /**
   * Judge one decoded line; the tokens whose waiting lines it may unblock.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _process(message, events) {
    if (message.type === "offer") return this._offer(message, events);
    if (message.type === "talk") { // a watcher's: the gallery's (gallery.js), never the record's
      throw new RemoteProtocolError("wrong-seat", "a watcher's talk is no line of the game's record: it is kept beside it");
    }
    if (this.gameId !== null && message.game !== this.gameId) {
      throw new RemoteProtocolError("wrong-game", `for game ${message.game}, not ${this.gameId}`);
    }
    const problem = refusedOnSight(message);
    if (problem !== null) throw problem;
    if (!this._chain.length) return this._keep(message, "offer");
    if (this._known.has(message.line)) return [];
    if (message.type === "chat") return this._chat(message, events);
    if (message.type === "presence") return this._presenceLine(message, events);
    if (message.type === "confirm") return this._confirm(message, events);
    if (message.type === "join") return this._join(message, events);
    if (message.type === "receipt") return this._receipt(message, events);
    if (message.type === "flag") return this._flag(message, events);
    if (message.type === "rematch") return this._rematchLine(message, events);
    if (message.type === "takeback") return this._takebackLine(message, events);
    if (message.type === "witness") return this._witnessLine(message, events);
    const role = this.roleOf(message.signer);
    if (role === HOST && message.type === "accept" && message.seq === 2) this._hostAccept(message, events);
    if (message.type === "reveal") this._seating.reveal(message);
    if ((role !== null || this._seating.evident(message.signer)) && this._equivocates(message, events)) return [];
    if (role === null) return this._unseated(message);
    if (message.type === "accept" && message.seq !== 2) {
      throw new RemoteProtocolError("wrong-seat", "an accept is always seq 2, after the join it names");
    }
    const setAsideBy = this._superseded.get(message.prev);
    if (setAsideBy !== undefined) return this._setAside(message, setAsideBy, events);
    if (message.type === "accept" && this._state.phase === Phase.OFFERED && message.seq === 2) {
      return this._accept(message, events);
    }
    const n = this._chain.length;
    const head = /** @type {Message} */ (this._chain.at(-1));
    if (message.seq > n || (message.seq === n && message.prev !== head.hash)) {
      if (message.prev === head.hash) {
        throw new RemoteProtocolError("broken-link", `prev= is the hash of seq ${n - 1}, so seq= is ${n}`);
      }
      const reopened = head.type === "claim"; // the guest's reveal may yet replace it: its children may come first
      if (message.seq === n && !(reopened || this.over)) {
        throw new RemoteProtocolError("broken-link", `prev= is not the hash of seq ${n - 1}`);
      }
      return this._keep(message, message.prev);
    }
    if (message.type === "timeout" && message.get("sent") !== null && message.get("flagged") !== null
        && message.get("now") !== null && message.seq <= n) {
      const st = message.seq < n ? this._before[message.seq] : this._state;
      const began = this._turnBegan(message.seq);
      if (this._sender(message.signer, st) === Sender.WAITER && began !== null && this._claims.claimOf(message, began) === null) {
        return this._keep(message, flagToken(message.signer, began.hash)); // the claim it closes first
      }
      if (this._void.has(message.hash) || this._witnessedClaim(message) === false) {
        this._voidClaim(message, events);
        return [];
      }
    }
    if (message.seq < n) return this._race(message, events);
    const [, move] = this._judge(message, this._state);
    return this._place(message, events, move);
  }

  /**
   * The host's accept: seat the join it names (kept until that join comes).
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _accept(message, events) {
    const join = this._joinByHash(message.prev);
    if (join === null) {
      if (same(message.signer, this._host) && message.peer !== null && this._seating.name(message.peer)) {
        this._reclassify(events);
      }
      return this._keep(message, message.prev);
    }
    this._judge(message, this._state);
    const guest = /** @type {PublicKey} */ (message.peer);
    if (!same(guest, join.signer)) throw new RemoteProtocolError("bad-field", "guest= is not the key that signed the join");
    const problem = this._seating.problem(join);
    if (problem !== null) {
      throw new RemoteProtocolError(problem.code, `the accept seats a join that is refused: ${problem.detail}`);
    }
    this._place(join, events);
    this._place(message, events);
    this._seatGuest(guest, events);
    return [join.hash, message.hash, `seat ${guest.text}`];
  }

  /**
   * Keep one of the host's accepts (a few): the guest it names is evident from now on.
   * @param {Message} message
   * @param {Event[]} events
   */
  _hostAccept(message, events) {
    const peer = this._seating.addAccept(message);
    if (message.peer !== null) {
      for (const waiting of this._waiting.linesOf(message.peer)) if (waiting.type === "reveal") this._seating.reveal(waiting);
    }
    if (peer !== null) {
      const seen = [...this._seating.joinsOf(peer),
        ...this._waiting.linesOf(peer).filter((line) => !SIDE_LINES.has(line.type))];
      for (const line of seen) this._equivocates(line, events);
      this._released.push(`seat ${peer.text}`);
      this._reclassify(events);
    }
  }

  /**
   * @param {string} digest
   * @returns {Message | null} the join with this hash, if known
   */
  _joinByHash(digest) {
    if (this._chain.length > 1 && this._chain[1].hash === digest) return this._chain[1];
    return this._seating.join(digest);
  }

  /**
   * A line for a sequence number another key's line holds: judge both as of before it; the higher rank stands.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _race(message, events) {
    const seq = message.seq;
    if (message.prev !== this._chain[seq - 1].hash) {
      throw new RemoteProtocolError("broken-link", `prev= is not the hash of seq ${seq - 1}`);
    }
    const held = this._chain[seq];
    const before = this._before[seq];
    if (before.phase !== Phase.ACCEPTED && before.phase !== Phase.PLAYING) {
      throw new RemoteProtocolError("wrong-seat", `seq ${seq} is already taken`);
    }
    const [rank] = this._judge(message, before);
    if (rank <= this._rankHeld(held, before)) {
      if (held.type === "timeout" && ANSWERS.has(message.type)) this._claims.displace(message); // an answer to the claim
      return this._setAside(message, held, events);
    }
    for (const later of this._chain.slice(seq).reverse()) {
      this._unplace();
      this._superseded.set(later.hash, later);
      if (message.type === "timeout" && ANSWERS.has(later.type) && later.seq === seq) this._claims.displace(later);
      events.push(event("Superseded", { message: later, by: message }));
    }
    return this._place(message, events);
  }

  /**
   * @param {Message} message
   * @param {State} st
   */
  _rankHeld(message, st) {
    const sender = /** @type {string} */ (this._sender(message.signer, st));
    return RULES[st.phase][sender][message.type];
  }

  /**
   * @param {Message} message
   * @param {Message} by
   * @param {Event[]} events
   * @returns {string[]}
   */
  _setAside(message, by, events) {
    if (this._superseded.size >= MAX_SUPERSEDED) {
      throw new RemoteProtocolError("superseded", "and no more lines are kept for this game");
    }
    this._superseded.set(message.hash, message);
    this._evidence.note(message);
    this._remember(message);
    events.push(event("Superseded", { message, by }));
    return [message.hash];
  }

  // -- equivocation: one key, one history (evidence.js) -------------------------------------------------------------
  /**
   * Keep `message` in its (seated) signer's history, with a proof for every line it cannot stand with; whether there
   * was any (the line then goes no further: the forfeit rule decides).
   * @param {Message} message
   * @param {Event[]} events
   */
  _equivocates(message, events) {
    const conflicts = this._evidence.conflicts(message);
    this._evidence.note(message);
    for (const earlier of conflicts) this._proof(earlier, message, events);
    return conflicts.length > 0;
  }

  /**
   * Two lines of one key that cannot both stand: kept as a proof (one a point), its lines known.
   * @param {Message} first
   * @param {Message} second
   * @param {Event[]} events
   */
  _proof(first, second, events) {
    const proven = this._evidence.prove(first, second, (line) => this._known.has(line));
    for (const line of proven.known) this._remember(line);
    if (proven.proof !== null) events.push(proven.proof);
  }

  /** @returns {import("./evidence.js").Proof[]} the proofs of the keys that hold a seat, or may */
  get proofs() {
    return this._evidence.proofs.filter((proof) => this.roleOf(proof.key) !== null || this._seating.evident(proof.key));
  }

  /** @returns {PublicKey[]} the seated keys proven to have equivocated */
  get compromisedBy() {
    return this._evidence.proven().filter((key) => this.roleOf(key) !== null);
  }

  /** @returns {number | null} the point at which a seated key's proof will end the game, while lines before it lack */
  get forfeitPending() {
    const point = this._forfeitPoint();
    if (point === null || this._forfeitedAt !== null || this._chain.length >= point.cut) return null;
    return point.slot;
  }

  /**
   * After a forfeit: the equivocator's line the opponent answered, and that answer, if seen.
   * @returns {[Message, Message] | null}
   */
  get branch() {
    const result = this._state.result;
    if (this._forfeitedAt === null || result === null || result.by === null || result.slot === null) return null;
    const at = result.slot;
    const candidates = new Set(this._evidence.proofsOf(result.by).filter((proof) => proof.point === at)
      .flatMap((proof) => [proof.first, proof.second]));
    const answer = result.winnerKey !== null ? this._evidence.seen(result.winnerKey, String(at + 1)) : null;
    if (answer === null) return null;
    for (const line of candidates) {
      const held = this._knownMessages.get(line);
      if (held !== undefined && held.hash === answer.prev) return [held, answer];
    }
    return null;
  }

  // -- the forfeit: whoever signed two lines that cannot both stand loses the game at that point -------------------
  /**
   * Where a seated key's proof at `point` stops the record: at `point`, but never before the seating (3) for the
   * guest, and for a host that signed two lines while seating, at 3 with its canonical accept's guest, or at the
   * offer alone (1) when it seated nobody.
   * @param {PublicKey} key
   * @param {number} point
   */
  _cutPoint(key, point) {
    if (point >= 3) return point;
    if (!same(key, this._host)) return 3;
    const seated = this._canonicalSeating();
    return seated !== null && !seated.ambiguous ? 3 : 1;
  }

  /** @returns {import("./seating.js").Seated | null} whom a host that signed more than one seating line seated */
  _canonicalSeating() {
    return this._seating.canonical(this._placedJoin(), (key) => this._clean(key),
      (key, reveal) => this._firstMove(key, reveal) !== null);
  }

  /** @returns {Message | null} */
  _placedJoin() {
    return this._chain.length > 1 ? this._chain[1] : null;
  }

  /**
   * `key`'s first move after `reveal`, if it signed one.
   * @param {PublicKey} key
   * @param {Message} reveal
   * @returns {Message | null}
   */
  _firstMove(key, reveal) {
    const line = this._evidence.seen(key, "4");
    return line !== null && line.type === "move" && line.prev === reveal.hash ? line : null;
  }

  /** @returns {string[]} when the host signed more than one line for its seating: what decided whom it seated */
  seatingLines() {
    if (this._host === null || !this._hostSeatingProof()) return [];
    const lines = this._seating.lines(this._placedJoin(), (key, reveal) => this._firstMove(key, reveal))
      .map((line) => line.line);
    for (const proof of this.proofs) {
      if (!same(proof.key, this._host) && proof.point !== null && proof.point <= 3) lines.push(proof.first, proof.second);
    }
    return lines;
  }

  /**
   * Whether `key` signed no two lines that cannot both stand before the play (seq 1 to 3).
   * @param {PublicKey} key
   */
  _clean(key) {
    return !this._evidence.proofsOf(key).some((proof) => proof.point !== null && proof.point <= 3);
  }

  /** @returns {import("./evidence.js").ForfeitPoint | null} the lowest cut of a seated key's proof */
  _forfeitPoint() {
    return this._evidence.forfeitPoint((key, point) => (this.roleOf(key) !== null ? this._cutPoint(key, point) : null));
  }

  /**
   * Apply the forfeit rule once the lines before its point are in: the same state in every order of arrival.
   * @param {Event[]} events
   */
  _settle(events) {
    let point = this._forfeitPoint();
    if (point === null) return;
    const host = /** @type {PublicKey} */ (this._host);
    const hostIn = (/** @type {PublicKey[]} */ keys) => keys.some((key) => same(key, host));
    const seated = point.cut === 3 && hostIn(point.keys) && this._hostSeatingProof() ? this._canonicalSeating() : null;
    if (seated !== null && seated.join !== null && seated.accept !== null
        && (this._chain.length < 3 || this._chain[2].hash !== seated.accept.hash)) {
      this._reseat(seated.join, seated.accept, events);
      point = /** @type {import("./evidence.js").ForfeitPoint} */ (this._forfeitPoint());
    }
    const { cut, keys, slot } = point;
    const n = this._chain.length;
    if (n < cut) return;
    if (this._forfeitedAt === null && this._state.phase === Phase.OVER && n <= cut) return;
    const guest = this._state.guest;
    while (this._chain.length > cut) this._unplace();
    if (guest !== null && this._state.guest === null) {
      this._unseat(guest);
      this._reclassify(events);
    }
    const base = this._forfeitedAt !== null ? this._forfeitBase : this._state;
    const result = this._forfeitResult(base, keys, slot);
    if (this._forfeitedAt === cut && result.equals(this._state.result)) return;
    this._forfeitBase = base;
    this._state = state({ ...base, phase: Phase.OVER, result, proposal: null, remarks: new Set() });
    this._forfeitedAt = cut;
    events.push(event("GameOver", { result }));
  }

  /** Whether the host's decisive proof is one of its seating (two lines for seq 1 or 2). */
  _hostSeatingProof() {
    return this._evidence.proofsOf(/** @type {PublicKey} */ (this._host))
      .some((proof) => proof.point !== null && proof.point <= 2);
  }

  /**
   * Seat the guest of the host's canonical accept in place of whatever seating came first.
   * @param {Message} join
   * @param {Message} accept
   * @param {Event[]} events
   */
  _reseat(join, accept, events) {
    const displaced = this._forfeitedAt === null ? this._state.guest : this._forfeitBase.guest;
    if (this._forfeitedAt !== null) {
      this._state = this._forfeitBase;
      this._forfeitedAt = null;
    }
    while (this._chain.length > 1) this._unplace();
    if (displaced !== null) this._unseat(displaced);
    const peer = /** @type {PublicKey} */ (accept.peer);
    this._place(join, events);
    this._place(accept, events);
    this._seatGuest(peer, events);
    this._released.push(join.hash, accept.hash, `seat ${peer.text}`);
  }

  /**
   * A guest the host's canonical accept no longer seats: what it applied beside the chain (its chat, its presence)
   * is taken back, its chat lines waiting again for its seat.
   * @param {PublicKey} guest
   */
  _unseat(guest) {
    const mine = this._transcript.map((line) => this._knownMessages.get(line))
      .filter((message) => message !== undefined && message.type === "chat" && same(message.signer, guest))
      .map((message) => /** @type {Message} */ (message));
    for (const message of mine) {
      this._transcript.splice(this._transcript.indexOf(message.line), 1);
      this._known.delete(message.line);
      this._knownMessages.delete(message.line);
    }
    this._chats.delete(guest.text);
    this._presence.delete(guest.text);
    for (const message of mine) {
      try {
        this._keep(message, `seat ${guest.text}`);
      } catch (error) {
        if (!(error instanceof RemoteProtocolError)) throw error; // no room: the game is asked for again at the next seat
      }
    }
  }

  /**
   * @param {State} st
   * @param {PublicKey[]} keys
   * @param {number} slot
   * @returns {Result}
   */
  _forfeitResult(st, keys, slot) {
    const reason = ResultReason.EQUIVOCATION;
    if (keys.length > 1) return new Result(reason, { scored: false, slot });
    const key = keys[0];
    if (st.seats !== null) {
      const players = /** @type {AnyBoard} */ (this._board).players;
      const mine = same(key, st.seats[0]) ? 0 : 1;
      return new Result(reason, { winner: players[1 - mine], winnerKey: st.seats[1 - mine], by: key,
        byName: players[mine], slot });
    }
    if (same(key, this._host)) {
      if (st.phase === Phase.ACCEPTED && st.guest !== null) {
        return new Result(reason, { winner: GUEST, winnerKey: st.guest, by: key, byName: HOST, slot });
      }
      const seated = this._canonicalSeating();
      if (seated !== null && seated.ambiguous) return new Result(reason, { winner: GUEST, by: key, byName: HOST, slot });
      return new Result(reason, { by: key, byName: HOST, scored: false, slot });
    }
    return new Result(reason, { winner: HOST, winnerKey: this._host, by: key, byName: GUEST, slot });
  }

  /**
   * A line of a key that holds no seat: kept until its seat is known while no guest is seated (or an accept names
   * it), else refused.
   * @param {Message} message
   * @returns {string[]}
   */
  _unseated(message) {
    if (this._state.guest === null || this._seating.evident(message.signer)) {
      return this._keep(message, `seat ${message.signer.text}`);
    }
    this._waiting.markDropped();
    throw new RemoteProtocolError("wrong-signer", `${message.signer.fingerprint} is not a player here`);
  }

  // -- applying ----------------------------------------------------------------------------------------------------
  /**
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _offer(message, events) {
    const game = message.game;
    if (this._chain.length || (this.gameId !== null && game !== this.gameId)) {
      throw new RemoteProtocolError("wrong-game", `an offer of game ${game}, not ${this.gameId}`);
    }
    const terms = /** @type {string} */ (message.get("terms"));
    checkTerms(terms);
    this._claims.clock = TimeControl.ofTerms(terms);
    this._claims.firstFree = firstMoveFree(terms);
    const kind = /** @type {"oxono" | "olix"} */ (message.get("kind"));
    this.gameId = game;
    this.kind = kind;
    this.terms = terms;
    this._board = new BOARDS[kind]();
    this._host = message.signer;
    this.invite = message.peer;
    this._seating.offer(message.signer, message.peer, terms);
    this._witnesses.name(witnessesOf(terms));
    this._evidence.witnessed = this._witnesses.keys.length > 0;
    this._chain.push(message);
    this._before.push(this._state);
    this._state = state({ phase: Phase.OFFERED });
    this._transcript.push(message.line);
    this._remember(message);
    events.push(event("LineApplied", { message }));
    events.push(event("OfferReceived", { game, gameKind: kind, host: message.signer, invite: message.peer, terms,
      at: Number(message.get("at")) }));
    this._reclassify(events);
    return ["offer"];
  }

  /**
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _join(message, events) {
    if (message.prev !== this._chain[0].hash) {
      throw new RemoteProtocolError("broken-link", "prev= of a join is the hash of the offer");
    }
    this._seating.rememberJoin(message);
    if (this._seating.evident(message.signer) || same(message.signer, this._state.guest)) this._equivocates(message, events);
    const st = this._state;
    if (st.phase !== Phase.OFFERED) {
      if (st.phase === Phase.OVER && this._chain.length < 3) {
        throw new RemoteProtocolError("after-end", `the game ended (${/** @type {Result} */ (st.result).text()})`);
      }
      if (same(message.signer, st.guest)) {
        if (this._chain[1].line !== message.line) this._proof(this._chain[1], message, events);
        return [];
      }
      throw new RemoteProtocolError("wrong-seat", "the game already has its guest");
    }
    const problem = this._seating.problem(message);
    if (problem !== null) throw problem;
    const earlier = this._seating.candidate(message.signer);
    if (earlier !== null) {
      this._proof(earlier, message, events);
      return [message.hash]; // the host may have accepted this one: its accept is judged again
    }
    if (!this._seating.addCandidate(message)) {
      this._waiting.markDropped();
      throw new RemoteProtocolError("limit", `${MAX_JOINS} joins are waiting already`);
    }
    this._remember(message);
    events.push(event("JoinRequested", { key: message.signer }));
    return [message.hash];
  }

  /**
   * Append a judged main-chain line (`move`: a move's parse): the next state, the board, the events.
   * @param {Message} message
   * @param {Event[]} events
   * @param {unknown} [move]
   * @returns {string[]}
   */
  _place(message, events, move = null) {
    const before = this._state;
    this._before.push(before);
    this._chain.push(message);
    this._transcript.push(message.line);
    this._evidence.note(message);
    this._remember(message);
    events.push(event("LineApplied", { message }));
    const after = this._advance(before, message, move, events);
    this._state = after;
    if (after.result !== null && before.result === null) events.push(event("GameOver", { result: after.result }));
    return [message.hash];
  }

  /** Take the head of the chain back (a line of higher rank came for its sequence number). */
  _unplace() {
    const message = /** @type {Message} */ (this._chain.pop());
    this._state = /** @type {State} */ (this._before.pop());
    this._forfeitedAt = null;
    this._transcript.splice(this._transcript.indexOf(message.line), 1);
    const board = /** @type {AnyBoard} */ (this._board);
    if (message.type === "move") board.pop();
    else if (message.type === "undo") {
      for (const move of [.../** @type {any[]} */ (this._undone.get(message.hash))].reverse()) board.push(move);
      this._undone.delete(message.hash);
    }
  }

  /**
   * The state after `message` (and the board moved, for a move).
   * @param {State} st
   * @param {Message} message
   * @param {unknown} move
   * @param {Event[]} events
   * @returns {State}
   */
  _advance(st, message, move, events) {
    switch (message.type) {
      case "move": return this._moved(st, message, move, events);
      case "join": return st; // the guest's join changes nothing until the host accepts it
      case "accept":
        events.push(event("GuestAccepted", { key: message.peer }));
        return state({ ...st, phase: Phase.ACCEPTED, guest: message.peer });
      case "reveal": return this._revealed(st, message, events);
      case "claim": return this._claimed(st, message);
      case "propose": case "withdraw": case "decline": return this._remarked(st, message, events);
      case "resign": return this._resigned(st, message);
      case "abort": return this._aborted(st, message);
      case "agree": return this._agreed(st, message);
      case "timeout": return this._timedOut(st, message);
      case "undo": return this._takenBack(st, message, events);
      default: throw new Error(`no transition for ${message.type} lines`);
    }
  }

  /**
   * @param {State} st
   * @param {Message} message
   * @param {unknown} move
   * @param {Event[]} events
   * @returns {State}
   */
  _moved(st, message, move, events) {
    const board = /** @type {AnyBoard} */ (this._board);
    board.push(/** @type {any} */ (move));
    events.push(event("MoveApplied", { seq: message.seq, player: board.players[st.turn], move: message.get("move"),
      ply: board.moveStack.length }));
    let clocks = st.clocks;
    if (clocks !== null) {
      const left = Number(message.get("left"));
      clocks = st.turn === 0 ? [left, clocks[1]] : [clocks[0], left];
    }
    const outcome = board.outcome();
    if (outcome === null) {
      return state({ phase: Phase.PLAYING, guest: st.guest, seats: st.seats, turn: 1 - st.turn, moves: st.moves + 1,
        proposal: st.proposal, clocks });
    }
    return state({ ...st, turn: 1 - st.turn, moves: st.moves + 1, remarks: new Set(), phase: Phase.OVER,
      result: this._ruled(outcome, /** @type {[PublicKey, PublicKey]} */ (st.seats), null), clocks });
  }

  /**
   * @param {State} st
   * @param {Message} message
   * @param {Event[]} events
   * @returns {State}
   */
  _revealed(st, message, events) {
    const board = /** @type {AnyBoard} */ (this._board);
    const host = /** @type {PublicKey} */ (this._host);
    const guest = /** @type {PublicKey} */ (st.guest);
    const hostFirst = hostMovesFirst(/** @type {string} */ (message.get("secret")),
      /** @type {string} */ (this._chain[2].get("salt")), this.terms);
    /** @type {[PublicKey, PublicKey]} */
    const seats = hostFirst ? [host, guest] : [guest, host];
    events.push(event("GameStarted", { seats: [[board.players[0], seats[0]], [board.players[1], seats[1]]] }));
    const clock = this.clock;
    return state({ ...st, phase: Phase.PLAYING, seats, clocks: clock === null ? null : [clock.startMs, clock.startMs] });
  }

  /**
   * The host withdraws its offer, or claims a forfeit (a claim, or the guest's abort before revealing).
   * @param {State} st
   * @param {Message} message
   * @returns {State}
   */
  _claimed(st, message) {
    let result;
    if (st.phase === Phase.OFFERED) {
      result = new Result(ResultReason.WITHDRAWN, { by: message.signer, byName: HOST, scored: false });
    } else {
      const role = message.type === "claim" ? HOST : GUEST;
      result = new Result(ResultReason.FORFEIT, { winner: HOST, winnerKey: this._host, by: message.signer, byName: role });
    }
    return state({ ...st, phase: Phase.OVER, result });
  }

  /**
   * The signer's seat (0 or 1), its player name and the other's.
   * @param {State} st
   * @param {Message} message
   * @returns {[number, string, string]}
   */
  _players(st, message) {
    const players = /** @type {AnyBoard} */ (this._board).players;
    const seats = /** @type {[PublicKey, PublicKey]} */ (st.seats);
    const mine = same(message.signer, seats[st.turn]) ? st.turn : 1 - st.turn;
    return [mine, players[mine], players[1 - mine]];
  }

  /**
   * A proposal to end the game, its withdrawal or its refusal: the turn stays with the actor.
   * @param {State} st
   * @param {Message} message
   * @param {Event[]} events
   * @returns {State}
   */
  _remarked(st, message, events) {
    const [mine, player] = this._players(st, message);
    const remarks = new Set([...st.remarks, message.type]);
    if (message.type === "propose") {
      events.push(event("EndProposed", { player }));
      return state({ ...st, proposal: mine, remarks });
    }
    events.push(event(message.type === "withdraw" ? "ProposalWithdrawn" : "EndDeclined", { player }));
    return state({ ...st, proposal: null, remarks });
  }

  /**
   * @param {State} st
   * @param {Message} message
   * @returns {State}
   */
  _resigned(st, message) {
    const [mine, player, other] = this._players(st, message);
    const seats = /** @type {[PublicKey, PublicKey]} */ (st.seats);
    const result = new Result("resigned", { winner: other, winnerKey: seats[1 - mine], by: message.signer,
      byName: player });
    return state({ ...st, phase: Phase.OVER, result, proposal: null });
  }

  /**
   * @param {State} st
   * @param {Message} message
   * @returns {State}
   */
  _aborted(st, message) {
    if (st.phase !== Phase.PLAYING) return this._claimed(st, message);
    const [, player] = this._players(st, message);
    const result = new Result(ResultReason.ABORTED, { by: message.signer, byName: player, scored: false });
    return state({ ...st, phase: Phase.OVER, result, proposal: null });
  }

  /**
   * An undo: the board as it was before the last `plies` moves. Of one, the turn goes to the player whose move it
   * took back (a new turn, on the actor's clock as a move is); of two, it stays with the actor, whose clock runs on.
   * @param {State} st
   * @param {Message} message
   * @param {Event[]} events
   * @returns {State}
   */
  _takenBack(st, message, events) {
    const board = /** @type {AnyBoard} */ (this._board);
    const plies = Number(message.get("plies"));
    const popped = Array.from({ length: plies }, () => board.pop());
    this._undone.set(message.hash, popped);
    events.push(event("MovesTakenBack", { seq: message.seq, player: board.players[st.turn], plies,
      moves: popped.filter((move) => move !== null).map((move) => move.text()) }));
    if (plies === 2) return state({ ...st, remarks: new Set([...st.remarks, "undo"]) });
    let clocks = st.clocks;
    if (clocks !== null) {
      const left = Number(message.get("left"));
      clocks = st.turn === 0 ? [left, clocks[1]] : [clocks[0], left];
    }
    return state({ ...st, turn: 1 - st.turn, moves: st.moves + 1, remarks: new Set(), clocks });
  }

  /**
   * The player to move concedes on time, or the other's flag claim went unanswered.
   * @param {State} st
   * @param {Message} message
   * @returns {State}
   */
  _timedOut(st, message) {
    const [mine, player, other] = this._players(st, message);
    const seats = /** @type {[PublicKey, PublicKey]} */ (st.seats);
    const result = mine === st.turn
      ? new Result(ResultReason.TIME, { winner: other, winnerKey: seats[1 - mine], by: message.signer, byName: player,
        detail: `${player} conceded` })
      : this._claimResult(st, message);
    return state({ ...st, phase: Phase.OVER, result, proposal: null });
  }

  /**
   * How a claimant's timeout ends the game, judged in `st`, the state before it.
   * @param {State} st
   * @param {Message} timeout
   * @returns {Result}
   */
  _claimResult(st, timeout) {
    const [mine, player, other] = this._players(st, timeout);
    const board = /** @type {AnyBoard} */ (this._board);
    const seats = /** @type {[PublicKey, PublicKey]} */ (st.seats);
    return this._claims.verdict(timeout, player, other, seats[1 - mine], () => timeUsed(this.answers(), board.players),
      { witnessed: this._witnessedClaim(timeout) === true, first: this._freeFirst(st) });
  }

  /**
   * Decide a claimant's timeout again once more lines are in (a receipt, an answer the timeout set aside).
   * @param {Event[]} events
   */
  _claimVerdict(events) {
    const st = this._state;
    const head = this._chain.at(-1);
    if (st.phase !== Phase.OVER || head === undefined || this._forfeitedAt !== null) return;
    const result = st.result;
    if (head.type !== "timeout" || result === null || result.detail === null || head.get("now") === null) return;
    const again = this._claimResult(this._before[head.seq], head);
    if (!again.equals(result)) {
      this._state = state({ ...st, result: again });
      events.push(event("GameOver", { result: again }));
    }
  }

  /**
   * A draw in Oxono, the position scored on the markers in Olix.
   * @param {State} st
   * @param {Message} message
   * @returns {State}
   */
  _agreed(st, message) {
    const board = /** @type {AnyBoard} */ (this._board);
    const result = this._ruled(board.agreed(), /** @type {[PublicKey, PublicKey]} */ (st.seats), message.signer);
    return state({ ...st, phase: Phase.OVER, result, proposal: null });
  }

  /**
   * @param {import("./rules-common.js").Outcome} outcome
   * @param {readonly [PublicKey, PublicKey]} seats
   * @param {PublicKey | null} by
   * @returns {Result}
   */
  _ruled(outcome, seats, by) {
    const players = /** @type {AnyBoard} */ (this._board).players;
    const winner = outcome.winner;
    const key = winner !== null ? seats[players.indexOf(winner)] : null;
    const byName = by !== null ? this.playerOf(by) : null;
    return new Result(outcome.reason, { winner, winnerKey: key, by, byName, markers: outcome.markers });
  }

  /**
   * The guest is known: forget the other candidates and every waiting line no seated key signed.
   * @param {PublicKey} guest
   * @param {Event[]} events
   */
  _seatGuest(guest, events) {
    this._seating.seat(guest);
    const host = /** @type {PublicKey} */ (this._host);
    const seated = new Set([guest.text, host.text, ...this._seating.evidentKeys().map((key) => key.text)]);
    for (const waiting of this._waiting.dropOthers(seated)) {
      this._waiting.markDropped();
      events.push(event("LineRejected", { code: "wrong-signer", detail: `${waiting.signer.fingerprint} is not a player here`,
        line: quoted(waiting.line) }));
    }
    this._evidence.keepProofsOf((key) => same(key, guest) || same(key, host) || this._seating.evident(key));
    for (const waiting of this._waiting.linesOf(guest)) if (!SIDE_LINES.has(waiting.type)) this._equivocates(waiting, events);
    this._reclassify(events);
  }

  // -- beside the chain --------------------------------------------------------------------------------------------
  /**
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _chat(message, events) {
    const key = message.signer;
    if (this.roleOf(key) === null) return this._unseated(message);
    const earlier = this._evidence.seen(key, message.slot);
    if (earlier !== null && earlier.line !== message.line) {
      this._proof(earlier, message, events);
      return [];
    }
    this._evidence.note(message);
    const [seq, head] = this._chats.get(key.text) ?? [0, this._chain[0].hash];
    if (message.seq > seq + 1) return this._keep(message, message.prev);
    if (message.seq <= seq) throw new RemoteProtocolError("wrong-seat", `chat ${message.seq} of this key is already taken`);
    if (message.prev !== head) throw new RemoteProtocolError("broken-link", "prev= is not the hash of this key's previous chat");
    this._chats.set(key.text, [message.seq, message.hash]);
    this._transcript.push(message.line);
    this._remember(message);
    events.push(event("LineApplied", { message }));
    events.push(event("ChatReceived", { key, text: decodeText(/** @type {string} */ (message.get("text"))) }));
    return [message.hash];
  }

  /**
   * The latest presence line of each seated key counts: the higher seq, and at one seq gone.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _presenceLine(message, events) {
    const key = message.signer;
    if (this.roleOf(key) === null) return this._unseated(message);
    const said = message.get("state");
    const here = said !== "gone";
    if (said === "hosting") this._relayRunners.add(key.text);
    const latest = this._presence.get(key.text);
    if (latest === undefined || message.seq > latest[0] || (message.seq === latest[0] && latest[1] && !here)) {
      this._presence.set(key.text, [message.seq, here]);
      if (latest === undefined || latest[1] !== here) events.push(event("PresenceChanged", { key, here }));
    }
    return [];
  }

  /**
   * A player's confirmation of an ending: kept (it never changes the game), judged by `confirmation`.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _confirm(message, events) {
    const key = message.signer;
    if (this.roleOf(key) === null && !this._seating.evident(key)) {
      this._unseated(message);
      return [];
    }
    this._acknowledge(message, events);
    let mine = this._confirms.get(key.text);
    if (mine === undefined) {
      mine = new Map();
      this._confirms.set(key.text, mine);
    }
    const earlier = mine.get(message.seq);
    if (earlier !== undefined) { // (the same line is known: never judged again)
      if (message.hash < earlier.hash) { // which one is listed does not depend on which came first
        mine.set(message.seq, message);
        this._remember(message);
        events.push(event("LineApplied", { message }));
        events.push(event("ConfirmationReceived", { key }));
      }
      this._proof(earlier, message, events); // a second, different confirmation numbered alike
      return [];
    }
    mine.set(message.seq, message);
    this._remember(message);
    events.push(event("LineApplied", { message }));
    events.push(event("ConfirmationReceived", { key }));
    return [message.hash];
  }

  /**
   * A player's receipt of the other's move or reveal (a timed game's): kept beside the chain.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _receipt(message, events) {
    if (!this._ofAPlayer(message)) return [];
    this._word(message, events); // its signer said it, whether or not the line it names is here, timed or not
    if (this.clock === null) throw new RemoteProtocolError("bad-clock", "an untimed game has no receipts");
    const receipted = this._lineNamed(message);
    if (receipted === null) return [];
    if (!beginsTurn(receipted) || same(receipted.signer, message.signer)) {
      throw new RemoteProtocolError("wrong-seat", "a receipt is of the other player's move (or undo of one), or the "
        + "host's of the reveal");
    }
    return this._byLine(message, events);
  }

  /**
   * Keep a seated player's word that the other's line for a seq came; with a timeout of its own there it is a proof.
   * @param {Message} message
   * @param {Event[]} events
   */
  _acknowledge(message, events) {
    const contradicted = this._evidence.acknowledge(message);
    if (contradicted !== null) this._proof(message, contradicted, events);
  }

  /**
   * A seated player's line beside the chain that names a chain line (a receipt, a flag claim), at first sight: a
   * second line for its slot is a proof.
   * @param {Message} message
   * @param {Event[]} events
   */
  _word(message, events) {
    this._acknowledge(message, events);
    const earlier = this._evidence.word(message);
    if (earlier === null) return;
    try {
      this._proof(earlier, message, events);
    } catch (error) { // its proofs are full: said so, and the line judged on all the same
      if (!(error instanceof RemoteProtocolError)) throw error;
      events.push(event("LineRejected", { code: error.code, detail: error.detail, line: quoted(message.line) }));
    }
  }

  /**
   * Keep a checked line that names a chain line (a receipt, a flag claim), one a line and signer.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _byLine(message, events) {
    const kept = this._claims.keep(message);
    if (kept === null) return [];
    this._remember(message);
    events.push(event("LineApplied", { message }));
    if (message.type === "receipt") this._again.push(...this._claims.takeEarly(message.signer));
    return kept ? [message.hash] : [];
  }

  /**
   * Whether a line beside the chain is a seated player's (or of a guest one of the host's accepts names); false: it
   * was kept until its seat is known, or refused.
   * @param {Message} message
   */
  _ofAPlayer(message) {
    if (this.roleOf(message.signer) !== null || this._seating.evident(message.signer)) return true;
    this._unseated(message);
    return false;
  }

  /**
   * The chain line a seated player's line beside the chain names (by seq and prev); null: kept until it comes.
   * @param {Message} message
   * @returns {Message | null}
   */
  _lineNamed(message) {
    const chain = this._chain;
    const named = message.seq < chain.length ? chain[message.seq] : null;
    if (named === null || named.hash !== message.prev) {
      if (chain.some((line) => line.hash === message.prev)) {
        throw new RemoteProtocolError("broken-link", `prev= is not the hash of seq ${message.seq}'s line`);
      }
      this._keep(message, message.prev);
      return null;
    }
    return named;
  }

  /**
   * A flag claim: the player not to move says the other's time ran out, by its own clock. Kept beside the chain.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _flag(message, events) {
    if (!this._ofAPlayer(message)) return [];
    this._word(message, events);
    const began = this._lineNamed(message);
    if (began === null) return [];
    const after = began.seq + 1 < this._chain.length ? this._before[began.seq + 1]
      : this._forfeitedAt !== null ? this._forfeitBase : this._state; // (before a forfeit that cut the record there)
    if (!beginsTurn(began) || after.phase !== Phase.PLAYING) {
      throw new RemoteProtocolError("wrong-seat", "a flag claim names the move or reveal that began a turn of the game");
    }
    const seats = /** @type {[PublicKey, PublicKey]} */ (after.seats);
    if (same(message.signer, seats[after.turn])) {
      throw new RemoteProtocolError("wrong-seat", "a flag claim is against the player to move, by the other");
    }
    this._claims.checkWait(/** @type {number} */ (numberOf(message, "sent")), /** @type {number} */ (numberOf(message, "now")),
      this._claimRemaining(after, began.seq), "the flag claim");
    this._claims.noteClaim(message);
    return [...this._byLine(message, events), flagToken(message.signer, message.prev)];
  }

  /**
   * `_lineNamed` for a seated player's line (a rematch or takeback line); else kept until its seat is known, or
   * refused. Null: nothing to judge now.
   * @param {Message} message
   * @returns {Message | null}
   */
  _playersLineNamed(message) {
    return this._ofAPlayer(message) ? this._lineNamed(message) : null;
  }

  /**
   * A player asks for a rematch, naming the game's last line and the game to play next; never changes this game.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _rematchLine(message, events) {
    const named = this._playersLineNamed(message);
    if (named === null) return [];
    if (!this.over || named !== this._chain.at(-1)) {
      throw new RemoteProtocolError("wrong-seat", "a rematch is asked for once the game is over, naming its last line");
    }
    const earlier = this._rematches.get(message.signer.text);
    if (earlier !== undefined) {
      if (earlier.line === message.line) return [];
      throw new RemoteProtocolError("wrong-seat", "this player asked for a rematch already");
    }
    if (message.get("next") === this.gameId) throw new RemoteProtocolError("bad-field", "next= names this game, not the next");
    this._rematches.set(message.signer.text, message);
    this._remember(message);
    events.push(event("RematchAsked", { key: message.signer, game: message.get("next"), message }));
    return [];
  }

  /**
   * A player asks to take back the last moves, consents to the other's asking the same, or refuses it (plies=0),
   * naming the chain's head; it never changes the game by itself. One naming an earlier head lapsed.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _takebackLine(message, events) {
    const named = this._playersLineNamed(message);
    if (named === null) return [];
    this._remember(message);
    if (named !== this._chain.at(-1)) return [];
    if (this._state.phase !== Phase.PLAYING) {
      throw new RemoteProtocolError("wrong-seat", "a takeback is asked for while the game is played");
    }
    const plies = Number(message.get("plies"));
    if (plies && /** @type {AnyBoard} */ (this._board).moveStack.length - plies < 2) {
      throw new RemoteProtocolError("wrong-seat", "each player's first move stays: no takeback reaches it");
    }
    const earlier = this._takebacks.get(message.signer.text);
    if (earlier !== undefined && earlier.prev === message.prev) {
      if (earlier.line === message.line) return [];
      throw new RemoteProtocolError("wrong-seat", "one takeback line a player for each head of the chain");
    }
    this._takebacks.set(message.signer.text, message);
    events.push(event("TakebackAsked", { player: this.playerOf(message.signer) ?? "", plies, seq: message.seq, message }));
    return [];
  }

  // -- time witnesses (witness.js) ---------------------------------------------------------------------------------
  /**
   * A line of one of the game's time witnesses: the next of its chain gives the lines it names their times; a second
   * line for one of its seq, or times that go back, prove it lies.
   * @param {Message} message
   * @param {Event[]} events
   * @returns {string[]}
   */
  _witnessLine(message, events) {
    const key = message.signer;
    if (!this._witnesses.named(key.text)) {
      throw new RemoteProtocolError("wrong-signer", `${key.fingerprint} is no witness the game's terms name`);
    }
    const held = this._witnesses.held(message);
    if (held !== null) {
      if (held.line !== message.line) {
        this._witnesses.conflict(message);
        this._remember(message);
      }
      return [];
    }
    const [seq, head] = this._witnesses.head(key.text, this._chain[0].hash);
    if (message.seq > seq + 1) return this._keep(message, message.prev);
    if (message.prev !== head) {
      throw new RemoteProtocolError("broken-link", "prev= is not the hash of this witness's previous line");
    }
    this._witnesses.apply(message);
    this._transcript.push(message.line);
    this._remember(message);
    events.push(event("LineApplied", { message }));
    return [message.hash];
  }

  /** @returns {PublicKey[]} the time witnesses the game's terms name */
  get witnesses() {
    return this._witnesses.keys.map((text) => publicKey(text));
  }

  /** @returns {Map<string, string>} the witnesses proven to lie (by key text), and why */
  witnessLies() {
    this._holdWitnesses();
    return this._witnesses.lies;
  }

  /** Hold the witnesses to the order of the game: each chain line after its prev, each claim after its turn's start. */
  _holdWitnesses() {
    /** @type {[string, string][]} */
    const follows = this._chain.slice(1).map((line) => [line.prev, line.hash]);
    for (const key of this._seatedKeys()) {
      for (const flag of this._claims.flagsOf(key, this._chain).values()) follows.push([flag.prev, flag.hash]);
    }
    this._witnesses.check(follows);
  }

  /**
   * Whether the witnesses hold a claimant's `timeout` good (true), void it (false), or do not tell (null: no
   * witness, or none saw the lines yet; the rules without a witness hold).
   * @param {Message} timeout
   * @returns {boolean | null}
   */
  _witnessedClaim(timeout) {
    if (!this._witnesses.keys.length || timeout.get("now") === null || timeout.seq > this._chain.length) return null;
    const began = this._turnBegan(timeout.seq);
    const claim = began !== null ? this._claims.claimOf(timeout, began) : null;
    if (began === null || claim === null) return null;
    this._holdWitnesses();
    const waited = this._witnesses.duration(began.hash, claim.hash);
    const window = this._witnesses.duration(claim.hash, timeout.hash);
    if (waited === null || window === null) return null;
    const st = timeout.seq < this._chain.length ? this._before[timeout.seq] : this._state;
    const needed = claimAfter(this.clock, this._witnessedRemaining(st, began.seq));
    if (waited < needed || window < answerWindow(this.clock)) return false;
    const answers = this._claims.displaced(timeout);
    if (timeout.seq < this._chain.length && !same(this._chain[timeout.seq].signer, timeout.signer)) {
      answers.push(this._chain[timeout.seq]); // the other's line that holds its place now
    }
    for (const answer of answers) {
      const first = this._witnesses.duration(answer.hash, timeout.hash);
      if (first === null) return null;
      if (first > 0) return false; // the other's line for its place came first: it stands
    }
    return true;
  }

  /**
   * The clock of the player to move in `st` (whose turn the line at `began` began) as the witnesses timed its moves;
   * the record's for a correspondence or untimed game.
   * @param {State} st
   * @param {number} began
   */
  _witnessedRemaining(st, began) {
    const remaining = this._turnClock(st);
    const clock = this.clock;
    if (clock === null || clock.days || st.seats === null) return remaining;
    const mover = st.seats[st.turn];
    /** @type {Message | null} */
    let start = null;
    let beyond = 0;
    let ply = 0;
    for (const line of this._chain.slice(0, began + 1)) {
      if (clocked(line) && same(line.signer, mover) && start !== null && this._charged(ply)) {
        const took = this._witnesses.duration(start.hash, line.hash);
        if (took !== null) beyond += Math.max(0, took - Number(line.get("think")) - LAG_MOST_MS - SLACK_MS);
      }
      if (clocked(line)) ply += 1;
      if (beginsTurn(line)) start = line;
    }
    return Math.max(0, remaining - beyond);
  }

  /**
   * Void a claimant's timeout at the head that the witnesses void, putting back the lines it set aside; and put back
   * one they voided that they no longer do (a witness proven to lie since).
   * @param {Event[]} events
   */
  _witnessClaims(events) {
    const head = this._chain.at(-1);
    if (head !== undefined && head.type === "timeout" && head.get("now") !== null && this._forfeitedAt === null
        && this._witnessedClaim(head) === false) {
      this._unplace();
      this._voidClaim(head, events);
    }
    for (const timeout of [...this._void.values()]) {
      if (this._witnessedClaim(timeout) !== false) {
        this._void.delete(timeout.hash);
        this._known.delete(timeout.line);
        this._again.push(timeout);
      }
    }
  }

  /**
   * A claimant's timeout the witnesses void: kept aside (a record holds it), and the other's lines it had set aside,
   * and what followed them, judged again.
   * @param {Message} timeout
   * @param {Event[]} events
   */
  _voidClaim(timeout, events) {
    this._void.set(timeout.hash, timeout);
    this._remember(timeout);
    events.push(event("ClaimVoided", { timeout }));
    this._waiting.markDropped(); // the claimant's lines after it were refused as after the end: the game again
    this._reclassify(events);
    const again = [...this._superseded.values()].filter((line) => line.seq >= timeout.seq
      && !same(line.signer, timeout.signer)).sort((a, b) => a.seq - b.seq || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    for (const line of again) {
      this._superseded.delete(line.hash);
      this._known.delete(line.line);
    }
    this._again.push(...again);
  }

  // -- what a receiver keeps ---------------------------------------------------------------------------------------
  /** @param {string} key a key's text */
  _seated(key) {
    return key === this._host?.text || key === this._state.guest?.text || this._seating.namedText(key)
      || this._seating.evidentText(key);
  }

  /**
   * A line is part of what the receiver verified (applied, a join, set aside, a proof's): never judged again.
   * @param {Message} message
   */
  _remember(message) {
    this._known.add(message.line);
    this._knownMessages.set(message.line, message);
  }

  /**
   * Keep a line until what it waits for comes (`token`), within the limits; nothing to release.
   * @param {Message} message
   * @param {string} token
   * @returns {string[]}
   */
  _keep(message, token) {
    this._waiting.keep(message, token);
    return [];
  }

  /**
   * A seat became known: ask for the game again if lines were dropped meanwhile.
   * @param {Event[]} events
   */
  _reclassify(events) {
    if (this._waiting.seatKnown()) events.push(event("ResyncNeeded"));
  }
}

