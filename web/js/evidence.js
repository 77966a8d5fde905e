// Each key's history (protocol/evidence.py): a line of each slot it signed (the lowest hash), its final lines and its
// highest line, and its word that the other's line for a place came (a receipt, a confirmation by the rules), so that
// two lines that cannot both stand are found whatever the order of arrival; the proofs (one a point, the same pair
// of lines whatever the order), and where the lowest proof of a seated key stops the record (forfeitPoint).

import { NUMBERED_APART, lineHash } from "./messages.js";
import { RemoteProtocolError } from "./protocol-errors.js";
import { FINAL, MAX_CHAIN, MAX_PROOFS_PER_KEY, MAX_PROVEN_LINES, acknowledged, contradicts, inner, waited }
  from "./protocol-rules.js";
import { event } from "./events.js";

/**
 * A portable proof: `key` signed both lines, which cannot both be part of one game (an EquivocationDetected event).
 * `point`: the sequence number at which a seated key's proof makes it lose the game (null for chat, confirmations,
 * receipts and flag claims); `playedOn`: a final line and a later main-chain line.
 * @typedef {{kind: "EquivocationDetected", key: PublicKey, slot: string, first: string, second: string,
 *   point: number | null, playedOn: boolean}} Proof
 */

/**
 * Where the lowest proofs of seated keys stop the record (`cut`), whose they are, and the lowest slot among them.
 * @typedef {{cut: number, keys: PublicKey[], slot: number}} ForfeitPoint
 */

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
    /** @type {Map<string, [PublicKey, Proof[]]>} each key's proofs, in the order their keys were first proven */
    this._proofs = new Map();
    /** @type {Map<string, number>} lines known only as more evidence of a proof already held, a key */
    this._provenLines = new Map();
    /** @type {Set<string>} "key slot" of receipts and flag claims signed twice */
    this._doubled = new Set();
    /** Whether the game has time witnesses: a claimant's timeout is then no final line, only a concession is. */
    this.witnessed = false;
  }

  /**
   * `key`'s highest main-chain line seen.
   * @param {PublicKey} key
   * @returns {Message | null}
   */
  last(key) {
    return this._last.get(key.text) ?? null;
  }

  /**
   * Whether `message`'s signer signed two receipts, or two flag claims, for its slot (neither is its word).
   * @param {Message} message
   */
  doubled(message) {
    return this._doubled.has(`${message.signer.text} ${message.slot}`);
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
    if (earlier.line === message.line) return null;
    this._doubled.add(`${key} ${message.slot}`);
    if (message.hash < earlier.hash) mine.set(message.slot, message);
    return earlier;
  }

  // -- proofs ------------------------------------------------------------------------------------------------------
  /** @returns {Proof[]} every proof kept */
  get proofs() {
    return [...this._proofs.values()].flatMap(([, proofs]) => proofs);
  }

  /**
   * @param {PublicKey} key
   * @returns {Proof[]}
   */
  proofsOf(key) {
    return [...this._proofs.get(key.text)?.[1] ?? []];
  }

  /** @returns {PublicKey[]} the keys with a proof kept */
  proven() {
    return [...this._proofs.values()].map(([key]) => key);
  }

  /**
   * Forget the proofs of every key but those `keep` names.
   * @param {(key: PublicKey) => boolean} keep
   */
  keepProofsOf(keep) {
    for (const [text, [key]] of [...this._proofs]) if (!keep(key)) this._proofs.delete(text);
  }

  /**
   * Two lines of one key that cannot both stand: a new proof, unless one of its point is held already (then the line
   * is known as more evidence, a few a key); equivocation when the key's proofs are full and this one decides no
   * sooner. `known`: whether the receiver knows a line already.
   * @param {Message} a
   * @param {Message} b
   * @param {(line: string) => boolean} known
   * @returns {{proof: Proof | null, known: Message[]}}
   */
  prove(a, b, known) {
    const [first, second] = pair(a, b);
    const signer = first.signer;
    let entry = this._proofs.get(signer.text);
    if (entry === undefined) {
      entry = [signer, []];
      this._proofs.set(signer.text, entry);
    }
    const proofs = entry[1];
    const [point, playedOn] = pointOf(first, second);
    const at = where(point, second.slot);
    /** @type {Proof} */
    const proof = /** @type {Proof} */ (event("EquivocationDetected", { key: signer, slot: second.slot, first: first.line,
      second: second.line, point, playedOn }));
    for (const [index, kept] of proofs.entries()) {
      if (where(kept.point, kept.slot) !== at) continue;
      if (compare(order(proof), order(kept)) < 0) {
        proofs[index] = proof;
        return { proof, known: [first, second].filter((line) => !known(line.line)) };
      }
      const seen = this._provenLines.get(signer.text) ?? 0;
      if (seen < MAX_PROVEN_LINES && !known(second.line)) {
        this._provenLines.set(signer.text, seen + 1);
        return { proof: null, known: [second] };
      }
      return { proof: null, known: [] };
    }
    if (proofs.length >= MAX_PROOFS_PER_KEY) {
      let worst = proofs[0];
      for (const kept of proofs) if (rankOfPoint(kept.point) > rankOfPoint(worst.point)) worst = kept;
      if (rankOfPoint(point) >= rankOfPoint(worst.point)) {
        throw new RemoteProtocolError("equivocation", `${signer.fingerprint} equivocated again`);
      }
      proofs.splice(proofs.indexOf(worst), 1);
    }
    proofs.push(proof);
    return { proof, known: [first, second] };
  }

  /**
   * The lowest cut of a seated key's proof, who has one there, and the lowest slot among them; `cutOf` says where a
   * key's proof at a point stops the record, null for a key that holds no seat.
   * @param {(key: PublicKey, point: number) => number | null} cutOf
   * @returns {ForfeitPoint | null}
   */
  forfeitPoint(cutOf) {
    /** @type {ForfeitPoint | null} */
    let best = null;
    for (const [key, proofs] of this._proofs.values()) {
      for (const proof of proofs) {
        if (proof.point === null) continue;
        const cut = cutOf(key, proof.point);
        if (cut === null) break;
        if (best === null || cut < best.cut) best = { cut, keys: [key], slot: proof.point };
        else if (cut === best.cut) {
          const keys = best.keys.some((held) => held.text === key.text) ? best.keys : [...best.keys, key];
          best = { cut, keys, slot: Math.min(best.slot, proof.point) };
        }
      }
    }
    return best;
  }

  /**
   * Whether `message` is a line after which its signer never signs another main-chain line (with time witnesses, a
   * claimant's timeout is not: the witnesses may void it, and its signer play on).
   * @param {Message} message
   */
  final(message) {
    return FINAL.has(message.type) && !(this.witnessed && message.type === "timeout" && message.get("now") !== null);
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

/**
 * Compare two tuples of numbers and strings, as Python compares tuples.
 * @param {readonly (number | string)[]} a
 * @param {readonly (number | string)[]} b
 */
function compare(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] < b[i]) return -1;
    if (a[i] > b[i]) return 1;
  }
  return a.length - b.length;
}

