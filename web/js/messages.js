// The message grammar, as protocol/messages.py reads it: one message is one canonical, signed line of UTF-8 text.
//
//     olixono/1 move game=<id> seq=7 prev=<hash> move=Oc6c5 by=<key> sig=<signature>
//
// The version token, the message type, then name=value fields in the type's fixed order (SCHEMAS), then by= (the
// signer's Ed25519 public key) and sig= (the signature over the UTF-8 bytes before " sig="), single spaces between
// tokens. `decode` accepts exactly the lines Python's `decode` accepts, and refuses every other with the same code
// (RemoteProtocolError): one regular expression per type matches exactly the canonical lines, and `diagnose` names
// the fault of any other line in the order Python's `_diagnose` does.

import { KEY_BYTES, SIGNATURE_BYTES, WeakKeyError, b64, publicKey, sha256, unb64 } from "./keys.js";
import { COMBINING, FORBIDDEN } from "./messages-unicode.js";
import { RemoteProtocolError } from "./protocol-errors.js";

export const VERSION = "olixono/1";
export const MAX_LINE_BYTES = 2048;
export const MAX_CHAT_BYTES = 500;
/** At most this many combining marks in a row in chat text (and none first). */
export const MAX_COMBINING_RUN = 4;
export const MAX_TERMS = 8;
export const GAME_ID_BYTES = 16;
export const TOKEN_BYTES = 16;
export const HASH_BYTES = 32;
export const MAX_WITNESSES = 3;
export const MAX_WITNESSED = 32;
export const GAME_KINDS = Object.freeze(["oxono", "olix"]);

const B64 = "[A-Za-z0-9_-]";
// base64url without padding of 16, 32 and 64 bytes: the last character's unused low bits are zero.
const B64_16 = `${B64}{21}[AQgw]`;
const B64_32 = `${B64}{42}[AEIMQUYcgkosw048]`;
const B64_64 = `${B64}{85}[AQgw]`;
const TERM = `[a-z][a-z0-9-]{0,15}:(?:[A-Za-z0-9.+-]{1,32}|${B64_32}(?:\\.${B64_32}){0,${MAX_WITNESSES - 1}})`;

/** Each field's value, as a regular expression source (protocol/messages.py's `_PATTERNS`). */
export const PATTERNS = Object.freeze({
  kind: GAME_KINDS.join("|"),
  game: B64_16,
  next: B64_16,
  seq: "[1-9][0-9]{0,5}",
  prev: B64_32,
  commit: B64_32,
  nonce: B64_16,
  salt: B64_16,
  secret: B64_16,
  terms: `${TERM}(?:,${TERM}){0,${MAX_TERMS - 1}}`,
  at: "[1-9][0-9]{0,11}",
  state: "here|gone|hosting",
  invite: B64_32,
  guest: B64_32,
  move: "[A-Za-z0-9]{2,8}",
  think: "0|[1-9][0-9]{0,9}",
  left: "0|[1-9][0-9]{0,9}",
  recv: "0|[1-9][0-9]{0,12}",
  sent: "0|[1-9][0-9]{0,12}",
  ack: "0|[1-9][0-9]{0,12}",
  flagged: "0|[1-9][0-9]{0,12}",
  now: "0|[1-9][0-9]{0,12}",
  final: "0|[1-9][0-9]{0,5}",
  result: "[a-z]{1,16}(?:-[a-z]{1,16})?",
  text: "(?:[A-Za-z0-9._~-]|%[0-9A-F]{2}){1,1500}",
  time: "0|[1-9][0-9]{0,12}",
  lines: `${B64_32}(?:\\.${B64_32}){0,${MAX_WITNESSED - 1}}`,
  plies: "[0-2]",
  consent: B64_64,
});
/** @type {Readonly<Record<string, string>>} */
const PATTERN_OF = PATTERNS;
/** @type {Map<string, RegExp>} */
const VALUE = new Map(Object.entries(PATTERNS).map(([name, source]) => [name, new RegExp(`^(?:${source})$`)]));
/** @type {Map<string, number>} */
const BINARY = new Map([["game", GAME_ID_BYTES], ["next", GAME_ID_BYTES], ["prev", HASH_BYTES],
  ["commit", HASH_BYTES], ["nonce", TOKEN_BYTES], ["salt", TOKEN_BYTES], ["secret", TOKEN_BYTES],
  ["invite", KEY_BYTES], ["guest", KEY_BYTES], ["consent", SIGNATURE_BYTES]]);
