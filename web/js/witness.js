// A game's time witnesses (protocol/witness.py): when each says it saw each line, and which of them are proven to lie
// (two lines for one seq, times going back along its chain, a line seen before the line it follows). Only durations
// between two lines as one witness saw them are compared; of several witnesses, the median counts.

/** @typedef {import("./messages.js").Message} Message */

/** Second lines for one seq kept (one proves a witness lies). */
export const MAX_CONFLICTS = 8;

/** The times the game's witnesses gave its lines, and which witnesses are proven to lie (keys by their text). */
export class Witnesses {
  constructor() {
    /** @type {string[]} the witnesses the offer's terms name (none: the game has no witness) */
    this.keys = [];
    /** @type {Map<string, [number, string, number]>} each witness's last line applied: seq, hash, time */
    this._heads = new Map();
    /** @type {Map<string, Map<number, Message>>} each witness's lines applied, by seq */
    this._lines = new Map();
    /** @type {Map<string, Map<string, number>>} each witness's time of each line it named, the first */
    this._times = new Map();
    /** @type {Map<string, string>} why a witness is proven to lie */
    this._lies = new Map();
    /** @type {Map<string, Message>} second lines for one seq, kept for the record */
    this._conflicts = new Map();
  }

  /**
   * The offer is in: the witnesses its terms name.
   * @param {string[]} keys
   */
  name(keys) {
    this.keys = [...keys];
  }

  /** @param {string} key */
  named(key) {
    return this.keys.includes(key);
  }

  /**
   * The seq and hash that `key`'s next witness line follows (0 and the offer's hash before its first).
   * @param {string} key
   * @param {string} offer
   * @returns {[number, string]}
   */
  head(key, offer) {
    const [seq, digest] = this._heads.get(key) ?? [0, offer, 0];
    return [seq, digest];
  }

  /**
   * The witness line its signer signed for `message`'s seq, if one was applied.
   * @param {Message} message
   * @returns {Message | null}
   */
  held(message) {
    return this._lines.get(message.signer.text)?.get(message.seq) ?? null;
  }

  /**
   * Apply the next line of a witness's chain: the times of the lines it names; a time before its previous line's
   * proves the witness lies.
   * @param {Message} message
   */
  apply(message) {
    const key = message.signer.text;
    const before = this._heads.get(key)?.[2] ?? 0;
    const time = Number(message.get("time"));
    this._heads.set(key, [message.seq, message.hash, Math.max(time, before)]);
    if (!this._lines.has(key)) this._lines.set(key, new Map());
    /** @type {Map<number, Message>} */ (this._lines.get(key)).set(message.seq, message);
    if (!this._times.has(key)) this._times.set(key, new Map());
    const times = /** @type {Map<string, number>} */ (this._times.get(key));
    for (const digest of /** @type {string} */ (message.get("lines")).split(".")) {
      if (!times.has(digest)) times.set(digest, time);
    }
    if (time < before) this.lie(key, `its time went back from ${before} to ${time} ms at witness line ${message.seq}`);
  }

  /**
   * A second, other line of a witness for a seq it signed already: it lies (the line is kept for the record).
   * @param {Message} message
   */
  conflict(message) {
    this.lie(message.signer.text, `it signed two lines for witness line ${message.seq}`);
    if (this._conflicts.size < MAX_CONFLICTS) this._conflicts.set(message.line, message);
  }

  /**
   * `key` is proven to lie: its times count for nothing (the first reason is kept).
   * @param {string} key
   * @param {string} why
   */
  lie(key, why) {
    if (!this._lies.has(key)) this._lies.set(key, why);
  }

  /** @returns {Map<string, string>} the witnesses proven to lie, and why */
  get lies() {
    return new Map(this._lies);
  }

  /**
   * Hold each witness to the order of the game's lines: for each pair (earlier, later) of hashes, a witness that
   * gave the later a time before the earlier's is proven to lie.
   * @param {[string, string][]} follows
   */
  check(follows) {
    for (const [key, times] of this._times) {
      if (this._lies.has(key)) continue;
      for (const [earlier, later] of follows) {
        const first = times.get(earlier);
        const then = times.get(later);
        if (first !== undefined && then !== undefined && then < first) {
          this.lie(key, `it saw line ${later.slice(0, 8)} before the line ${earlier.slice(0, 8)} it follows`);
          break;
        }
      }
    }
  }

  /**
   * How long (ms) after the line `earlier` the witnesses saw the line `later`: of the witnesses not proven to lie
   * that saw both, the median of their durations (the lower of the two middle ones); null when none saw both.
   * @param {string} earlier
   * @param {string} later
   * @returns {number | null}
   */
  duration(earlier, later) {
    const spans = [];
    for (const [key, times] of this._times) {
      const first = times.get(earlier);
      const then = times.get(later);
      if (!this._lies.has(key) && first !== undefined && then !== undefined) spans.push(then - first);
    }
    if (!spans.length) return null;
    spans.sort((a, b) => a - b);
    return spans[Math.floor((spans.length - 1) / 2)];
  }

  /** @returns {Message[]} the second lines for one seq that prove witnesses lie */
  conflicts() {
    return [...this._conflicts.values()].sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
  }
}
