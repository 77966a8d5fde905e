// Each key's history (protocol/evidence.py): a line of each slot it signed (the lowest hash), its final lines and its
// highest line, so that two lines that cannot both stand are found whatever the order of arrival. What a proof does
// (the forfeit rule, the proofs a record keeps) is not ported yet: the receiver stops at the first one.

import { NUMBERED_APART } from "./messages.js";
import { FINAL } from "./protocol-rules.js";

/** @typedef {import("./messages.js").Message} Message */
/** @typedef {import("./keys.js").PublicKey} PublicKey */

/** The histories of the keys a receiver holds to account. */
export class Evidence {
  constructor() {
    /** @type {Map<string, Map<string, Message>>} key text → slot → the line with the lowest hash */
    this._seen = new Map();
    /** @type {Map<string, Message>} each key's highest main-chain line */
    this._last = new Map();
    /** @type {Map<string, Message[]>} each key's final lines */
    this._finals = new Map();
  }

  /**
   * Whether `message` is a line after which its signer never signs another main-chain line (a game with time
   * witnesses, where a claimant's timeout is not final, is not ported).
   * @param {Message} message
   */
  final(message) {
    return FINAL.has(message.type);
  }

  /**
   * A line `key` was seen to sign for `slot` (of several, the lowest hash).
   * @param {PublicKey} key
   * @param {string} slot
   * @returns {Message | null}
   */
  seen(key, slot) {
    return this._seen.get(key.text)?.get(slot) ?? null;
  }

  /**
   * Keep a line in its signer's history.
   * @param {Message} message
   */
  note(message) {
    const key = message.signer.text;
    let mine = this._seen.get(key);
    if (mine === undefined) {
      mine = new Map();
      this._seen.set(key, mine);
    }
    const held = mine.get(message.slot);
    if (held === undefined || message.hash < held.hash) mine.set(message.slot, message);
    if (NUMBERED_APART.has(message.type)) return;
    const last = this._last.get(key);
    if (last === undefined || message.seq > last.seq || (message.seq === last.seq && message.hash < last.hash)) {
      this._last.set(key, message);
    }
    if (this.final(message)) {
      const finals = this._finals.get(key) ?? [];
      if (!finals.includes(message)) finals.push(message);
      this._finals.set(key, finals);
    }
  }

  /**
   * The lines `message`'s signer signed before that cannot stand with it: another line for its slot, a final line
   * before it, or (`message` being final) every line after it. (A timeout's contradiction by its signer's own receipt
   * or confirmation is not ported: timeouts are not.)
   * @param {Message} message
   * @returns {Message[]}
   */
  conflicts(message) {
    const key = message.signer.text;
    const mine = this._seen.get(key) ?? new Map();
    const earlier = mine.get(message.slot);
    const out = earlier !== undefined && earlier.line !== message.line ? [earlier] : [];
    for (const final of this._finals.get(key) ?? []) if (final.seq < message.seq) out.push(final);
    if (this.final(message)) {
      const last = this._last.get(key);
      if (last !== undefined && last.seq > message.seq) {
        for (const line of mine.values()) if (!NUMBERED_APART.has(line.type) && line.seq > message.seq) out.push(line);
      }
    }
    return out;
  }
}
