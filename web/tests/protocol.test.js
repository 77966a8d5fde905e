// The protocol's line layer in JavaScript against protocol/vectors, read directly: no Python needed.
// `node --test web/tests/protocol.test.js`; tests/test_web_protocol.py runs it with the generated cases too.

import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { test } from "node:test";

import { refusal } from "./protocol-helpers.js";

import {
  CODES, Chain, FIELD_P, consentLine, consents, IDENTITY, PublicKey, RemoteProtocolError, SMALL_ORDER_ENCODINGS, WeakKeyError, addPoints,
  b64, checkText, decode, decodePoint, decodePointLeniently, decodeText, encodePoint, encodeText, fingerprint,
  hex, isSmallOrder, lineHash, gameIdOf, multiply, parse, parseTerms, pointProblem, readTranscript, signatureProblem,
  sha256, splitLines, unb64, unhex, GROUP_L,
} from "../js/protocol.js";

const VECTORS = new URL("../../protocol/vectors/", import.meta.url);
const DOCUMENT = JSON.parse(readFileSync(new URL("vectors.json", VECTORS), "utf8"));
const TRANSCRIPTS = readdirSync(VECTORS).filter((name) => name.endsWith(".txt")).sort();
/** The codes a line can earn by itself, without a game around it. */
const LINE_CODES = new Set(["oversize", "bad-utf8", "control-character", "syntax", "unknown-version", "unknown-type",
  "unknown-field", "bad-field", "non-canonical", "weak-key", "bad-signature"]);

test("every transcript of the vectors reads, signatures, hashes and links checked", async () => {
  assert.equal(TRANSCRIPTS.length, DOCUMENT.games.length);
  const keys = new Map(Object.entries(DOCUMENT.keys).map(([name, key]) => [name, key.public]));
  for (const game of DOCUMENT.games) {
    const text = readFileSync(new URL(game.file, VECTORS), "utf8");
    const { messages, chain } = await readTranscript(text);
    assert.equal(messages.length, game.lines, game.file);
    assert.equal(chain.gameId, game.game, game.file);
    assert.equal(gameIdOf(messages[0].line), game.game);
    for (const [index, message] of chain.lines.entries()) {
      assert.equal(message.seq, index, game.file);
      if (index) assert.equal(message.prev, chain.lines[index - 1].hash, game.file);
      assert.equal(message.hash, lineHash(message.line));
    }
    const seated = new Set([keys.get("host"), keys.get("guest")]); // the seats of a game that never began are empty
    assert.equal(messages[0].type, "offer");
    assert.equal(messages[0].signer.text, keys.get("host"), game.file);
    assert.equal(messages[0].get("kind"), game.kind);
    for (const message of messages) {
      const witness = message.type === "witness" && game.terms.includes(`witness:${message.signer.text}`);
      assert.ok(seated.has(message.signer.text) || witness, `${game.file}: ${message.type} by a stranger`);
    }
  }
});

test("each undo of the vectors carries the other player's consent, and no other", async () => {
  const keys = [DOCUMENT.keys.host.public, DOCUMENT.keys.guest.public].map((text) => PublicKey.fromText(text));
  let undos = 0;
  for (const name of TRANSCRIPTS) {
    for (const line of splitLines(readFileSync(new URL(name, VECTORS), "utf8"))) {
      if (line.split(" ")[1] !== "undo") continue;
      const undo = await decode(line);
      const waiter = keys.find((key) => !key.equals(undo.signer));
      assert.ok(waiter && await consents(undo, waiter), name);
      assert.equal(await consents(undo, undo.signer), false);
      assert.match(consentLine(undo, waiter), new RegExp(`^olixono/1 takeback game=${undo.game} seq=${undo.seq - 1} `));
      undos += 1;
    }
  }
  assert.ok(undos >= 2);
  const move = await decode(splitLines(readFileSync(new URL("olix-game.txt", VECTORS), "utf8"))[4]);
  assert.throws(() => consentLine(move, keys[0]), TypeError);
});

