// A timed game's clocks and claims (protocol/claims.py): each seated player's receipts and flag claims (one a line:
// of two, the one with the lower hash counts), the lines a claimant's timeout set aside, the clock of a move, the
// wait of a claim, a timeout, and how a claimant's timeout ends the game. The chain and the seats are the judge's.

import { Answer, answerWindow, claimAfter, disputeBound } from "./clock.js";
import { RemoteProtocolError } from "./protocol-errors.js";
import { Result, ResultReason } from "./events.js";
import { FINAL, clocked, inner } from "./protocol-rules.js";

/** @typedef {import("./messages.js").Message} Message */
/** @typedef {import("./keys.js").PublicKey} PublicKey */
/** @typedef {import("./clock.js").TimeControl} TimeControl */

/** The player to move's lines that a claimant's timeout may set aside: each answers the claim. */
export const ANSWERS = Object.freeze(new Set(["move", "propose", "withdraw", "decline", "abort", "undo"]));
/** Early claims of one key held to be judged again as its receipts grow. */
export const MAX_EARLY = 4;

/**
 * A field's number, or null when the line has none.
 * @param {Message} message
 * @param {string} name
 * @returns {number | null}
 */
export function numberOf(message, name) {
  const value = message.get(name);
  return value === null ? null : Number(value);
}

/**
 * A duration as a result's figures give it: `62.0 s`, `3 h 10 min`.
 * @param {number} ms
 */
export function seconds(ms) {
  if (ms < 3_600_000) return `${(ms / 1000).toFixed(1)} s`;
  const totalMinutes = Math.floor(ms / 60_000);
  const [hours, minutes] = [Math.floor(totalMinutes / 60), totalMinutes % 60];
  return hours < 48 ? `${hours} h ${minutes} min` : `${Math.floor(hours / 24)} days ${hours % 24} h`;
}

/**
 * `key`'s lines in `store` that name a line the chain holds as it stands.
 * @param {Map<string, Map<number, Message>>} store
 * @param {PublicKey} key
 * @param {readonly Message[]} chain
 * @returns {Map<number, Message>}
 */
function onChain(store, key, chain) {
  /** @type {Map<number, Message>} */
  const out = new Map();
  for (const [seq, line] of store.get(key.text) ?? []) {
    if (seq < chain.length && chain[seq].hash === line.prev) out.set(seq, line);
  }
  return out;
}

/** The receipts and flag claims of one game's seated players, and the answers a claimant's timeout set aside. */
export class Claims {
  constructor() {
    /** @type {TimeControl | null} the game's time control (null: untimed) */
    this.clock = null;
    /** Whether each player's first move is off its clock (rules:2, a timed game). */
    this.firstFree = false;
    /** @type {Map<string, Map<number, Message>>} each key's receipts, by the seq they receipt */
    this._receipts = new Map();
    /** @type {Map<string, Map<number, Message>>} each key's flag claims, by the turn's first line */
    this._flags = new Map();
    /** @type {Map<string, Message>} the mover's lines a claimant's timeout set aside, by hash */
    this._displaced = new Map();
    /** @type {Map<string, Map<string, Message>>} each key's flag claims for a turn ("key hash"), by their times */
    this._claimed = new Map();
    /** @type {Map<string, Map<string, Message>>} claims refused as early, to judge again */
    this._early = new Map();
  }

  /**
   * Keep a checked receipt or flag claim: true, kept, the first of its slot; false, kept in the place of the other;
   * null, the other stays.
   * @param {Message} message
   * @returns {boolean | null}
   */
  keep(message) {
    const store = message.type === "receipt" ? this._receipts : this._flags;
    const mine = inner(store, message.signer.text);
    const earlier = mine.get(message.seq);
    if (earlier !== undefined && message.hash >= earlier.hash) return null;
    mine.set(message.seq, message);
    return earlier === undefined;
  }

  /**
   * Keep a checked flag claim's times (a few a key and turn).
   * @param {Message} flag
   */
  noteClaim(flag) {
    const slot = `${flag.signer.text} ${flag.prev}`;
    const times = inner(this._claimed, slot);
    if (times.size < MAX_EARLY) {
      const at = `${flag.get("sent")} ${flag.get("now")}`;
      const held = times.get(at);
      if (held === undefined || flag.hash < held.hash) times.set(at, flag);
    }
  }

  /**
   * The flag claim a claimant's `timeout` closes (its signer's against the turn `began` began, with the times it
   * restates), if on record.
   * @param {Message} timeout
   * @param {Message} began
   * @returns {Message | null}
   */
  claimOf(timeout, began) {
    return this._claimed.get(`${timeout.signer.text} ${began.hash}`)?.get(`${timeout.get("sent")} ${timeout.get("flagged")}`)
      ?? null;
  }

  /**
   * A flag claim or a claimant's timeout refused as early: held (a few a key) to be judged again.
   * @param {Message} claim
   */
  holdEarly(claim) {
    const held = inner(this._early, claim.signer.text);
    if (held.size < MAX_EARLY) held.set(claim.hash, claim);
  }

