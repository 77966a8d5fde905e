// The rules of a game's record, as data (protocol/rules.py): who may send what (the table) and its rank in a race,
// the limits a receiver keeps to, the terms it plays under, the coin.

import { b64, unb64, publicKey, KEY_BYTES } from "./keys.js";
import { MAX_WITNESSES, parseTerms } from "./messages.js";
import { RemoteProtocolError } from "./protocol-errors.js";
import { sha256 } from "./protocol-sha256.js";
import { RULE_REASONS } from "./rules-common.js";
import { TimeControl } from "./clock.js";

/** Join candidates kept for the host to choose from (a join that a known accept names is always kept). */
export const MAX_JOINS = 64;
/** Chat lines per player per game. */
export const MAX_CHAT_LINES = 256;
/** Equivocation proofs kept per key. */
export const MAX_PROOFS_PER_KEY = 4;
/** Further lines of a key that prove again what one of its proofs proves, known per key. */
export const MAX_PROVEN_LINES = 16;
/** Lines set aside per game. */
export const MAX_SUPERSEDED = 16;
/** Guests named by the host's waiting accepts whose lines are kept as a seated player's. */
export const MAX_NAMED = 4;
/** Main-chain sequence numbers a receiver considers. */
export const MAX_CHAIN = 512;
/** Confirmations per player. */
export const MAX_CONFIRMS = 32;
/** Witness lines one witness may sign for one game. */
export const MAX_WITNESS_LINES = 1024;
/** Joins kept per candidate key. */
export const MAX_JOINS_PER_KEY = 4;

/** The terms every offer names, and the values this implementation knows. */
export const TERMS = Object.freeze({ rules: Object.freeze(["1", "2"]) });
export const FIRST_MOVE_FREE = "rules:2";
export const TIMED = Object.freeze(["clock", "days"]);
export const WITNESS_TERM = "witness";
export const SEAT_TERM = "first";
export const SEATS = Object.freeze(["host", "guest"]);
export const HOST = "host";
export const GUEST = "guest";

/** The phases of a game (protocol/rules.py's Phase: name → the words). */
export const Phase = Object.freeze({
  WAITING: "waiting for the offer",
  OFFERED: "offered",
  ACCEPTED: "accepted",
  PLAYING: "playing",
  OVER: "over",
});

/** Who a line's signer is, as the table sees it. */
export const Sender = Object.freeze({
  HOST: "the host",
  GUEST: "the guest",
  ANYONE: "a candidate guest",
  ACTOR: "the player to move",
  WAITER: "the player not to move",
});

/**
 * Each phase's senders, the message types each may send, and their rank in a race (protocol/rules.py's RULES).
 * @type {Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, number>>>>>>}
 */
export const RULES = Object.freeze({
  [Phase.OFFERED]: { [Sender.HOST]: { accept: 1, abort: 1 }, [Sender.ANYONE]: { join: 0 } },
  [Phase.ACCEPTED]: { [Sender.GUEST]: { reveal: 2, abort: 2 }, [Sender.HOST]: { claim: 1 } },
  [Phase.PLAYING]: {
    [Sender.ACTOR]: { move: 1, propose: 1, withdraw: 1, decline: 1, agree: 3, resign: 3, timeout: 3, abort: 1, undo: 1 },
    [Sender.WAITER]: { resign: 4, timeout: 2 },
  },
  [Phase.OVER]: {},
});

/** Types after which their signer never signs another main-chain line. */
export const FINAL = Object.freeze(new Set(["agree", "resign", "abort", "timeout"]));
/** Main-chain lines that leave the turn with the actor (each at most once a turn). */
export const REMARKS = Object.freeze(new Set(["propose", "withdraw", "decline"]));
/** Types that are not judged by the table of the main chain. */
export const SIDE_LINES = Object.freeze(new Set(["offer", "join", "chat", "presence", "confirm", "receipt", "flag",
  "rematch", "takeback"]));
/** Types whose lines sit in no slot that a second line could contend for. */
export const UNCHAINED = Object.freeze(new Set(["offer", "presence", "rematch"]));
/** How a player's latest confirmation stands against a receiver's ending. */
export const CONFIRMED = "confirmed";
export const DISPUTED = "disputed";
export const UNSEEN = "unseen";

/**
 * The map kept under `key` in `outer`, made empty the first time (Python's `setdefault(key, {})`).
 * @template K, L, V
 * @param {Map<K, Map<L, V>>} outer
 * @param {K} key
 * @returns {Map<L, V>}
 */