/**
 * Two conflicting lines in the order a proof shows them, whichever came first: a receipt's or a confirmation's word
 * before the timeout it contradicts; else the lower sequence number, then the lower hash, first.
 * @param {Message} a
 * @param {Message} b
 * @returns {[Message, Message]}
 */
function pair(a, b) {
  const apartA = NUMBERED_APART.has(a.type);
  if (apartA !== NUMBERED_APART.has(b.type)) return apartA ? [a, b] : [b, a];
  return compare([apartA ? 0 : a.seq, a.hash], [apartA ? 0 : b.seq, b.hash]) <= 0 ? [a, b] : [b, a];
}

/**
 * Which of the pairs that prove one point a key keeps: two lines for one slot before a final line and a later one,
 * then the lower hashes.
 * @param {Proof} proof
 * @returns {[number, string, string]}
 */
function order(proof) {
  const [low, high] = [lineHash(proof.first), lineHash(proof.second)].sort();
  return [proof.playedOn ? 1 : 0, low, high];
}

/**
 * Proofs with a lower point decide the game first; those with none come last.
 * @param {number | null} point
 */
function rankOfPoint(point) {
  return point === null ? MAX_CHAIN + 1 : point;
}

/**
 * What a proof proves: the point at which its signer loses, or for chat and confirmations the slot.
 * @param {number | null} point
 * @param {string} slot
 */
function where(point, slot) {
  return point === null ? slot : String(point);
}

/**
 * Where two lines of one key conflict, and whether they are a final line and a later one; null for two chat lines,
 * confirmations, receipts or flag claims.
 * @param {Message} a
 * @param {Message} b
 * @returns {[number | null, boolean]}
 */
function pointOf(a, b) {
  if (NUMBERED_APART.has(a.type) || NUMBERED_APART.has(b.type)) {
    const chained = [a, b].filter((line) => !NUMBERED_APART.has(line.type));
    return [chained.length ? chained[0].seq : null, false];
  }
  if (a.slot === b.slot) return [a.seq, false];
  const final = FINAL.has(a.type) && a.seq < b.seq ? a : b;
  return [final.seq, true];
}