  /**
   * `key`'s claims held as early, taken out.
   * @param {PublicKey} key
   * @returns {Message[]}
   */
  takeEarly(key) {
    const held = this._early.get(key.text);
    this._early.delete(key.text);
    return held === undefined ? [] : [...held.values()];
  }

  /**
   * @param {PublicKey} key
   * @param {readonly Message[]} chain
   * @returns {Map<number, Message>} `key`'s receipts of lines on the chain as it stands
   */
  receiptsOf(key, chain) {
    return onChain(this._receipts, key, chain);
  }

  /**
   * @param {PublicKey} key
   * @param {readonly Message[]} chain
   * @returns {Map<number, Message>} `key`'s flag claims against turns the chain holds, by the seq that began each
   */
  flagsOf(key, chain) {
    return onChain(this._flags, key, chain);
  }

  /**
   * A line of the player to move that a claimant's timeout set aside: its answer to the claim.
   * @param {Message} message
   */
  displace(message) {
    this._displaced.set(message.hash, message);
  }

  /**
   * The lines of the other player that `timeout` set aside for its own place, in a fixed order.
   * @param {Message} timeout
   * @returns {Message[]}
   */
  displaced(timeout) {
    return [...this._displaced.values()].filter((line) => line.signer.text !== timeout.signer.text
      && line.seq === timeout.seq).sort((a, b) => a.seq - b.seq || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }

  /**
   * Every move of a timed game as the receipts show it, in order; `seated`: the host and the guest.
   * @param {readonly Message[]} chain
   * @param {readonly [PublicKey, PublicKey]} seated
   * @param {(key: PublicKey) => string | null} playerOf
   * @param {(receipt: Message) => boolean} doubled whether a receipt's signer signed two for its line (neither counts)
   * @returns {Answer[]}
   */
  answers(chain, seated, playerOf, doubled) {
    const [host, guest] = seated;
    const receipts = new Map(seated.map((seat) => [seat.text, this.receiptsOf(seat, chain)]));
    /** @type {Answer[]} */
    const answers = [];
    /** @type {number | null} */
    let answered = null;
    for (const move of chain) {
      if (!clocked(move)) {
        if (move.type === "reveal") answered = move.seq;
        continue;
      }
      const answering = answered;
      answered = move.seq;
      const player = playerOf(move.signer) ?? "";
      const think = /** @type {number} */ (numberOf(move, "think"));
      const other = move.signer.text !== host.text ? host : guest;
      let theirs = receipts.get(other.text)?.get(move.seq);
      if (theirs !== undefined && doubled(theirs)) theirs = undefined; // its signer signed two: neither is its word
      const sent = theirs === undefined ? null : numberOf(theirs, "sent");
      if (theirs === undefined || sent === null) {
        answers.push(new Answer(player, think));
        continue;
      }
      const elapsed = /** @type {number} */ (numberOf(theirs, "recv")) - sent;
      const ack = numberOf(theirs, "ack");
      const mine = answering !== null ? receipts.get(move.signer.text)?.get(answering) : undefined;
      const offset = mine === undefined || ack === null ? null
        : /** @type {number} */ (numberOf(mine, "recv")) - Math.floor((sent + ack) / 2);
      answers.push(new Answer(player, think, elapsed, ack === null ? null : ack - sent, offset));
    }
    return answers;
  }

  /**
   * Every flag claim on the record, in the order of the turns claimed, and how it stands: answered, conceded,
   * closed, ended or open.
   * @param {readonly Message[]} chain
   * @param {readonly PublicKey[]} seated
   * @returns {[Message, string][]}
   */
  statuses(chain, seated) {
    /** @type {[Message, string][]} */
    const out = [];
    for (const key of seated) {
      for (const [seq, flag] of this.flagsOf(key, chain)) {
        let status = "open";
        for (const line of chain.slice(seq + 1)) {
          if (clocked(line)) status = "answered";
          else if (line.type === "timeout") status = line.signer.text === key.text ? "closed" : "conceded";
          else if (FINAL.has(line.type)) status = "ended";
          else continue;
          break;
        }
        out.push([flag, status]);
      }
    }
    return out.sort(([a], [b]) => a.seq - b.seq || (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }

  // -- the rules -------------------------------------------------------------------------------------------------
  /**
   * A timed game's move carries its thinking and the mover's clock after it, which must follow from the rule
   * (`remaining`: the mover's clock before it, null untimed; `first`: a first move off its clock); an untimed game's
   * carries neither.
   * @param {Message} message
   * @param {number | null} remaining
   * @param {boolean} [first]
   */
  checkMove(message, remaining, first = false) {
    const think = message.get("think");
    const left = message.get("left");
    if (this.clock === null || remaining === null) {
      if (think !== null || left !== null) {
        throw new RemoteProtocolError("bad-clock", "an untimed game's moves carry no think= or left=");
      }
      return;
    }
    if (think === null || left === null) {
      throw new RemoteProtocolError("bad-clock", `a move of a ${this.clock.text()} game carries think= and left=`);
    }
    let expected;
    try {
      expected = first ? this.clock.first(Number(think)) : this.clock.after(remaining, Number(think));
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      throw new RemoteProtocolError("bad-clock", error.message);
    }
    if (Number(left) !== expected) {
      throw new RemoteProtocolError("bad-clock", `left=${left} does not follow: after think=${think} the clock shows ${expected}`);
    }
  }

  /**
   * That a claimant's times show the player to move (`remaining` on its clock) silent for as long as a claim needs.
   * @param {number} sent
   * @param {number} now
   * @param {number} remaining
   * @param {string} what
   */
  checkWait(sent, now, remaining, what) {
    const needed = claimAfter(this.clock, remaining);
    if (now - sent < needed) {
      throw new RemoteProtocolError("early-claim", `${what} waited ${now - sent} ms by its own times, and the `
        + `player to move had ${needed} ms (its clock and the grace)`);
    }
  }

  /**
   * The player to move concedes on time (`conceding`), or the other closes its flag claim's answer window.
   * @param {Message} message
   * @param {boolean} conceding
   * @param {number} remaining
   * @param {boolean} [first]
   */
  checkTimeout(message, conceding, remaining, first = false) {
    const [sent, flagged, now] = ["sent", "flagged", "now"].map((name) => numberOf(message, name));
    if (conceding) {
      if (this.clock === null) throw new RemoteProtocolError("wrong-seat", "an untimed game has no clock to concede on: resign");
      if (first) {
        throw new RemoteProtocolError("wrong-seat", "a first move is off the clock, with nothing to concede on "
          + "time: the first player may abort, either may resign");
      }
      if (sent !== null || flagged !== null || now !== null) {
        throw new RemoteProtocolError("bad-field", "a concession on time carries no times");
      }
      return;
    }
    if (sent === null || flagged === null || now === null) {
      throw new RemoteProtocolError("bad-field", "a claimant's timeout carries sent=, flagged= and now=");
    }
    this.checkWait(sent, flagged, remaining, "the claim");
    const window = answerWindow(this.clock);
    if (now - flagged < window) {
      throw new RemoteProtocolError("early-claim", `the timeout came ${now - flagged} ms after the claim, within `
        + `its ${window} ms answer window`);
    }
  }

  /**
   * How a claimant's timeout ends the game, from the lines held (protocol/claims.py's verdict).
   * @param {Message} timeout
   * @param {string} claimant
   * @param {string} other
   * @param {PublicKey} loser
   * @param {() => Record<string, import("./clock.js").TimeUsed>} used
   * @param {{witnessed?: boolean, first?: boolean}} [options] `witnessed`: the time witnesses hold the claim good
   * @returns {Result}
   */
  verdict(timeout, claimant, other, loser, used, { witnessed = false, first = false } = {}) {
    const answers = this.displaced(timeout).filter((line) => line.signer.text === loser.text);
    const waited = seconds(/** @type {number} */ (numberOf(timeout, "flagged")) - /** @type {number} */ (numberOf(timeout, "sent")));
    if (answers.length && !witnessed) {
      const answer = answers[0];
      const think = answer.get("think");
      const said = think !== null ? ` (it says it thought ${seconds(Number(think))})` : "";
      const what = answer.type === "move" ? `move ${answer.get("move")}` : answer.type;
      return new Result(ResultReason.DISPUTE, { by: timeout.signer, byName: claimant, scored: false,
        detail: `${claimant} claimed ${other} had not moved after ${waited}, and ${other}'s ${what} for that place is `
          + `on the record${said}` });
    }
    const bound = disputeBound(this.clock);
    if (bound !== null && !witnessed) {
      const own = used()[claimant].unexplained;
      if (own > bound) {
        return new Result(ResultReason.DISPUTE, { by: timeout.signer, byName: claimant, scored: false,
          detail: `${claimant} claimed ${other}'s clock ran out, and ${claimant}'s own moves leave ${seconds(own)} `
            + `unexplained (a claim wins with ${seconds(bound)} at most)` });
      }
    }
    const seen = witnessed ? ", as the time witnesses saw it" : "";
    if (first) {
      return new Result(ResultReason.ABORTED, { by: timeout.signer, byName: claimant, scored: false,
        detail: `${other} made no first move in time${seen}` });
    }
    const fields = { winner: claimant, winnerKey: timeout.signer, by: timeout.signer, byName: claimant };
    if (this.clock === null) {
      return new Result(ResultReason.ABANDONED, { ...fields, detail: `${other} did not move for ${waited}${seen}` });
    }
    return new Result(ResultReason.TIME, { ...fields,
      detail: `${other}'s clock ran out and the claim went unanswered${seen}` });
  }
}