test("the vectors' keys and fingerprints", () => {
  for (const key of Object.values(DOCUMENT.keys)) {
    const publicKey = PublicKey.fromText(key.public);
    assert.equal(publicKey.fingerprint, key.fingerprint);
    assert.equal(b64(publicKey.raw), key.public);
  }
});

test("each rejection case: its lines accepted, its last line refused where a line alone can be", async () => {
  let refusedAlone = 0;
  for (const entry of DOCUMENT.cases) {
    const last = entry.last_hex ? unhex(entry.last_hex) : entry.lines.at(-1);
    const before = entry.last_hex ? entry.lines : entry.lines.slice(0, -1);
    for (const line of before) assert.equal(await refusal(() => decode(line)), null, entry.name);
    const code = await refusal(() => decode(last));
    if (LINE_CODES.has(entry.code) && entry.name !== "bad-field-timeout-partial") {
      assert.equal(code, entry.code, entry.name);
      refusedAlone += 1;
    } else {
      assert.equal(code, null, `${entry.name}: refused by the judge, not the line`);
    }
  }
  assert.ok(refusedAlone >= 35, `${refusedAlone} cases refused by the line alone`);
});

test("the refused point encodings are every encoding of every small-order point", () => {
  // The torsion subgroup as L times points of small y (tests/ed25519_reference.py's way), then every spelling a
  // lenient decoder reads as one of them.
  const found = new Map([[`${IDENTITY.x},${IDENTITY.y}`, IDENTITY]]);
  for (let y = 2n; found.size < 8; y++) {
    const point = decodePoint(encodePoint({ x: 0n, y }).map((b, i) => (i === 31 ? b & 0x7f : b)));
    if (point === null) continue;
    const torsion = multiply(GROUP_L, point);
    let member = torsion;
    for (let i = 0; i < 8; i++, member = addPoints(member, torsion)) found.set(`${member.x},${member.y}`, member);
  }
  const encodings = new Set();
  for (const point of found.values()) {
    assert.ok(isSmallOrder(point));
    for (const plusP of [0n, FIELD_P]) {
      if (point.y + plusP >= 2n ** 255n) continue;
      for (const sign of [0n, 1n]) {
        let value = (point.y + plusP) | (sign << 255n);
        const encoding = new Uint8Array(32);
        for (let i = 0; i < 32; i++, value >>= 8n) encoding[i] = Number(value & 0xffn);
        const read = decodePointLeniently(encoding);
        if (read !== null && read.x === point.x && read.y === point.y) encodings.add(hex(encoding));
      }
    }
  }
  assert.deepEqual([...encodings].sort(), [...SMALL_ORDER_ENCODINGS].sort());
  for (const text of SMALL_ORDER_ENCODINGS) {
    assert.equal(pointProblem(unhex(text)), "a small-order point");
    assert.throws(() => new PublicKey(unhex(text)), WeakKeyError);
  }
});

test("non-canonical encodings of ordinary points are refused, their canonical ones are not", () => {
  let refused = 0;
  for (let y = 2n; y < 19n; y++) {
    const plain = encodePoint({ x: 0n, y });
    const point = decodePoint(plain);
    if (point === null || isSmallOrder(point)) continue;
    let value = y + FIELD_P;
    const long = new Uint8Array(32);
    for (let i = 0; i < 32; i++, value >>= 8n) long[i] = Number(value & 0xffn);
    assert.deepEqual(decodePointLeniently(long), point);
    assert.equal(decodePoint(long), null);
    assert.equal(pointProblem(long), "a non-canonical point encoding (y is not below p)");
    assert.equal(pointProblem(plain), null);
    refused += 1;
  }
  assert.ok(refused >= 3);
});

