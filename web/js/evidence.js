// Each key's history (protocol/evidence.py): a line of each slot it signed (the lowest hash), its final lines and its
// highest line, and its word that the other's line for a place came (a receipt, a confirmation by the rules), so that
// two lines that cannot both stand are found whatever the order of arrival. What a proof does
// (the forfeit rule, the proofs a record keeps) is not ported yet: the receiver stops at the first one.

import { NUMBERED_APART } from "./messages.js";
import { FINAL, acknowledged, contradicts, inner, waited } from "./protocol-rules.js";

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
    /** @type {Map<string, Map<number, Map<string, Message>>>} each key's word that the other's line at a seq came, by type */
    this._acknowledged = new Map();
  }

  /**
   * Whether `key` was seen to sign a line for `slot`.
   * @param {PublicKey} key
   * @param {string} slot
   */
  signed(key, slot) {
    return this._seen.get(key.text)?.has(slot) ?? false;
  }

  /**
   * `key`'s word, by type, that the other player's line at `seq` came.
   * @param {PublicKey} key
   * @param {number} seq
   * @returns {ReadonlyMap<string, Message>}
   */
  said(key, seq) {
    return this._acknowledged.get(key.text)?.get(seq) ?? new Map();
  }

  /**
   * Keep a key's word that the other's line for a seq came (a receipt, a confirmation by the rules), one of each type
   * a seq, whatever the order: the receipt that waited least, the confirmation with the lowest hash. The key's own
   * timeout for that place that the word contradicts, if any (a proof).
   * @param {Message} message
   * @returns {Message | null}
   */
  acknowledge(message) {
    const seq = acknowledged(message);
    if (seq === null) return null;
    const key = message.signer.text;
    const mine = inner(this._acknowledged, key);
    const kept = inner(mine, seq);
    const held = kept.get(message.type);
    if (held === undefined || lighter(message, held)) kept.set(message.type, message);
    const own = this._seen.get(key)?.get(String(seq));
    return own !== undefined && contradicts(message, own) ? own : null;
  }

  /**
   * A line beside the chain that names a chain line (a receipt, a flag claim), at first sight: kept; the earlier,
   * other line its signer signed for that slot, if any (a proof).
   * @param {Message} message
   * @returns {Message | null}
   */
  word(message) {
    const key = message.signer.text;
    const mine = inner(this._seen, key);
    const earlier = mine.get(message.slot);
    if (earlier === undefined) {
      mine.set(message.slot, message);
      return null;
    }
    return earlier.line === message.line ? null : earlier;
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
    const mine = inner(this._seen, key);
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
   * before it, or (`message` being final) every line after it, or (a timeout) its word that the other's line for that
   * place came.
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
      const said = this._acknowledged.get(key)?.get(message.seq);
      if (said) for (const line of said.values()) if (contradicts(line, message)) out.push(line);
    }
    return out;
  }
}

/**
 * Which of one key's receipts, or confirmations, for one seq counts: the one that waited least (one without sent=
 * last), then the lower hash.
 * @param {Message} said
 * @param {Message} held
 */
function lighter(said, held) {
  const weight = (/** @type {Message} */ line) => {
    const wait = line.type === "receipt" ? waited(line) : 0;
    return wait === null ? [1, 0, line.hash] : [0, wait, line.hash];
  };
  const [a, b] = [weight(said), weight(held)];
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] < b[i];
  return false;
}