export function inner(outer, key) {
  let found = outer.get(key);
  if (found === undefined) {
    found = new Map();
    outer.set(key, found);
  }
  return found;
}

/**
 * Whether `line` ends its signer's turn on the clock: a move, or an undo of one ply.
 * @param {import("./messages.js").Message} line
 */
export function clocked(line) {
  return line.type === "move" || (line.type === "undo" && line.get("plies") === "1");
}

/**
 * Whether `line` begins a turn of the game: a clocked line, or the reveal.
 * @param {import("./messages.js").Message} line
 */
export function beginsTurn(line) {
  return line.type === "reveal" || clocked(line);
}

/**
 * The sequence number whose line `line`'s signer says came from the other player, if it says so.
 * @param {import("./messages.js").Message} line
 * @returns {number | null}
 */
export function acknowledged(line) {
  if (line.type === "receipt") return line.seq;
  if (line.type === "confirm") {
    const result = /** @type {string} */ (line.get("result"));
    if (Object.hasOwn(RULE_REASONS, result.slice(result.lastIndexOf("-") + 1))) return Number(line.get("final"));
  }
  return null;
}

/**
 * How long a receipt's signer waited for the line it receipts (recv - sent), or a claimant's timeout before its
 * claim (flagged - sent); null for a line that does not say.
 * @param {import("./messages.js").Message} line
 * @returns {number | null}
 */
export function waited(line) {
  const sent = line.get("sent");
  if (line.type === "receipt") return sent === null ? null : Number(line.get("recv")) - Number(sent);
  const flagged = line.get("flagged");
  if (line.type === "timeout" && sent !== null && flagged !== null) return Number(flagged) - Number(sent);
  return null;
}

/**
 * Whether one key's `said` (a receipt, a confirmation) and `timeout` cannot both stand (protocol/rules.py).
 * @param {import("./messages.js").Message} said
 * @param {import("./messages.js").Message} timeout
 */
export function contradicts(said, timeout) {
  if (timeout.type !== "timeout" || said.signer.text !== timeout.signer.text || acknowledged(said) !== timeout.seq
      || said.prev === timeout.hash) {
    return false;
  }
  if (said.type === "receipt" && (timeout.get("sent") !== null || timeout.get("flagged") !== null
      || timeout.get("now") !== null)) {
    const had = waited(said);
    const claimed = waited(timeout);
    return had !== null && claimed !== null && had < claimed;
  }
  return true;
}

/**
 * Why every receiver refuses `line` by itself, or null (protocol/rules.py's refused_on_sight).
 * @param {import("./messages.js").Message} line
 * @returns {RemoteProtocolError | null}
 */
export function refusedOnSight(line) {
  const kind = line.type;
  if (kind === "offer" || kind === "presence") return null;
  if (kind === "chat") {
    return line.seq > MAX_CHAT_LINES ? new RemoteProtocolError("limit", `at most ${MAX_CHAT_LINES} chat lines a player`) : null;
  }
  if (kind === "witness") {
    return line.seq > MAX_WITNESS_LINES
      ? new RemoteProtocolError("limit", `at most ${MAX_WITNESS_LINES} witness lines a witness`) : null;
  }
  if (kind === "confirm") {
    if (line.seq > MAX_CONFIRMS) return new RemoteProtocolError("limit", `at most ${MAX_CONFIRMS} confirmations a player`);
    const final = Number(line.get("final"));
    if (final >= MAX_CHAIN) return new RemoteProtocolError("limit", `final=${final}: no game's main chain is that long`);
    return null;
  }
  if (line.seq >= MAX_CHAIN) {
    return new RemoteProtocolError("limit", `seq ${line.seq}: no game's main chain is ${MAX_CHAIN} lines long`);
  }
  if (kind === "join") {
    if (line.seq !== 1) return new RemoteProtocolError("wrong-seat", "a join is always seq 1");
    const prev = unb64(line.prev, 32).subarray(0, 16);
    const game = unb64(line.game, 16);
    if (prev.some((byte, i) => byte !== game[i])) {
      return new RemoteProtocolError("broken-link", "prev= of a join is the hash of the offer");
    }
  }
  if (kind === "receipt") {
    const sent = line.get("sent");
    const ack = line.get("ack");
    if (sent !== null && (Number(sent) > Number(line.get("recv")) || (ack !== null && Number(sent) > Number(ack)))) {
      return new RemoteProtocolError("bad-clock", "sent= is after recv= or ack=: no line is had before it leaves");
    }
  }
  return null;
}

