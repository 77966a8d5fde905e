// The waiting room (protocol/waiting.py): lines kept until what they wait for arrives, within bounds no stranger can
// exhaust. A token is "offer", a parent's hash, or "seat <key>".

import { RemoteProtocolError } from "./protocol-errors.js";

/** Lines one key may have waiting for their predecessors. */
export const MAX_PER_KEY = 512;
/** Lines waiting from keys not (yet) known to hold a seat, all together. */
export const MAX_UNSEATED = 1024;

/** @typedef {import("./messages.js").Message} Message */

/** Lines waiting, by what they wait for; `seated(key)` says whose lines count against their own quota only. */
export class WaitingRoom {
  /** @param {(key: string) => boolean} seated whether the key (its text) holds a seat, or may */
  constructor(seated) {
    this._seated = seated;
    /** @type {Map<string, [Message, string]>} line → (message, its token), in arrival order */
    this._lines = new Map();
    /** @type {Map<string, Message[]>} */
    this._byToken = new Map();
    /** @type {Map<string, number>} key text → lines waiting */
    this._perKey = new Map();
    this._unseated = 0;
    this._dropped = false;
  }

  get size() {
    return this._lines.size;
  }

  /** @param {string} line */
  has(line) {
    return this._lines.has(line);
  }

  /** @returns {Set<string>} the texts of the keys that have lines waiting */
  keys() {
    return new Set(this._perKey.keys());
  }

  /**
   * Keep `message` until `token` is released; buffer-full if its signer has no room left.
   * @param {Message} message
   * @param {string} token
   */
  keep(message, token) {
    if (this._lines.has(message.line)) return;
    const key = message.signer;
    const count = this._perKey.get(key.text) ?? 0;
    const seated = this._seated(key.text);
    if (count >= MAX_PER_KEY || (!seated && this._unseated >= MAX_UNSEATED)) {
      if (!seated) this._dropped = true;
      throw new RemoteProtocolError("buffer-full", `too many lines wait already${seated ? "" : " from keys with no seat"}`);
    }
    this._lines.set(message.line, [message, token]);
    const waiting = this._byToken.get(token);
    if (waiting) waiting.push(message);
    else this._byToken.set(token, [message]);
    this._perKey.set(key.text, count + 1);
    if (!seated) this._unseated += 1;
  }

  /** @returns {string[]} every line waiting, in arrival order */
  lines() {
    return [...this._lines.keys()];
  }

  /**
   * The lines `key` has waiting (null: every key), in arrival order.
   * @param {import("./keys.js").PublicKey | null} key
   * @returns {Message[]}
   */
  linesOf(key) {
    if (key === null) return [...this._lines.values()].map(([message]) => message);
    if (!this._perKey.has(key.text)) return [];
    return [...this._lines.values()].map(([message]) => message).filter((message) => message.signer.text === key.text);
  }

  /**
   * The lines that waited for `token`, in arrival order, taken out to be judged again.
   * @param {string} token
   * @returns {Message[]}
   */
  release(token) {
    const messages = this._byToken.get(token) ?? [];
    this._byToken.delete(token);
    for (const message of messages) this._forget(message);
    return messages;
  }

  /**
   * Take out every line not signed by one of `seated` (key texts).
   * @param {ReadonlySet<string>} seated
   * @returns {Message[]}
   */
  dropOthers(seated) {
    /** @type {Message[]} */
    const dropped = [];
    for (const [message, token] of [...this._lines.values()]) {
      if (seated.has(message.signer.text)) continue;
      const waiting = /** @type {Message[]} */ (this._byToken.get(token));
      waiting.splice(waiting.indexOf(message), 1);
      if (!waiting.length) this._byToken.delete(token);
      this._forget(message);
      dropped.push(message);
    }
    return dropped;
  }

  /** A line that may be a future seat's was refused elsewhere for lack of room. */
  markDropped() {
    this._dropped = true;
  }

  /** A seat became known: recount; whether lines were dropped meanwhile (then the game is needed again). */
  seatKnown() {
    let unseated = 0;
    for (const [text, n] of this._perKey) if (!this._seated(text)) unseated += n;
    this._unseated = unseated;
    const dropped = this._dropped;
    this._dropped = false;
    return dropped;
  }

  /** @param {Message} message */
  _forget(message) {
    this._lines.delete(message.line);
    const key = message.signer;
    const count = /** @type {number} */ (this._perKey.get(key.text)) - 1;
    if (count) this._perKey.set(key.text, count);
    else this._perKey.delete(key.text);
    if (!this._seated(key.text)) this._unseated -= 1;
  }
}
