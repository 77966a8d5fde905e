// Ed25519 identities, as protocol/keys.py checks them: a player's identity is their public key.
//
// Keys are raw 32-byte Ed25519 keys; on the wire base64url without padding (43 characters). Verification is
// stricter than RFC 8032's so that every implementation reaches the same verdict (PROTOCOL.md §2): a public key or a
// signature's R that is a non-canonical encoding (y >= p) or one of the 14 encodings of the 8 small-order points is
// refused, and so is an S that is not below the group order L. The curve arithmetic itself is WebCrypto's
// (`{name: "Ed25519"}`, cofactorless like OpenSSL's); the plain BigInt arithmetic here (slow: a third of a millisecond
// a point) tells a key off the curve where a WebCrypto will not import it, and lets the tests derive the refused list
// from the curve.

import { sha256 } from "./protocol-sha256.js";

export { sha256 };
export const KEY_BYTES = 32;
export const SIGNATURE_BYTES = 64;
export const FIELD_P = 2n ** 255n - 19n;
export const GROUP_L = 2n ** 252n + 27742317777372353535851937790883648493n;

/** Every 32-byte encoding of a point of order 1, 2, 4 or 8, canonical or not (libsodium's list, complete). */
export const SMALL_ORDER_ENCODINGS = Object.freeze([
  "0000000000000000000000000000000000000000000000000000000000000000", // y = 0 (order 4)
  "0000000000000000000000000000000000000000000000000000000000000080",
  "0100000000000000000000000000000000000000000000000000000000000000", // the identity
  "0100000000000000000000000000000000000000000000000000000000000080",
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05", // order 8
  "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", // order 8
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p - 1 (order 2)
  "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p (non-canonical 0)
  "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", // y = p + 1 (non-canonical 1)
  "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
]);
const SMALL_ORDER = new Set(SMALL_ORDER_ENCODINGS);
const Y_MASK = (1n << 255n) - 1n;
const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const DIGIT = new Map([...ALPHABET].map((ch, index) => [ch, index]));

/** A key that anyone could sign for, or that implementations disagree on. */
export class WeakKeyError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = "WeakKeyError";
  }
}

/**
 * base64url without padding.
 * @param {Uint8Array} data
 * @returns {string}
 */
export function b64(data) {
  let out = "";
  for (let i = 0; i < data.length; i += 3) {
    const chunk = (data[i] << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0);
    const chars = Math.min(4, Math.ceil(((data.length - i) * 8) / 6));
    for (let c = 0; c < chars; c++) out += ALPHABET[(chunk >> (18 - 6 * c)) & 63];
  }
  return out;
}

/**
 * Decode base64url without padding to exactly `length` bytes, accepting only the canonical spelling.
 * @param {string} text
 * @param {number} length
 * @returns {Uint8Array}
 * @throws {RangeError} for any other text (Python's `unb64` raises `ValueError`)
 */
export function unb64(text, length) {
  if (text.length !== Math.floor((length * 8 + 5) / 6)) {
    throw new RangeError(`expected ${length} bytes in base64url, got ${text.length} characters`);
  }
  const out = new Uint8Array(length);
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const ch of text) {
    const digit = DIGIT.get(ch);
    if (digit === undefined) throw new RangeError("not the canonical base64url spelling");
    value = ((value << 6) | digit) & 0xffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[at++] = (value >> bits) & 0xff;
    }
  }
  if ((value & ((1 << bits) - 1)) !== 0) throw new RangeError("not the canonical base64url spelling");
  return out;
}

/**
 * Lower-case hex of bytes.
 * @param {Uint8Array} data
 * @returns {string}
 */
