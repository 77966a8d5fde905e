// The protocol's second implementation, for the spectator's page: what the page imports.
//
// Lines (messages.js), keys (keys.js) and the codes of a refusal (protocol-errors.js), and above them the first
// steps of a receiver: the main chain's line-level links (`Chain`: each line names the one before it by its hash, at
// the next sequence number, in one game) and a transcript file read into its verified lines (`readTranscript`).
// Above them the judge (judge.js, session.js: a watcher's GameSession; transcript.js: verifyTranscript), which
// ports protocol/judge.py as a watcher keeps it (web/README.md).

import { NUMBERED_APART, decode } from "./messages.js";
import { RemoteProtocolError } from "./protocol-errors.js";

export * from "./keys.js";
export * from "./messages.js";
export * from "./protocol-errors.js";
export { GameSession } from "./session.js";
export { Receiver } from "./judge.js";
export { Result } from "./events.js";
export { verifyTranscript, checkEquivocationProof } from "./transcript.js";
export { Phase, CONFIRMED, DISPUTED, UNSEEN } from "./protocol-rules.js";

/** Types whose lines sit in no place of the main chain: beside it (numbered apart), or in no slot at all. */
export const BESIDE_THE_CHAIN = Object.freeze(new Set([...NUMBERED_APART, "presence", "rematch"]));

/**
 * Where a line stands against a chain: it extends it (`next`), names a line not here yet (`waits`: its parent is
 * missing, a gap), sits beside the main chain (`beside`), or claims a place the chain already holds (`behind`: a
 * race or an equivocation, for the judge to rank).
 * @typedef {"next" | "waits" | "beside" | "behind"} Standing
 */

/** The main chain of one game, offer first: each line at the next seq, its prev= the hash of the line before. */
export class Chain {
  constructor() {
    /** @type {import("./messages.js").Message[]} */
    this._lines = [];
  }

  /** @returns {readonly import("./messages.js").Message[]} the lines, offer first */
  get lines() {
    return this._lines;
  }

  /** @returns {import("./messages.js").Message | null} the last line */
  get head() {
    return this._lines.at(-1) ?? null;
  }

  /** @returns {string | null} the game id, once the offer is here */
  get gameId() {
    return this._lines[0]?.game ?? null;
  }

  /**
   * Where `message` stands against this chain; RemoteProtocolError (wrong-game, broken-link) for a line that can
   * never stand in it, with protocol/judge.py's codes.
   * @param {import("./messages.js").Message} message
   * @returns {Standing}
   */
  standing(message) {
    const head = this.head;
    if (message.type === "offer") {
      if (head !== null) throw new RemoteProtocolError("wrong-game", `an offer of game ${message.game}, not ${this.gameId}`);
      return "next";
    }
    if (head === null) return "waits";
    if (message.game !== this.gameId) throw new RemoteProtocolError("wrong-game", `for game ${message.game}, not ${this.gameId}`);
    if (BESIDE_THE_CHAIN.has(message.type)) return "beside";
    const n = this._lines.length;
    if (message.seq > n || (message.seq === n && message.prev !== head.hash)) {
      if (message.prev === head.hash) {
        throw new RemoteProtocolError("broken-link", `prev= is the hash of seq ${n - 1}, so seq= is ${n}`);
      }
      // The judge keeps such a line waiting after a claim the guest's reveal may replace, or once the game is over;
      // a chain without the rules cannot tell, and refuses it.
      if (message.seq === n) throw new RemoteProtocolError("broken-link", `prev= is not the hash of seq ${n - 1}`);
      return "waits";
    }
    return message.seq < n ? "behind" : "next";
  }

  /**
   * Add the next line (`standing` is `next`); RemoteProtocolError otherwise (gap for a line that waits).
   * @param {import("./messages.js").Message} message
   */
  append(message) {
    const standing = this.standing(message);
    if (standing !== "next") {
      const code = standing === "waits" ? "gap" : "superseded";
      throw new RemoteProtocolError(code, `seq ${message.seq} is not the next line of the chain (${standing})`);
    }
    this._lines.push(message);
  }
}

/**
 * The lines of a transcript file: "\n" or "\r\n" line ends, blank lines at the end ignored (client/flows/verify.py's).
 * @param {string} text
 * @returns {string[]}
 */
export function splitLines(text) {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  while (lines.length && lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * A transcript's lines, each decoded and its signature verified, in order; RemoteProtocolError for the first line
 * that is refused, its 1-based number in `line` of the error. Main-chain lines must link (`Chain`), each after the
 * line it names (gap otherwise); lines beside the chain, and lines a race set aside (`behind`), are kept as they
 * come, for the judge to weigh.
 * @param {string} text
 * @returns {Promise<{messages: import("./messages.js").Message[], chain: Chain}>}
 */
export async function readTranscript(text) {
  const chain = new Chain();
  /** @type {import("./messages.js").Message[]} */
  const messages = [];
  let number = 0;
  for (const line of splitLines(text)) {
    number += 1;
    try {
      const message = await decode(line);
      const standing = chain.standing(message);
      if (standing === "waits") throw new RemoteProtocolError("gap", "it depends on a line that is not before it");
      if (standing === "next") chain.append(message);
      messages.push(message);
    } catch (error) {
      if (error instanceof RemoteProtocolError) Object.assign(error, { line: number });
      throw error;
    }
  }
  return { messages, chain };
}