/**
 * Everything about the game but the board, as it stood before or after one main-chain line (protocol/rules.py).
 * @typedef {{phase: string, guest: import("./keys.js").PublicKey | null,
 *   seats: readonly [import("./keys.js").PublicKey, import("./keys.js").PublicKey] | null, turn: number, moves: number,
 *   proposal: number | null, remarks: ReadonlySet<string>, result: import("./events.js").Result | null,
 *   clocks: readonly [number, number] | null}} State
 */

/**
 * A state: `phase`, and whatever else differs from the start.
 * @param {Partial<State> & {phase: string}} fields
 * @returns {Readonly<State>}
 */
export function state(fields) {
  return Object.freeze({
    guest: null, seats: null, turn: 0, moves: 0, proposal: null, remarks: new Set(), result: null, clocks: null,
    ...fields,
  });
}

/**
 * The join's commitment to the guest's coin-flip secret.
 * @param {string} secret
 */
export function commitment(secret) {
  return b64(sha256(unb64(secret, 16)));
}

/**
 * Who the terms seat first, host or guest (null: the coin decides).
 * @param {string | null} terms
 * @returns {string | null}
 */
export function firstSeat(terms) {
  for (const [name, value] of parseTerms(terms || "")) if (name === SEAT_TERM) return value;
  return null;
}

/**
 * The coin: the low bit of SHA-256(secret bytes ‖ salt bytes); 0 seats the host first; a first: term decides
 * instead.
 * @param {string} secret
 * @param {string} salt
 * @param {string | null} [terms]
 */
export function hostMovesFirst(secret, salt, terms = null) {
  const seat = firstSeat(terms);
  if (seat !== null) return seat === "host";
  const both = new Uint8Array(32);
  both.set(unb64(secret, 16), 0);
  both.set(unb64(salt, 16), 16);
  return (sha256(both)[0] & 1) === 0;
}

/**
 * Whether an offer's terms make each player's first move free of its clock (rules:2, in a timed game).
 * @param {string | null} terms
 */
export function firstMoveFree(terms) {
  const items = (terms || "").split(",");
  return items.includes(FIRST_MOVE_FREE) && items.some((item) => TIMED.includes(item.split(":")[0]));
}

/**
 * The time witnesses an offer's terms name, as key texts (none: the game has none); unknown-term for a witness:
 * term that names no keys, or names them out of order, twice, or weak.
 * @param {string | null} terms
 * @returns {string[]}
 */
export function witnessesOf(terms) {
  for (const [name, value] of parseTerms(terms || "")) {
    if (name !== WITNESS_TERM) continue;
    const texts = value.split(".");
    const sorted = [...new Set(texts)].sort();
    if (texts.length !== sorted.length || texts.some((text, i) => text !== sorted[i]) || texts.length > MAX_WITNESSES) {
      throw new RemoteProtocolError("unknown-term", `witness: names 1 to ${MAX_WITNESSES} keys, sorted, each once`);
    }
    try {
      return texts.map((text) => {
        unb64(text, KEY_BYTES);
        return publicKey(text).text;
      });
    } catch (error) {
      if (!(error instanceof Error) || error instanceof RemoteProtocolError) throw error;
      throw new RemoteProtocolError("unknown-term", `witness:${value.slice(0, 50)}: ${error.message}`);
    }
  }
  return [];
}

/**
 * Raise unknown-term unless every term of an offer is one this implementation plays under (protocol/rules.py).
 * @param {string} value
 */
export function checkTerms(value) {
  const pairs = parseTerms(value);
  for (const [name, val] of pairs) {
    if (TIMED.includes(name)) continue;
    if (name === WITNESS_TERM) {
      witnessesOf(value);
      continue;
    }
    if (name === SEAT_TERM && SEATS.includes(val)) continue;
    const known = /** @type {Record<string, readonly string[]>} */ (TERMS)[name];
    if (!known || !known.includes(val)) throw new RemoteProtocolError("unknown-term", `${name}:${val}`);
  }
  try {
    TimeControl.ofTerms(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RemoteProtocolError("unknown-term", error.message);
  }
  const named = new Set(pairs.map(([name]) => name));
  const missing = Object.keys(TERMS).filter((name) => !named.has(name)).sort();
  if (missing.length) throw new RemoteProtocolError("unknown-term", `the offer does not name ${missing.join(", ")}`);
}