test("a signature's R and S are canonical, and a key off the curve verifies nothing", async () => {
  const move = readFileSync(new URL("olix-game.txt", VECTORS), "utf8").split("\n")[4];
  const message = await decode(move);
  const signature = message.signature;
  const s = BigInt(`0x${hex(signature.slice(32).reverse())}`);
  const withS = (value) => {
    const out = Uint8Array.from(signature);
    for (let i = 32; i < 64; i++, value >>= 8n) out[i] = Number(value & 0xffn);
    return out;
  };
  assert.equal(signatureProblem(signature), null);
  assert.ok(await message.signer.verify(signature, message.signed()));
  assert.equal(signatureProblem(withS(s + GROUP_L)), "its S is not below the group order");
  assert.equal(await message.signer.verify(withS(s + GROUP_L), message.signed()), false);
  const offCurve = new Uint8Array(32);
  offCurve[0] = 2;
  assert.equal(decodePoint(offCurve), null);
  const key = new PublicKey(offCurve); // as cryptography loads it: refused only when it verifies nothing
  assert.equal(await key.verify(signature, message.signed()), false);
  // A WebCrypto that refuses to import such a key reaches the same verdict; one that fails on a point is loud.
  const importKey = SubtleCrypto.prototype.importKey;
  SubtleCrypto.prototype.importKey = () => Promise.reject(new DOMException("refused", "DataError"));
  try {
    assert.equal(await new PublicKey(offCurve).verify(signature, message.signed()), false);
    await assert.rejects(new PublicKey(message.signer.raw).verify(signature, message.signed()), /refused/);
  } finally {
    SubtleCrypto.prototype.importKey = importKey;
  }
});