export function hex(data) {
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The bytes of lower-case or upper-case hex text.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function unhex(text) {
  if (text.length % 2 || !/^[0-9a-fA-F]*$/.test(text)) throw new RangeError("not hex");
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/**
 * A little-endian integer.
 * @param {Uint8Array} data
 * @returns {bigint}
 */
export function littleEndian(data) {
  let value = 0n;
  for (let i = data.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(data[i]);
  return value;
}

// --- the curve, in BigInt: slow and plain, for decoding and order checks, never for signatures -------------------

/** @typedef {{x: bigint, y: bigint}} Point  affine coordinates on edwards25519 */

/** @param {bigint} value */
const mod = (value) => ((value % FIELD_P) + FIELD_P) % FIELD_P;
const D = mod(-121665n * power(121666n, FIELD_P - 2n));
const SQRT_M1 = power(2n, (FIELD_P - 1n) / 4n);
/** @type {Point} */
export const IDENTITY = Object.freeze({ x: 0n, y: 1n });

/**
 * @param {bigint} base
 * @param {bigint} exponent
 * @returns {bigint}
 */
function power(base, exponent) {
  let result = 1n;
  base = ((base % FIELD_P) + FIELD_P) % FIELD_P;
  while (exponent > 0n) {
    if (exponent & 1n) result = (result * base) % FIELD_P;
    base = (base * base) % FIELD_P;
    exponent >>= 1n;
  }
  return result;
}

/**
 * The point with this `y` and sign of `x`, or null if there is none on the curve (y taken as given, below p).
 * @param {bigint} y
 * @param {number} sign
 * @returns {Point | null}
 */
function pointOf(y, sign) {
  const x2 = mod((y * y - 1n) * power(D * y * y + 1n, FIELD_P - 2n));
  let x = power(x2, (FIELD_P + 3n) / 8n);
  if (mod(x * x - x2) !== 0n) x = (x * SQRT_M1) % FIELD_P;
  if (mod(x * x - x2) !== 0n) return null;
  if (x === 0n) return { x, y };
  return { x: Number(x & 1n) === sign ? x : FIELD_P - x, y };
}

/**
 * A point from its 32-byte encoding, strictly: null if `y` is not below p, if no point has that `y`, or if `x` is
 * 0 with its sign bit set.
 * @param {Uint8Array} encoding
 * @returns {Point | null}
 */
export function decodePoint(encoding) {
  if (encoding.length !== KEY_BYTES) return null;
  const value = littleEndian(encoding);
  const y = value & Y_MASK;
  const sign = Number(value >> 255n);
  if (y >= FIELD_P) return null;
  const point = pointOf(y, sign);
  return point === null || (point.x === 0n && sign === 1) ? null : point;
}

/**
 * A point from its 32-byte encoding as a lenient (ref10-style) implementation reads it: `y` taken mod p, any sign.
 * @param {Uint8Array} encoding
 * @returns {Point | null}
 */
export function decodePointLeniently(encoding) {
  const value = littleEndian(encoding);
  return pointOf((value & Y_MASK) % FIELD_P, Number(value >> 255n));
}

/**
 * The canonical encoding of a point.
 * @param {Point} point
 * @returns {Uint8Array}
 */
export function encodePoint(point) {
  let value = point.y | ((point.x & 1n) << 255n);
  const out = new Uint8Array(KEY_BYTES);
  for (let i = 0; i < KEY_BYTES; i++, value >>= 8n) out[i] = Number(value & 0xffn);
  return out;
}

/**
 * @param {Point} a
 * @param {Point} b
 * @returns {Point}
 */
export function addPoints(a, b) {
  const t = (D * a.x * b.x * a.y * b.y) % FIELD_P;
  const x = mod((a.x * b.y + b.x * a.y) * power(1n + t, FIELD_P - 2n));
  const y = mod((a.y * b.y + a.x * b.x) * power(1n - t, FIELD_P - 2n));
  return { x, y };
}

/**
 * [n]P by double-and-add.
 * @param {bigint} n
 * @param {Point} point
 * @returns {Point}
 */
export function multiply(n, point) {
  let result = IDENTITY;
  let addend = point;
  for (; n > 0n; n >>= 1n) {
    if (n & 1n) result = addPoints(result, addend);
    addend = addPoints(addend, addend);
  }
  return result;
}

/**
 * Whether a point's order divides 8 (the identity, or a point of order 2, 4 or 8).
 * @param {Point} point
 * @returns {boolean}
 */
export function isSmallOrder(point) {
  const eight = multiply(8n, point);
  return eight.x === 0n && eight.y === 1n;
}

// --- the protocol's rules ---------------------------------------------------------------------------------------

/**
 * Why a 32-byte point encoding (a key, or a signature's R) is refused, or null (Python's `point_problem`).
 * @param {Uint8Array} encoding
 * @returns {string | null}
 */
export function pointProblem(encoding) {
  if (SMALL_ORDER_FIRST_BYTES.has(encoding[0]) && SMALL_ORDER.has(hex(encoding))) return "a small-order point";
  if (yBeyondP(encoding)) return "a non-canonical point encoding (y is not below p)";
  return null;
}

const SMALL_ORDER_FIRST_BYTES = new Set(SMALL_ORDER_ENCODINGS.map((text) => parseInt(text.slice(0, 2), 16)));
const L_BYTES = Uint8Array.from({ length: 32 }, (_, i) => Number((GROUP_L >> BigInt(8 * i)) & 0xffn));

/**
 * Whether an encoding's y (its low 255 bits) is p = 2^255 - 19 or more: all ones above the lowest byte, that >= 0xed.
 * @param {Uint8Array} encoding
 * @returns {boolean}
 */
function yBeyondP(encoding) {
  if ((encoding[31] & 0x7f) !== 0x7f || encoding[0] < 0xed) return false;
  for (let i = 1; i < 31; i++) if (encoding[i] !== 0xff) return false;
  return true;
}

/**
 * Whether a 32-byte little-endian scalar is below the group order L.
 * @param {Uint8Array} scalar
 * @returns {boolean}
 */
function belowL(scalar) {
  for (let i = 31; i >= 0; i--) {
    if (scalar[i] !== L_BYTES[i]) return scalar[i] < L_BYTES[i];
  }
  return false;
}

/**
 * Why a 64-byte signature is refused before the curve arithmetic, or null: R and S canonical.
 * @param {Uint8Array} signature
 * @returns {string | null}
 */
export function signatureProblem(signature) {
  const problem = pointProblem(signature.subarray(0, 32));
  if (problem !== null) return `its R is ${problem}`;
  if (!belowL(signature.subarray(32, 64))) return "its S is not below the group order";
  return null;
}

/**
 * A short name people can compare: 64 bits of the key's SHA-256, in four groups of hex.
 * @param {Uint8Array} raw
 * @returns {string}
 */
export function fingerprint(raw) {
  return /** @type {string[]} */ (hex(sha256(raw).subarray(0, 8)).match(/..../g)).join("-");
}

const ED25519 = { name: "Ed25519" };

/** A verifying key, checked from its 32 raw bytes once (WeakKeyError for a refused one); `text` is its wire form. */
export class PublicKey {
  /** @param {Uint8Array} raw */
  constructor(raw) {
    if (raw.length !== KEY_BYTES) throw new RangeError(`an Ed25519 public key is ${KEY_BYTES} bytes, not ${raw.length}`);
    const problem = pointProblem(raw);
    if (problem !== null) throw new WeakKeyError(`the key is ${problem}: anyone could sign for it`);
    /** @readonly */
    this.raw = Uint8Array.from(raw);
    /** @readonly */
    this.text = b64(raw);
    /** @type {Promise<CryptoKey | null> | null} WebCrypto's key, null for an encoding that is no point at all */
    this._key = null;
  }

  /**
   * The key whose base64url text is `text`.
   * @param {string} text
   * @returns {PublicKey}
   */
  static fromText(text) {
    return new PublicKey(unb64(text, KEY_BYTES));
  }

  /**
   * Whether `signature` is this key's over `data`, under the strict rules above.
   * @param {Uint8Array} signature
   * @param {Uint8Array} data
   * @returns {Promise<boolean>}
   */
  async verify(signature, data) {
    if (signature.length !== SIGNATURE_BYTES || signatureProblem(signature) !== null) return false;
    // OpenSSL (Python's, Node's) loads any 32 bytes and verifies nothing for a key off the curve; a WebCrypto that
    // refuses to import one must give the same verdict, and any other failure is the page's, not the line's.
    const raw = /** @type {BufferSource} */ (this.raw);
    this._key ??= globalThis.crypto.subtle.importKey("raw", raw, ED25519, false, ["verify"]).catch((error) => {
      if (decodePoint(this.raw) === null) return null;
      throw error;
    });
    const key = await this._key;
    return key !== null && globalThis.crypto.subtle.verify(ED25519, key, /** @type {BufferSource} */ (signature),
      /** @type {BufferSource} */ (data));
  }

  /** @returns {string} */
  get fingerprint() {
    return fingerprint(this.raw);
  }

  /**
   * @param {unknown} other
   * @returns {boolean}
   */
  equals(other) {
    return other instanceof PublicKey && other.text === this.text;
  }
}

const MAX_CACHED_KEYS = 20_000;
/** @type {Map<string, PublicKey>} */
const loaded = new Map();

/**
 * The PublicKey spelled by canonical base64url `text`, checked once per page (WeakKeyError if refused); the cache is
 * bounded against floods of fresh keys, as Python's is.
 * @param {string} text
 * @returns {PublicKey}
 */
export function publicKey(text) {
  let key = loaded.get(text);
  if (key === undefined) {
    if (loaded.size > MAX_CACHED_KEYS) loaded.clear();
    key = PublicKey.fromText(text);
    loaded.set(text, key);
  }
  return key;
}
