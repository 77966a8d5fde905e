// Who may take the guest's seat (protocol/seating.py): the join candidates, every join seen (a few a key), the
// host's accepts (a few), and the guests they name (evident: their lines go into their history before their seat is
// drawn). Whom a host that signed two accepts seated (Python's Seating.canonical) decides a forfeit: not ported yet.

import { RemoteProtocolError } from "./protocol-errors.js";
import { MAX_JOINS, MAX_JOINS_PER_KEY, MAX_NAMED, inner } from "./protocol-rules.js";

/** @typedef {import("./messages.js").Message} Message */
/** @typedef {import("./keys.js").PublicKey} PublicKey */

/** The joins and the host's accepts of one game. */
export class Seating {
  constructor() {
    /** @type {PublicKey | null} */
    this.host = null;
    /** @type {PublicKey | null} */
    this.invite = null;
    /** @type {string | null} */
    this.terms = null;
    /** @type {Map<string, Message>} each candidate key's join (key text → join) */
    this._candidates = new Map();
    /** @type {Map<string, Message>} every join kept, by hash */
    this._joins = new Map();
    /** @type {Map<string, Message>} the host's accepts (seq 2) by hash */
    this._accepts = new Map();
    /** @type {Set<string>} guests named by the host's accepts whose joins have not come */
    this._named = new Set();
    /** @type {Map<string, Map<string, Message>>} each evident guest's reveals by hash */
    this._reveals = new Map();
  }

  /**
   * @param {PublicKey} host
   * @param {PublicKey | null} invite
   * @param {string} terms
   */
  offer(host, invite, terms) {
    this.host = host;
    this.invite = invite;
    this.terms = terms;
  }

  /** @returns {ReadonlyMap<string, Message>} the join candidates (key text → join) */
  get candidates() {
    return this._candidates;
  }

  /**
   * Why `join` can never be seated, or null.
   * @param {Message} join
   * @returns {RemoteProtocolError | null}
   */
  problem(join) {
    if (this.host !== null && join.signer.text === this.host.text) {
      return new RemoteProtocolError("wrong-seat", "the host cannot join their own game");
    }
    if (this.invite !== null && join.signer.text !== this.invite.text) {
      return new RemoteProtocolError("wrong-signer", "the game is for the invited key only");
    }
    if (join.get("terms") !== this.terms) return new RemoteProtocolError("bad-field", "the join does not accept the offer's terms");
    return null;
  }

  /**
   * Keep a join by its hash, whatever else it meets (the host may have accepted it).
   * @param {Message} join
   */
  rememberJoin(join) {
    if (this.host !== null && join.signer.text === this.host.text) return;
    const named = [...this._accepts.values()].some((accept) => accept.prev === join.hash);
    let mine = 0;
    for (const kept of this._joins.values()) if (kept.signer.text === join.signer.text) mine += 1;
    if (named || (this._joins.size < MAX_JOINS * MAX_JOINS_PER_KEY && mine < MAX_JOINS_PER_KEY)) {
      this._joins.set(join.hash, join);
    }
  }

  /**
   * @param {PublicKey} key
   * @returns {Message[]} the joins of `key` kept
   */
  joinsOf(key) {
    return [...this._joins.values()].filter((join) => join.signer.text === key.text);
  }

  /**
   * @param {string} digest
   * @returns {Message | null} the join with this hash, if kept
   */
  join(digest) {
    return this._joins.get(digest) ?? null;
  }

  /**
   * @param {PublicKey} key
   * @returns {Message | null} `key`'s candidacy: its first join
   */
  candidate(key) {
    return this._candidates.get(key.text) ?? null;
  }

  /**
   * Make `join` its key's candidacy; false when MAX_JOINS candidates wait already and no accept names the key.
   * @param {Message} join
   */
  addCandidate(join) {
    if (this._candidates.size >= MAX_JOINS && !this._named.has(join.signer.text)) return false;
    this._candidates.set(join.signer.text, join);
    return true;
  }

  /** @returns {Message[]} */
  get accepts() {
    return [...this._accepts.values()];
  }

  /**
   * Whether `key` is a guest one of the host's accepts names.
   * @param {PublicKey} key
   */
  evident(key) {
    return this.evidentText(key.text);
  }

  /** @returns {PublicKey[]} the guests the host's accepts name */
  evidentKeys() {
    return [...this._accepts.values()].flatMap((accept) => (accept.peer === null ? [] : [accept.peer]));
  }

  /**
   * Keep one of the host's accepts (a few); the guest it names, when that guest was not evident before.
   * @param {Message} accept
   * @returns {PublicKey | null}
   */
  addAccept(accept) {
    if (this._accepts.has(accept.hash) || this._accepts.size >= MAX_NAMED) return null;
    const peer = accept.peer;
    const fresh = peer !== null && !this.evident(peer);
    this._accepts.set(accept.hash, accept);
    return fresh ? peer : null;
  }

  /**
   * An accept names `guest` whose join has not come; whether it was named now.
   * @param {PublicKey} guest
   */
  name(guest) {
    if (this._named.size >= MAX_NAMED) return false;
    this._named.add(guest.text);
    return true;
  }

  /** @param {PublicKey} key */
  named(key) {
    return this._named.has(key.text);
  }

  /** @param {string} text a key's text */
  namedText(text) {
    return this._named.has(text);
  }

  /**
   * Whether the key spelled `text` is a guest one of the host's accepts names.
   * @param {string} text
   */
  evidentText(text) {
    for (const accept of this._accepts.values()) if (accept.peer !== null && accept.peer.text === text) return true;
    return false;
  }

  /**
   * Keep a reveal of a guest one of the host's accepts names (a few a guest).
   * @param {Message} reveal
   */
  reveal(reveal) {
    if (!this.evident(reveal.signer)) return;
    const kept = inner(this._reveals, reveal.signer.text);
    if (!kept.has(reveal.hash) && kept.size < MAX_JOINS_PER_KEY) kept.set(reveal.hash, reveal);
  }

  /**
   * The guest is known: forget the other candidates.
   * @param {PublicKey} guest
   */
  seat(guest) {
    for (const key of [...this._candidates.keys()]) if (key !== guest.text) this._candidates.delete(key);
    this._named = new Set();
  }
}
