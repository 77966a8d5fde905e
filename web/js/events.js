// What a receiver tells (protocol/events.py): the result of a game, and the events a line gives, in the order they
// happened. Events are plain frozen objects with a `kind` (Python's class name) and Python's fields in camelCase.

import { Outcome } from "./rules-common.js";

/** Why a game ended beyond the rules of the games (protocol/domain.py's ResultReason). */
export const ResultReason = Object.freeze({
  ABORTED: "aborted",
  WITHDRAWN: "withdrawn",
  FORFEIT: "forfeit",
  EQUIVOCATION: "equivocation",
  TIME: "time",
  ABANDONED: "abandoned",
  DISPUTE: "dispute",
});

/** How a game ended, the same for every receiver (protocol/events.py's Result). */
export class Result {
  /**
   * @param {string} reason
   * @param {{winner?: string | null, winnerKey?: import("./keys.js").PublicKey | null,
   *   by?: import("./keys.js").PublicKey | null, byName?: string | null, scored?: boolean, markers?: boolean,
   *   slot?: number | null, detail?: string | null}} [fields]
   */
  constructor(reason, fields = {}) {
    this.reason = reason;
    /** A player name (pink, first, …), "host" or "guest" for a forfeit before the seats were drawn, or null. */
    this.winner = fields.winner ?? null;
    this.winnerKey = fields.winnerKey ?? null;
    /** Whose line ended it, when a person did. */
    this.by = fields.by ?? null;
    this.byName = fields.byName ?? null;
    /** Whether the game was played out to a result (false for aborted and withdrawn). */
    this.scored = fields.scored ?? true;
    /** Whether the result was counted on markers. */
    this.markers = fields.markers ?? false;
    this.slot = fields.slot ?? null;
    this.detail = fields.detail ?? null;
    Object.freeze(this);
  }

  /** The compact form: `pink colour`, `draw exhausted`, `host forfeit`, `aborted`. */
  text() {
    return this.scored ? `${this.winner ?? "draw"} ${this.reason}` : this.reason;
  }

  /** The compact form as one token, as a confirm line names it (and `--plain` prints it): `pink-colour`. */
  code() {
    return this.text().replaceAll(" ", "-");
  }

  /** Who won and why, in words: `black wins by pink's resignation`. */
  sentence() {
    const { winner, reason } = this;
    if (reason === ResultReason.WITHDRAWN) return "withdrawn by the host before anyone was seated";
    if (reason === ResultReason.ABORTED) {
      return this.detail !== null ? `aborted: ${this.detail}` : `aborted by ${this.byName} before their first move`;
    }
    if (reason === ResultReason.FORFEIT) {
      return this.byName === "guest" ? "the host wins by forfeit: the guest walked away after the coin flip"
        : "the host wins by forfeit: the guest did not reveal the coin flip";
    }
    if (reason === ResultReason.TIME) return `${winner} wins on time: ${this.detail}`;
    if (reason === ResultReason.ABANDONED) return `${winner} wins: ${this.detail}`;
    if (reason === ResultReason.DISPUTE) return `no result, a time dispute: ${this.detail}`;
    if (reason === "resigned") return `${winner} wins by ${this.byName}'s resignation`;
    if (reason === ResultReason.EQUIVOCATION) {
      const what = `signed two lines that cannot both stand (slot ${this.slot})`;
      if (this.by === null) return `no result: both players ${what}`;
      if (winner === null) return `no game: the host ${what}`;
      if (winner === "guest" && this.winnerKey === null) {
        return `the host forfeits: it ${what}, and two guests revealed on its accepts, so neither is named`;
      }
      const article = winner === "host" || winner === "guest" ? "the " : "";
      return `${article}${winner} wins by forfeit: ${article ? "the " : ""}${this.byName} ${what}`;
    }
    return new Outcome(winner, reason, this.markers).sentence([]); // by the rules, or agreed: the engines' words
  }

  /**
   * Whether `other` is the same result, field for field (Python's dataclass equality).
   * @param {Result | null} other
   */
  equals(other) {
    const key = (/** @type {import("./keys.js").PublicKey | null} */ k) => k?.text ?? null;
    return other !== null && other.reason === this.reason && other.winner === this.winner
      && key(other.winnerKey) === key(this.winnerKey) && key(other.by) === key(this.by) && other.byName === this.byName
      && other.scored === this.scored && other.markers === this.markers && other.slot === this.slot
      && other.detail === this.detail;
  }

  toString() {
    return this.text();
  }
}

/**
 * One event. `kind` is Python's class name: LineApplied {message}, OfferReceived {game, gameKind, host, invite,
 * terms, at}, JoinRequested {key}, GuestAccepted {key}, GameStarted {seats: [player, key][]}, MoveApplied {seq,
 * player, move, ply}, EndProposed {player}, ProposalWithdrawn {player}, EndDeclined {player}, ChatReceived {key,
 * text}, PresenceChanged {key, here}, GameOver {result}, Superseded {message, by}, LineRejected {code, detail, line},
 * ConfirmationReceived {key}, ResyncNeeded {}.
 * @typedef {{kind: string, [field: string]: any}} Event
 */

/**
 * An event of `kind` with `fields`.
 * @param {string} kind
 * @param {Record<string, unknown>} [fields]
 * @returns {Event}
 */
export function event(kind, fields = {}) {
  return Object.freeze({ kind, ...fields });
}