test("SHA-256 is WebCrypto's, at every padding boundary", async () => {
  for (let length = 0; length < 260; length++) {
    const data = Uint8Array.from({ length }, (_, i) => (i * 151 + length) & 0xff);
    assert.equal(hex(sha256(data)), hex(new Uint8Array(await crypto.subtle.digest("SHA-256", data))), `${length} bytes`);
  }
  assert.equal(hex(sha256(new TextEncoder().encode("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("y below p and S below L, at their boundaries", () => {
  const little = (value) => {
    const out = new Uint8Array(32);
    for (let i = 0; i < 32; i++, value >>= 8n) out[i] = Number(value & 0xffn);
    return out;
  };
  const nonCanonical = "a non-canonical point encoding (y is not below p)";
  assert.equal(pointProblem(little(FIELD_P - 2n)), null);
  assert.equal(pointProblem(little(FIELD_P - 1n)), "a small-order point");
  assert.equal(pointProblem(little(FIELD_P + 2n)), nonCanonical);
  assert.equal(pointProblem(little(2n ** 255n - 1n)), nonCanonical);
  assert.equal(pointProblem(little((FIELD_P + 2n) | (1n << 255n))), nonCanonical);
  assert.equal(pointProblem(little((FIELD_P - 2n) | (1n << 255n))), null);
  const r = little(5n);
  const signature = (s) => Uint8Array.from([...r, ...little(s)]);
  assert.equal(signatureProblem(signature(GROUP_L - 1n)), null);
  assert.equal(signatureProblem(signature(GROUP_L)), "its S is not below the group order");
  assert.equal(signatureProblem(signature(GROUP_L + (1n << 200n))), "its S is not below the group order");
  assert.equal(signatureProblem(signature(GROUP_L - (1n << 200n))), null);
  assert.equal(signatureProblem(signature(2n ** 256n - 1n)), "its S is not below the group order");
});

test("base64url: only the canonical spelling, and the last characters PROTOCOL.md lists", () => {
  const ends = (length) => {
    const out = new Set();
    for (const ch of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") {
      try {
        unb64(`${"A".repeat(Math.floor((length * 8 + 5) / 6) - 1)}${ch}`, length);
        out.add(ch);
      } catch { /* not canonical */ }
    }
    return [...out].join("");
  };
  assert.equal(ends(16), "AQgw");
  assert.equal(ends(32), "AEIMQUYcgkosw048");
  assert.equal(ends(64), "AQgw");
  for (const length of [0, 1, 2, 3, 16, 31, 32, 64]) {
    const data = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) & 0xff);
    assert.deepEqual(unb64(b64(data), length), data);
  }
  assert.throws(() => unb64("AAAA=", 3), RangeError);
  assert.throws(() => unb64("AA+A", 3), RangeError);
});

test("chat text: escapes, and every limit of PROTOCOL.md §1", () => {
  for (const text of ["hello", "a b", "é€😀", "~-._", "囲碁", "a\u0301\u0302\u0303\u0304"]) {
    assert.equal(decodeText(encodeText(text)), text);
  }
  assert.equal(encodeText("a b/é"), "a%20b%2F%C3%A9");
  assert.equal(checkText("\u0301a"), "starts with the combining mark U+0301");
  assert.equal(checkText("a\u0301\u0302\u0303\u0304\u0305"), "holds more than 4 combining marks in a row");
  assert.equal(checkText("a\u202eb"), "holds U+202E, a control, format or separator character");
  assert.equal(checkText("a\tb"), "holds the control character U+0009");
  assert.equal(checkText("é".repeat(251)), "longer than 500 bytes");
  assert.throws(() => decodeText("%41"), /canonical/);
  assert.throws(() => decodeText("%c3%a9"), RangeError);
  assert.deepEqual(parseTerms("clock:60+2,rules:2"), [["clock", "60+2"], ["rules", "2"]]);
  assert.throws(() => parseTerms("rules:2,clock:60+2"), /sorted/);
});

test("a chain links each line to the one before it, in one game", async () => {
  const lines = splitLines(readFileSync(new URL("olix-game.txt", VECTORS), "utf8").replaceAll("\n", "\r\n") + "\r\n\r\n");
  const messages = await Promise.all(lines.slice(0, 8).map((line) => decode(line)));
  const chain = new Chain();
  assert.equal(chain.standing(messages[1]), "waits");
  for (const message of messages.slice(0, 6)) chain.append(message);
  assert.equal(chain.standing(messages[6]), "next");
  assert.equal(chain.standing(messages[7]), "waits");
  assert.equal(chain.standing(messages[3]), "behind");
  assert.throws(() => chain.append(messages[7]), (error) => error.code === "gap");
  assert.throws(() => chain.standing(messages[0]), (error) => error.code === "wrong-game");
  assert.equal(chain.head, messages[5]);
});

test("every code has its sentence, and an unknown code is a bug", () => {
  assert.equal(Object.keys(CODES).length, 26);
  assert.throws(() => new RemoteProtocolError("no-such-code", "x"), RangeError);
  assert.equal(new RemoteProtocolError("gap", "x").message, "gap: x");
});

test("parse: the grammar and keys without the signature, as decode(verify=False)", async () => {
  const line = readFileSync(new URL("oxono-game.txt", VECTORS), "utf8").split("\n")[2];
  const parsed = parse(line);
  assert.equal(parsed.type, "accept");
  assert.equal(parsed.peer?.text, DOCUMENT.keys.guest.public);
  const forged = `${line.slice(0, -4)}AAAA`;
  assert.equal(parse(forged).type, "accept");
  assert.equal(await refusal(() => decode(forged)), "bad-signature");
  assert.equal(await refusal(() => decode(forged, { verify: false })), null);
  assert.equal(fingerprint(parsed.signer.raw), DOCUMENT.keys.host.fingerprint);
});

test("what a caller holds: a huge string refused at once, a buffer copied", async () => {
  assert.equal(await refusal(() => decode("x".repeat(5_000_000))), "oversize");
  assert.equal(await refusal(() => decode("😀".repeat(1025))), "oversize"); // 2,050 code units, 1,025 code points
  const line = readFileSync(new URL("olix-game.txt", VECTORS), "utf8").split("\n")[0];
  const buffer = new TextEncoder().encode(line);
  const message = await decode(buffer);
  buffer.fill(0x20);
  assert.equal(new TextDecoder().decode(message.raw), line);
  assert.equal(message.hash, lineHash(line));
});
