// Who may take the guest's seat (protocol/seating.py): the join candidates, every join seen (a few a key), the
// host's accepts (a few), and the guests they name (evident: their lines go into their history before their seat is
// drawn), and whom a host that signed more than one accept seated (`canonical`: by tiers, then the lowest hash).

import { RemoteProtocolError } from "./protocol-errors.js";
import { MAX_JOINS, MAX_JOINS_PER_KEY, MAX_NAMED, commitment, hostMovesFirst, inner } from "./protocol-rules.js";

/** @typedef {import("./messages.js").Message} Message */
/** @typedef {import("./keys.js").PublicKey} PublicKey */

/**
 * Whom the host's accepts seat: a join and the accept that names it, or `ambiguous`: two guests or more revealed
 * cleanly on accepts of the host's, and no record can tell which one it played.
 * @typedef {{join: Message | null, accept: Message | null, ambiguous: boolean}} Seated
 */

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
   * The reveals of `accept`'s guest that name it and open `join`'s commitment, lowest hash first.
   * @param {Message} accept
   * @param {Message} join
   * @returns {Message[]}
   */
  reveals(accept, join) {
    const kept = this._reveals.get(/** @type {PublicKey} */ (accept.peer).text);
    if (kept === undefined) return [];
    return [...kept.values()].filter((reveal) => reveal.prev === accept.hash
      && commitment(/** @type {string} */ (reveal.get("secret"))) === join.get("commit"))
      .sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }

  /**
   * Who moves first on the seating `accept` and its guest's `reveal` draw.
   * @param {Message} accept
   * @param {Message} reveal
   * @returns {PublicKey | null}
   */
  firstMover(accept, reveal) {
    return hostMovesFirst(/** @type {string} */ (reveal.get("secret")), /** @type {string} */ (accept.get("salt")), this.terms)
      ? this.host : accept.peer;
  }

  /**
   * The join an accept names, if known and it signed it (`placed`: the join the chain holds).
   * @param {Message} accept
   * @param {Message | null} placed
   * @returns {Message | null}
   */
  _joinOf(accept, placed) {
    return placed !== null && placed.hash === accept.prev ? placed : this._joins.get(accept.prev) ?? null;
  }

  /**
   * Whom the host seated, whichever of its lines came first: among its accepts whose join is known and valid, by
   * tier (revealed on, clean and moved on; revealed on and clean; revealed on; the rest), the lowest hash; null when
   * no accept names a known join.
   * @param {Message | null} placed
   * @param {(key: PublicKey) => boolean} clean
   * @param {(key: PublicKey, reveal: Message) => boolean} moved
   * @returns {Seated | null}
   */
  canonical(placed, clean, moved) {
    /** @type {[number, string, Message, Message][]} */
    const seatings = [];
    for (const accept of this._accepts.values()) {
      const join = this._joinOf(accept, placed);
      if (join === null || accept.peer === null || join.signer.text !== accept.peer.text || this.problem(join) !== null) {
        continue;
      }
      const reveals = this.reveals(accept, join);
      let tier = 3;
      if (reveals.length) {
        tier = 2;
        if (clean(join.signer)) {
          const first = this.firstMover(accept, reveals[0]);
          tier = first !== null && moved(first, reveals[0]) ? 0 : 1;
        }
      }
      seatings.push([tier, accept.hash, join, accept]);
    }
    if (!seatings.length) return null;
    seatings.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const [tier, , join, accept] = seatings[0];
    if (tier <= 1 && seatings.length > 1 && seatings[1][0] === tier && seatings[1][2].signer.text !== join.signer.text) {
      return { join: null, accept: null, ambiguous: true };
    }
    return { join, accept, ambiguous: false };
  }

  /**
   * What decides the seating beside the chain, for a record: each accept of the host's, its join, the reveals of it
   * and the first move that follows one.
   * @param {Message | null} placed
   * @param {(key: PublicKey, reveal: Message) => Message | null} moved
   * @returns {Message[]}
   */
  lines(placed, moved) {
    /** @type {Message[]} */
    const out = [];
    for (const accept of this._accepts.values()) {
      const join = this._joinOf(accept, placed);
      out.push(accept);
      if (join === null) continue;
      out.push(join);
      for (const reveal of this.reveals(accept, join)) {
        out.push(reveal);
        const first = this.firstMover(accept, reveal);
        const move = first !== null ? moved(first, reveal) : null;
        if (move !== null) out.push(move);
      }
    }
    return out;
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