/** Fields whose value is a public key: decoded once into `Message.peer`. */
export const KEY_FIELDS = Object.freeze(["invite", "guest"]);

const CHAIN = ["game", "seq", "prev"];
/** Types whose lines sit beside the chain, each signer's numbered on its own (`chat-<n>`, `receipt-<n>`, …). */
export const NUMBERED_APART = Object.freeze(new Set(["chat", "confirm", "receipt", "flag", "witness", "takeback"]));

/**
 * Each message type's fields in their fixed order; `?` marks an optional field.
 * @type {ReadonlyMap<string, readonly string[]>}
 */
export const SCHEMAS = new Map(/** @type {[string, string[]][]} */ ([
  ["offer", ["kind", "nonce", "terms", "at", "invite?"]],
  ["join", [...CHAIN, "terms", "commit"]],
  ["accept", [...CHAIN, "guest", "salt"]],
  ["reveal", [...CHAIN, "secret"]],
  ["claim", CHAIN],
  ["move", [...CHAIN, "move", "think?", "left?"]],
  ["propose", CHAIN],
  ["withdraw", CHAIN],
  ["decline", CHAIN],
  ["agree", CHAIN],
  ["resign", CHAIN],
  ["abort", CHAIN],
  ["chat", [...CHAIN, "text"]],
  ["presence", ["game", "seq", "state"]],
  ["confirm", [...CHAIN, "final", "result"]],
  ["receipt", [...CHAIN, "recv", "sent?", "ack?"]],
  ["flag", [...CHAIN, "sent", "now"]],
  ["timeout", [...CHAIN, "sent?", "flagged?", "now?"]],
  ["witness", [...CHAIN, "time", "lines"]],
  ["rematch", [...CHAIN, "next"]],
  ["takeback", [...CHAIN, "plies"]],
  ["undo", [...CHAIN, "plies", "think?", "left?", "consent"]],
  ["talk", ["game", "seq", "text"]],
]).map(([type, schema]) => [type, Object.freeze(schema)]));

/** @param {string} name */
const bare = (name) => (name.endsWith("?") ? name.slice(0, -1) : name);

/**
 * One regular expression that matches exactly the canonical lines of a type.
 * @param {string} type
 * @param {readonly string[]} schema
 * @returns {RegExp}
 */
function linePattern(type, schema) {
  const parts = [`olixono/1 ${type}`];
  for (const name of schema) {
    const field = ` ${bare(name)}=(?<${bare(name)}>${PATTERN_OF[bare(name)]})`;
    parts.push(name.endsWith("?") ? `(?:${field})?` : field);
  }
  parts.push(` by=(?<by>${B64_32}) sig=(?<sig>${B64_64})`);
  return new RegExp(`^${parts.join("")}$`);
}

const LINES = new Map([...SCHEMAS].map(([type, schema]) => [type, linePattern(type, schema)]));
const NAMES = new Map([...SCHEMAS].map(([type, schema]) => [type, schema.map(bare)]));
/** The fields the line's pattern cannot check alone (Python's `_CHECKED`: the text, the terms, a witness line's
 * hashes, each once). */
const CHECKED = new Map([...NAMES].map(([type, names]) => [type, names.filter((n) => ["text", "terms", "lines"].includes(n))]));
const PEER = new Map([...NAMES].map(([type, names]) => [type, names.find((n) => KEY_FIELDS.includes(n)) ?? null]));
const UNRESERVED = /^[A-Za-z0-9._~-]$/;
const SIG_TAIL = " sig=".length + 86;
const ENCODER = new TextEncoder();
const DECODER = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The UTF-8 bytes of a line; null for text that holds a lone surrogate (no UTF-8 spells it).
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function utf8(text) {
  return LONE_SURROGATE.test(text) ? null : ENCODER.encode(text);
}

/**
 * How a message is referred to: base64url of the SHA-256 of its line.
 * @param {string | Uint8Array} line
 * @returns {string}
 */
