// The watchers' talk of one game, beside it (protocol/gallery.py; PROTOCOL.md §5, "A watcher's talk"), apart from
// the judge: any key may talk, signing `talk` lines numbered on its own; a gallery keeps them, bounded whatever
// strangers publish: MAX_TALK_LINES a key, MAX_TALKERS keys a game, the first line a key signed for a seq.

import { VERSION, decode, decodeText } from "./messages.js";
import { RemoteProtocolError } from "./protocol-errors.js";

export const MAX_TALK_LINES = 64;
export const MAX_TALKERS = 32;
/** How every talk line begins: what tells one apart before it is decoded. */
export const TALK_PREFIX = `${VERSION} talk `;

/** @param {string} line */
export function isTalk(line) {
  return line.startsWith(TALK_PREFIX);
}

export class Gallery {
  /** @param {string} gameId */
  constructor(gameId) {
    this.gameId = gameId;
    /** @type {Map<string, Map<number, string>>} each key's lines, by seq */
    this._byKey = new Map();
    /** @type {{ key: import("./keys.js").PublicKey, seq: number, text: string }[]} */
    this.talk = [];
  }

  /**
   * Check one talk line and keep it: what it says, or null for the same line again; RemoteProtocolError for a line
   * refused (nothing kept).
   * @param {string} line
   */
  async receive(line) {
    const message = await decode(line);
    if (message.type !== "talk") throw new RemoteProtocolError("unknown-type", `a ${message.type} line is no watcher's talk`);
    if (message.game !== this.gameId) throw new RemoteProtocolError("wrong-game", `for game ${message.game}, not ${this.gameId}`);
    if (message.seq > MAX_TALK_LINES) throw new RemoteProtocolError("limit", `at most ${MAX_TALK_LINES} talk lines a key`);
    let lines = this._byKey.get(message.signer.text);
    if (lines === undefined) {
      if (this._byKey.size >= MAX_TALKERS) throw new RemoteProtocolError("limit", `at most ${MAX_TALKERS} keys talk in a game`);
      lines = new Map();
      this._byKey.set(message.signer.text, lines);
    }
    const held = lines.get(message.seq);
    if (held !== undefined) {
      if (held === message.line) return null;
      throw new RemoteProtocolError("wrong-seat", `talk ${message.seq} of ${message.signer.fingerprint} is already taken`);
    }
    lines.set(message.seq, message.line);
    const said = { key: message.signer, seq: message.seq, text: decodeText(/** @type {string} */ (message.get("text"))) };
    this.talk.push(said);
    return said;
  }
}
