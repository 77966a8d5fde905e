// One game's verified record, as any receiver keeps it (protocol/judge.py's Receiver): feed it lines in any order,
// any number of times, from anyone; it ignores exact duplicates, keeps (within bounds) lines that arrive before their
// parent, applies every line that verifies and answers every other with a LineRejected event naming its code.
//
// Ported so far: the seating (offer, joins, accept, reveal and the coin, the host's claim), the main chain with its
// moves (the JavaScript rules), proposals (propose, withdraw, decline, agree), resign and abort, races (the line of
// higher rank stands), chat, presence and confirmations, the waiting room and the resync it asks for. Not yet: time
// controls (clock:, days:), receipts, flag claims and timeouts, time witnesses, takebacks and undos, rematch lines,
// and what an equivocation proof does (the forfeit): a line that needs one of them throws NotSupportedError, so that
// no page goes on with a verdict that may differ from Python's.

import { decode, decodeText } from "./messages.js";
import { NotSupportedError, RemoteProtocolError } from "./protocol-errors.js";
import { Evidence } from "./evidence.js";
import { Result, ResultReason, event } from "./events.js";
import { Seating } from "./seating.js";
import { WaitingRoom } from "./waiting.js";
import {
  CONFIRMED, DISPUTED, GUEST, HOST, MAX_CHAIN, MAX_JOINS, MAX_SUPERSEDED, Phase, REMARKS, RULES, SIDE_LINES, Sender,
  UNSEEN, checkTerms, commitment, hostMovesFirst, refusedOnSight, state, timeControlOf, witnessesOf,
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

/** Beside-the-chain types whose judging is not ported yet. */
const NOT_YET_BESIDE = Object.freeze({
  receipt: "receipts (a timed game's)",
  flag: "flag claims",
  witness: "time witnesses",
  rematch: "rematch lines",
  takeback: "takeback lines",
});
/** Main-chain types whose judging is not ported yet. */
const NOT_YET_CHAINED = Object.freeze({ timeout: "timeouts", undo: "undos (takebacks)" });

/**
 * The start of a line as an event quotes it (at most 200 characters, whatever its bytes), as Python's `quoted`.
 * @param {string | Uint8Array} data
 * @returns {string}
 */
export function quoted(data) {
  const text = typeof data === "string" ? data
    : new TextDecoder("utf-8", { fatal: false }).decode(data.subarray(0, 200));
  if (text.length <= 200) return text;
  return Array.from(text).slice(0, 200).join("");
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
    this._waiting = new WaitingRoom((key) => this._seated(key));
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

  /** @returns {string[]} the verified lines in the order they were applied, then the players' confirmations */
  get transcript() {
    /** @type {string[]} */
    const confirms = [];
    for (const key of [this._host, this._state.guest]) {
      const mine = key === null ? undefined : this._confirms.get(key.text);
      if (mine === undefined) continue;
      for (const n of [...mine.keys()].sort((a, b) => a - b)) confirms.push(/** @type {Message} */ (mine.get(n)).line);
    }
    return [...this._transcript, ...confirms];
  }

  /** @returns {string[]} what a game's record holds (proofs are not ported: the transcript) */
  get record() {
    return this.transcript;
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

  /** The turns played (every move). */
  get moves() {
    return this._state.moves;
  }

  /**
   * The moves on the board after the chain's lines before seq `before` (null: all), in the order played.
   * @param {number | null} [before]
   * @returns {Message[]}
   */
  standing(before = null) {
    return this._chain.slice(0, before ?? undefined).filter((line) => line.type === "move");
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
    const latest = /** @type {Message} */ (confirms.get(Math.max(...confirms.keys())));
    const result = this._state.result;
    if (result === null || !this._chain.length) return UNSEEN;
    const head = /** @type {Message} */ (this._chain.at(-1));
    const final = Number(latest.get("final"));
    if (final === head.seq && latest.prev === head.hash && latest.get("result") === result.code()) return CONFIRMED;
    if (final > head.seq) return UNSEEN;
    return DISPUTED;
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
      if (message.get("think") !== null || message.get("left") !== null) {
        throw new RemoteProtocolError("bad-clock", "an untimed game's moves carry no think= or left=");
      }
      return move;
    }
    if (kind in NOT_YET_CHAINED) throw new NotSupportedError(NOT_YET_CHAINED[/** @type {"undo"} */ (kind)]);
    const mine = sender === Sender.ACTOR ? st.turn : 1 - st.turn;
    if (kind === "reveal") {
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
   * Check one line and apply it if it verifies, then anything it unblocks; NotSupportedError for a line that needs
   * a part of the judge not ported yet.
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
        }
        for (const token of [...released, ...this._released]) work.push(...this._waiting.release(token));
        this._released = [];
      }
      for (const token of this._released) work.push(...this._waiting.release(token));
      this._released = [];
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
    if (this.gameId !== null && message.game !== this.gameId) {
      throw new RemoteProtocolError("wrong-game", `for game ${message.game}, not ${this.gameId}`);
    }
    const problem = refusedOnSight(message);
    if (problem !== null) throw problem;
    if (!this._chain.length) return this._keep(message, "offer");
    if (this._known.has(message.line)) return [];
    if (message.type in NOT_YET_BESIDE) throw new NotSupportedError(NOT_YET_BESIDE[/** @type {"flag"} */ (message.type)]);
    if (message.type === "chat") return this._chat(message, events);
    if (message.type === "presence") return this._presenceLine(message, events);
    if (message.type === "confirm") return this._confirm(message, events);
    if (message.type === "join") return this._join(message, events);
    if (message.type in NOT_YET_CHAINED) throw new NotSupportedError(NOT_YET_CHAINED[/** @type {"undo"} */ (message.type)]);
    const role = this.roleOf(message.signer);
    if (role === HOST && message.type === "accept" && message.seq === 2) this._hostAccept(message, events);
    if (message.type === "reveal") this._seating.reveal(message);
    if ((role !== null || this._seating.evident(message.signer)) && this._equivocates(message)) return [];
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
      for (const line of seen) this._equivocates(line);
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
    if (rank <= this._rankHeld(held, before)) return this._setAside(message, held, events);
    for (const later of this._chain.slice(seq).reverse()) {
      this._unplace();
      this._superseded.set(later.hash, later);
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
    this._known.add(message.line);
    events.push(event("Superseded", { message, by }));
    return [message.hash];
  }

  // -- equivocation: found, not yet judged -------------------------------------------------------------------------
  /**
   * Keep `message` in its signer's history; a line it cannot stand with is an equivocation, whose proof and forfeit
   * are not ported: NotSupportedError. (Python answers whether there was any; here there never is.)
   * @param {Message} message
   * @returns {false}
   */
  _equivocates(message) {
    const conflicts = this._evidence.conflicts(message);
    this._evidence.note(message);
    if (conflicts.length) this._proof(conflicts[0], message);
    return false;
  }

  /**
   * Two lines of one key that cannot both stand.
   * @param {Message} first
   * @param {Message} second
   * @returns {never}
   */
  _proof(first, second) {
    throw new NotSupportedError(`equivocation proofs (${second.signer.fingerprint} signed two lines for `
      + `${first.slot} and ${second.slot})`);
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
    if (timeControlOf(terms) !== null) throw new NotSupportedError(`timed games (${terms})`);
    if (witnessesOf(terms).length) throw new NotSupportedError(`time witnesses (${terms})`);
    const kind = /** @type {"oxono" | "olix"} */ (message.get("kind"));
    this.gameId = game;
    this.kind = kind;
    this.terms = terms;
    this._board = new BOARDS[kind]();
    this._host = message.signer;
    this.invite = message.peer;
    this._seating.offer(message.signer, message.peer, terms);
    this._chain.push(message);
    this._before.push(this._state);
    this._state = state({ phase: Phase.OFFERED });
    this._transcript.push(message.line);
    this._known.add(message.line);
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
    if (this._seating.evident(message.signer) || same(message.signer, this._state.guest)) this._equivocates(message);
    const st = this._state;
    if (st.phase !== Phase.OFFERED) {
      if (st.phase === Phase.OVER && this._chain.length < 3) {
        throw new RemoteProtocolError("after-end", `the game ended (${/** @type {Result} */ (st.result).text()})`);
      }
      if (same(message.signer, st.guest)) {
        if (this._chain[1].line !== message.line) this._proof(this._chain[1], message);
        return [];
      }
      throw new RemoteProtocolError("wrong-seat", "the game already has its guest");
    }
    const problem = this._seating.problem(message);
    if (problem !== null) throw problem;
    const earlier = this._seating.candidate(message.signer);
    if (earlier !== null) this._proof(earlier, message);
    if (!this._seating.addCandidate(message)) {
      this._waiting.markDropped();
      throw new RemoteProtocolError("limit", `${MAX_JOINS} joins are waiting already`);
    }
    this._known.add(message.line);
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
    this._known.add(message.line);
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
    this._transcript.splice(this._transcript.indexOf(message.line), 1);
    if (message.type === "move") /** @type {AnyBoard} */ (this._board).pop();
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
      default: throw new NotSupportedError(`${message.type} lines`);
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
    const outcome = board.outcome();
    if (outcome === null) {
      return state({ phase: Phase.PLAYING, guest: st.guest, seats: st.seats, turn: 1 - st.turn, moves: st.moves + 1,
        proposal: st.proposal });
    }
    return state({ ...st, turn: 1 - st.turn, moves: st.moves + 1, remarks: new Set(), phase: Phase.OVER,
      result: this._ruled(outcome, /** @type {[PublicKey, PublicKey]} */ (st.seats), null) });
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
    return state({ ...st, phase: Phase.PLAYING, seats });
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
    for (const waiting of this._waiting.linesOf(guest)) if (!SIDE_LINES.has(waiting.type)) this._equivocates(waiting);
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
    if (earlier !== null && earlier.line !== message.line) this._proof(earlier, message);
    this._evidence.note(message);
    const [seq, head] = this._chats.get(key.text) ?? [0, this._chain[0].hash];
    if (message.seq > seq + 1) return this._keep(message, message.prev);
    if (message.seq <= seq) throw new RemoteProtocolError("wrong-seat", `chat ${message.seq} of this key is already taken`);
    if (message.prev !== head) throw new RemoteProtocolError("broken-link", "prev= is not the hash of this key's previous chat");
    this._chats.set(key.text, [message.seq, message.hash]);
    this._transcript.push(message.line);
    this._known.add(message.line);
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
    let mine = this._confirms.get(key.text);
    if (mine === undefined) {
      mine = new Map();
      this._confirms.set(key.text, mine);
    }
    const earlier = mine.get(message.seq);
    if (earlier !== undefined) this._proof(earlier, message); // (the same line is known: never judged again)
    mine.set(message.seq, message);
    this._known.add(message.line);
    events.push(event("LineApplied", { message }));
    events.push(event("ConfirmationReceived", { key }));
    return [message.hash];
  }

  // -- what a receiver keeps ---------------------------------------------------------------------------------------
  /** @param {string} key a key's text */
  _seated(key) {
    return key === this._host?.text || key === this._state.guest?.text || this._seating.namedText(key)
      || this._seating.evidentText(key);
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