export function lineHash(line) {
  return b64(sha256(typeof line === "string" ? ENCODER.encode(line) : line));
}

/**
 * A game's id: the first 16 bytes of its offer line's SHA-256, in base64url.
 * @param {string} offerLine
 * @returns {string}
 */
export function gameIdOf(offerLine) {
  return b64(sha256(ENCODER.encode(offerLine)).subarray(0, GAME_ID_BYTES));
}

/**
 * Whether a code point lies in one of a table's inclusive ranges.
 * @param {number} code
 * @param {readonly (readonly number[])[]} table
 * @returns {boolean}
 */
function within(code, table) {
  let low = 0;
  let high = table.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < table[middle][0]) high = middle - 1;
    else if (code > table[middle][1]) low = middle + 1;
    else return true;
  }
  return false;
}

/**
 * Chat text as a field value: UTF-8, percent-encoded but for unreserved characters.
 * @param {string} text
 * @returns {string}
 */
export function encodeText(text) {
  let out = "";
  for (const ch of text) {
    if (UNRESERVED.test(ch)) out += ch;
    else for (const byte of ENCODER.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * Why `text` may not be chat text, or null (Python's `check_text`).
 * @param {string} text
 * @returns {string | null}
 */
export function checkText(text) {
  if (!text) return "empty";
  if (ENCODER.encode(text).length > MAX_CHAT_BYTES) return `longer than ${MAX_CHAT_BYTES} bytes`;
  const u = (/** @type {number} */ code) => `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  let run = 0;
  let index = 0;
  for (const ch of text) {
    const code = /** @type {number} */ (ch.codePointAt(0));
    if (code < 0x80) {
      if (code < 0x20 || code === 0x7f) return `holds the control character ${u(code)}`;
      run = 0;
    } else if (within(code, FORBIDDEN)) {
      return `holds ${u(code)}, a control, format or separator character`;
    } else if (within(code, COMBINING)) {
      run += 1;
      if (index === 0) return `starts with the combining mark ${u(code)}`;
      if (run > MAX_COMBINING_RUN) return `holds more than ${MAX_COMBINING_RUN} combining marks in a row`;
    } else {
      run = 0;
    }
    index += 1;
  }
  return null;
}

/**
 * The chat text a text= value spells (one that matches its pattern); RangeError if it is not canonical or not allowed.
 * @param {string} value
 * @returns {string}
 */
export function decodeText(value) {
  const data = [];
  for (let i = 0; i < value.length;) {
    if (value[i] === "%") {
      data.push(parseInt(value.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      data.push(value.charCodeAt(i));
      i += 1;
    }
  }
  let text;
  try {
    text = DECODER.decode(Uint8Array.from(data));
  } catch {
    throw new RangeError("chat text is not valid UTF-8");
  }
  const problem = checkText(text);
  if (problem) throw new RangeError(`chat text ${problem}`);
  if (encodeText(text) !== value) throw new RangeError("chat text is not in its canonical percent-encoding");
  return text;
}

/**
 * The [name, value] pairs of a terms= value; RangeError unless sorted by name, each once.
 * @param {string} value
 * @returns {[string, string][]}
 */
export function parseTerms(value) {
  /** @type {[string, string][]} */
  const pairs = value.split(",").map((item) => {
    const colon = item.indexOf(":");
    return colon < 0 ? [item, ""] : [item.slice(0, colon), item.slice(colon + 1)];
  });
  const names = pairs.map(([name]) => name);
  const sorted = [...new Set(names)].sort();
  if (names.length !== sorted.length || names.some((name, i) => name !== sorted[i])) {
    throw new RangeError("terms are listed once each, sorted by name");
  }
  return pairs;
}

/**
 * Why `value` is no valid `name` field, or null (Python's `_check_value`).
 * @param {string} name
 * @param {string} value
 * @returns {string | null}
 */
export function checkValue(name, value) {
  const pattern = VALUE.get(name);
  if (pattern === undefined || !pattern.test(value)) return `${name}=${JSON.stringify(value.slice(0, 60))} is malformed`;
  try {
    const length = BINARY.get(name);
    if (length !== undefined) unb64(value, length);
    else if (name === "text") decodeText(value);
    else if (name === "terms") parseTerms(value);
    else if (name === "lines" && new Set(value.split(".")).size !== value.split(".").length) {
      throw new RangeError("a line is named once");
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return `${name}: ${error.message}`;
  }
  return null;
}

/** One decoded, checked message (signature-checked unless parsed alone); every key in it decoded once. */
export class Message {
  /**
   * @param {{type: string, fields: [string, string][], signer: import("./keys.js").PublicKey, line: string, raw: Uint8Array,
   *   signature: Uint8Array, peer: import("./keys.js").PublicKey | null, hash: string, game: string, seq: number, prev: string,
   *   slot: string}} parts
   */
  constructor(parts) {
    /** The message type (`move`). */
    this.type = parts.type;
    /** The fields in their order, as [name, value] (by= and sig= apart). */
    this.fields = Object.freeze(parts.fields.map((pair) => Object.freeze(pair)));
    this.signer = parts.signer;
    this.line = parts.line;
    /** The line's UTF-8 bytes. */
    this.raw = parts.raw;
    this.signature = parts.signature;
    /** The other key the message names: the offer's invite=, the accept's guest=. */
    this.peer = parts.peer;
    /** How later messages refer to this one (`lineHash`). */
    this.hash = parts.hash;
    /** The game id: the game= field, or for the offer the id derived from it. */
    this.game = parts.game;
    /** The sequence number (0 for the offer, which has none). */
    this.seq = parts.seq;
    /** The hash this message links to ("" for the offer and presence). */
    this.prev = parts.prev;
    /** Where the signer's line sits: offer, its sequence number, chat-<n>, …, presence, rematch or talk/<n>. */
    this.slot = parts.slot;
    Object.freeze(this);
  }

  /**
   * A field's value, or null when the line has none.
   * @param {string} name
   * @returns {string | null}
   */
  get(name) {
    const pair = this.fields.find(([key]) => key === name);
    return pair === undefined ? null : pair[1];
  }

  /**
   * The bytes the signature covers: the line before " sig=".
   * @returns {Uint8Array}
   */
  signed() {
    return this.raw.subarray(0, this.raw.length - SIG_TAIL);
  }
}

/**
 * The takeback line whose signature an undo carries (consent=): `waiter`'s, naming the head the undo follows (its
 * seq - 1 and prev) and the same plies. A receiver rebuilds it to check the consent (PROTOCOL.md §3, "A takeback").
 * @param {Message} undo
 * @param {import("./keys.js").PublicKey} waiter
 * @returns {string}
 */
export function consentLine(undo, waiter) {
  const plies = undo.get("plies");
  const consent = undo.get("consent");
  if (undo.type !== "undo" || plies === null || consent === null) throw new TypeError(`a ${undo.type} carries no consent`);
  return `${VERSION} takeback game=${undo.game} seq=${undo.seq - 1} prev=${undo.prev} plies=${plies} by=${waiter.text} `
    + `sig=${consent}`;
}

/**
 * Whether `undo`'s consent= is `waiter`'s signature of the takeback line it names (`consentLine`).
 * @param {Message} undo
 * @param {import("./keys.js").PublicKey} waiter
 * @returns {Promise<boolean>}
 */
export async function consents(undo, waiter) {
  const line = consentLine(undo, waiter);
  const unsigned = ENCODER.encode(line.slice(0, line.length - SIG_TAIL));
  return waiter.verify(unb64(/** @type {string} */ (undo.get("consent")), SIGNATURE_BYTES), unsigned);
}

/**
 * The line's text and bytes, within the size limit and valid UTF-8.
 * @param {string | Uint8Array} data
 * @returns {{line: string, raw: Uint8Array}}
 */
function readLine(data) {
  if (typeof data === "string") {
    if (data.length > 2 * MAX_LINE_BYTES) { // more code points than the limit, whatever they are: count no further
      throw new RemoteProtocolError("oversize", `${data.length} UTF-16 code units; at most ${MAX_LINE_BYTES} bytes`);
    }
    let characters = 0;
    for (const _ of data) characters += 1; // code points, as Python counts them
    if (characters > MAX_LINE_BYTES) {
      throw new RemoteProtocolError("oversize", `${characters} characters; at most ${MAX_LINE_BYTES} bytes`);
    }
    const raw = utf8(data);
    if (raw === null) throw new RemoteProtocolError("bad-utf8", "the text holds a lone surrogate");
    if (raw.length > MAX_LINE_BYTES) throw new RemoteProtocolError("oversize", `${raw.length} bytes; at most ${MAX_LINE_BYTES}`);
    return { line: data, raw };
  }
  if (data.length > MAX_LINE_BYTES) throw new RemoteProtocolError("oversize", `${data.length} bytes; at most ${MAX_LINE_BYTES}`);
  try {
    return { line: DECODER.decode(data), raw: Uint8Array.from(data) }; // a copy: the caller's buffer may change
  } catch {
    throw new RemoteProtocolError("bad-utf8", "invalid UTF-8");
  }
}

/**
 * The key a (canonically spelled) field holds; weak-key if it is refused.
 * @param {string} text
 * @param {string} name
 * @returns {import("./keys.js").PublicKey}
 */
function keyOf(text, name) {
  try {
    return publicKey(text);
  } catch (error) {
    if (error instanceof WeakKeyError) throw new RemoteProtocolError("weak-key", `${name}=: ${error.message}`);
    throw error;
  }
}

/**
 * Parse and check one line but for its signature and hash: size, UTF-8, the grammar of the line's type, chat text
 * and terms, the keys (weak-key). Python's `decode(data, verify=False)` gives the same verdict.
 * @param {string | Uint8Array} data
 * @returns {{type: string, fields: [string, string][], signer: import("./keys.js").PublicKey, peer: import("./keys.js").PublicKey | null, line: string,
 *   raw: Uint8Array, signature: Uint8Array}}
 * @throws {RemoteProtocolError}
 */
export function parse(data) {
  const { line, raw } = readLine(data);
  const start = VERSION.length + 1;
  const type = line.slice(start, line.indexOf(" ", start)); // as Python slices, even where find gives -1
  const match = LINES.get(type)?.exec(line);
  if (!match) {
    diagnose(line);
    throw new RemoteProtocolError("non-canonical", "the line does not re-encode to the same bytes");
  }
  const groups = /** @type {Record<string, string | undefined>} */ (match.groups);
  const names = /** @type {string[]} */ (NAMES.get(type));
  /** @type {[string, string][]} */
  const fields = [];
  for (const name of names) {
    const value = groups[name];
    if (value !== undefined) fields.push([name, value]);
  }
  for (const name of /** @type {string[]} */ (CHECKED.get(type))) {
    const problem = checkValue(name, /** @type {string} */ (groups[name]));
    if (problem) throw new RemoteProtocolError("bad-field", problem);
  }
  const peerField = PEER.get(type);
  const peerText = peerField ? groups[peerField] : undefined;
  const peer = peerField && peerText !== undefined ? keyOf(peerText, peerField) : null;
  const signer = keyOf(/** @type {string} */ (groups.by), "by");
  const signature = unb64(/** @type {string} */ (groups.sig), SIGNATURE_BYTES);
  return { type, fields, signer, peer, line, raw, signature };
}

/**
 * Parse and check one line as Python's `decode` does, the signature included unless `verify` is false.
 * @param {string | Uint8Array} data
 * @param {{verify?: boolean}} [options]
 * @returns {Promise<Message>}
 * @throws {RemoteProtocolError}
 */
export async function decode(data, { verify = true } = {}) {
  const parsed = parse(data);
  const signed = parsed.raw.subarray(0, parsed.raw.length - SIG_TAIL);
  if (verify && !(await parsed.signer.verify(parsed.signature, signed))) {
    throw new RemoteProtocolError("bad-signature",
      `the signature does not verify for key ${parsed.signer.fingerprint}`);
  }
  const digest = sha256(parsed.raw);
  const { type, fields } = parsed;
  let game, seq, prev, slot;
  if (type === "offer") {
    [game, seq, prev, slot] = [b64(digest.subarray(0, GAME_ID_BYTES)), 0, "", "offer"];
  } else if (type === "presence") {
    [game, seq, prev, slot] = [fields[0][1], Number(fields[1][1]), "", "presence"];
  } else if (type === "talk") { // a watcher's: beside the game, numbered by its signer alone, one level deeper
    [game, seq, prev, slot] = [fields[0][1], Number(fields[1][1]), "", `talk/${fields[1][1]}`];
  } else if (type === "rematch") { // one a signer: its seq names the game's last line, not its slot
    [game, seq, prev, slot] = [fields[0][1], Number(fields[1][1]), fields[2][1], "rematch"];
  } else {
    [game, seq, prev] = [fields[0][1], Number(fields[1][1]), fields[2][1]];
    slot = NUMBERED_APART.has(type) ? `${type}-${seq}` : String(seq);
  }
  return new Message({ ...parsed, hash: b64(digest), game, seq, prev, slot });
}

/**
 * Find what is wrong with a line that is no canonical message, and throw it (Python's `_diagnose`, check for check).
 * @param {string} line
 * @returns {void} only when the line is well-formed but differs from its canonical form somewhere else
 * @throws {RemoteProtocolError}
 */
export function diagnose(line) {
  for (let index = 0; index < line.length; index++) {
    const code = line.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) {
      throw new RemoteProtocolError("control-character", `U+${code.toString(16).toUpperCase().padStart(4, "0")}`);
    }
  }
  const tokens = line.split(" ");
  if (tokens[0] !== VERSION) {
    if (tokens[0].startsWith("olixono/")) {
      throw new RemoteProtocolError("unknown-version", `${JSON.stringify(tokens[0].slice(0, 40))}; this client speaks ${VERSION}`);
    }
    throw new RemoteProtocolError("syntax", `a line starts with ${VERSION}`);
  }
  if (tokens.includes("")) throw new RemoteProtocolError("non-canonical", "tokens are separated by exactly one space");
  if (tokens.length < 4) throw new RemoteProtocolError("syntax", "a line holds at least the version, the type, by= and sig=");
  const type = tokens[1];
  const schema = SCHEMAS.get(type);
  if (schema === undefined) {
    const code = /^[a-z][a-z-]{0,20}$/.test(type) ? "unknown-type" : "syntax";
    throw new RemoteProtocolError(code, `message type ${JSON.stringify(type.slice(0, 40))}`);
  }
  /** @type {[string, string][]} */
  const pairs = [];
  for (const token of tokens.slice(2)) {
    const eq = token.indexOf("=");
    if (eq < 0) throw new RemoteProtocolError("syntax", `${JSON.stringify(token.slice(0, 40))} is not name=value`);
    pairs.push([token.slice(0, eq), token.slice(eq + 1)]);
  }
  const names = pairs.map(([name]) => name);
  if (names.at(-2) !== "by" || names.at(-1) !== "sig") {
    throw new RemoteProtocolError("syntax", "the last two fields are by= and sig=");
  }
  const fields = pairs.slice(0, -2);
  const allowed = schema.map(bare);
  for (const [name] of fields) {
    if (!allowed.includes(name)) throw new RemoteProtocolError("unknown-field", `${type} has no field ${JSON.stringify(name.slice(0, 40))}`);
  }
  const present = fields.map(([name]) => name);
  if (new Set(present).size !== present.length) throw new RemoteProtocolError("syntax", "a field appears twice");
  const missing = schema.filter((name) => !name.endsWith("?") && !present.includes(name));
  if (missing.length) throw new RemoteProtocolError("syntax", `${type} lacks the field ${missing[0]}`);
  const ordered = allowed.filter((name) => present.includes(name));
  if (ordered.some((name, i) => name !== present[i])) {
    throw new RemoteProtocolError("non-canonical", `${type} fields go in the order ${allowed.join(", ")}`);
  }
  for (const [name, value] of fields) {
    const problem = checkValue(name, value);
    if (problem) throw new RemoteProtocolError("bad-field", problem);
  }
  try {
    unb64(pairs[pairs.length - 2][1], KEY_BYTES);
    unb64(pairs[pairs.length - 1][1], SIGNATURE_BYTES);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new RemoteProtocolError("bad-field", `by= or sig=: ${error.message}`);
  }
}
