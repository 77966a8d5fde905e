// Whose fault it was: a line from the network broke the protocol (protocol/errors.py's RemoteProtocolError).

/** Every rejection code, with the human sentence a client may show (protocol/errors.py's CODES). */
export const CODES = Object.freeze({
  "oversize": "the line is longer than the protocol allows",
  "bad-utf8": "the line is not valid UTF-8",
  "control-character": "the line holds a control character",
  "syntax": "the line does not follow the message grammar",
  "unknown-version": "the line speaks a protocol version this client does not know",
  "unknown-type": "the message type is unknown",
  "unknown-field": "the message holds a field its type does not have",
  "bad-field": "a field's value is malformed",
  "non-canonical": "the line is not in its one canonical encoding",
  "weak-key": "a key in the line is one anyone could sign for (small-order or non-canonical)",
  "bad-signature": "the signature does not verify",
  "wrong-game": "the message belongs to another game",
  "unknown-term": "the game is offered under terms this client does not know",
  "wrong-signer": "the signer has no seat in this game",
  "wrong-seat": "the signer may not send this message now",
  "broken-link": "the hash of the previous message does not match",
  "gap": "a message before this one is missing",
  "bad-reveal": "the revealed secret does not match its commitment",
  "illegal-move": "the move is illegal in the game's position",
  "bad-clock": "the move's clock does not follow from the game's time control and its record",
  "early-claim": "the claim comes before the time it claims has passed, by the claimant's own times",
  "after-end": "the game is already over",
  "superseded": "another player's line takes precedence at this sequence number",
  "equivocation": "the signer signed two messages that cannot both be part of one game",
  "limit": "the signer has sent more messages of this kind than a receiver keeps",
  "buffer-full": "too many messages wait for their predecessors",
});

/** @typedef {keyof typeof CODES} Code */

/** A line from the network broke the protocol; `code` says how (see CODES), `detail` what exactly. */
export class RemoteProtocolError extends Error {
  /**
   * @param {Code} code
   * @param {string} detail
   */
  constructor(code, detail) {
    if (!Object.hasOwn(CODES, code)) throw new RangeError(`no protocol code ${JSON.stringify(code)}`);
    super(`${code}: ${detail}`);
    this.name = "RemoteProtocolError";
    /** @readonly */
    this.code = code;
    /** @readonly */
    this.detail = detail;
  }
}
