// The protocol's line layer in JavaScript against Python's verdicts: every line of the vectors and a few hundred
// damaged or forged ones, each refused with the code protocol.messages.decode gives it, or accepted as it reads it.
// tests/test_web_protocol.py writes the cases (tests/web_protocol_cases.py) and names the file in
// OLIXONO_WEB_PROTOCOL_CASES; without it, this file has nothing to compare and says so.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { refusal } from "./protocol-helpers.js";

import { Chain, consents, decode, parse, publicKey, readTranscript, unhex } from "../js/protocol.js";

const FILE = process.env.OLIXONO_WEB_PROTOCOL_CASES;
const CASES = FILE ? JSON.parse(readFileSync(FILE, "utf8")) : null;
const skip = CASES ? false : "OLIXONO_WEB_PROTOCOL_CASES names no file of cases (tests/test_web_protocol.py writes one)";

/** @param {{line?: string, hex?: string}} entry */
const dataOf = (entry) => (entry.hex === undefined ? entry.line : unhex(entry.hex));

/**
 * Check one case: the verdict with and without the signature, and what an accepted line holds.
 * @param {{name: string, line?: string, hex?: string, code: string | null, unverified: string | null, message?: any}} entry
 */
async function judge(entry) {
  const data = dataOf(entry);
  assert.equal(await refusal(() => parse(data)), entry.unverified, `${entry.name}: parse`);
  let message = null;
  const code = await refusal(async () => { message = await decode(data); });
  assert.equal(code, entry.code, `${entry.name}: decode`);
  if (message !== null) {
    const expected = entry.message;
    assert.deepEqual({
      type: message.type, fields: message.fields.map((pair) => [...pair]), signer: message.signer.text,
      peer: message.peer?.text ?? null, hash: message.hash, game: message.game, seq: message.seq, prev: message.prev,
      slot: message.slot,
    }, expected, entry.name);
  }
}

for (const part of ["vectors", "damaged"]) {
  test(`${part}: every verdict is Python's`, { skip }, async () => {
    const codes = new Map();
    for (const entry of CASES[part]) {
      await judge(entry);
      codes.set(entry.code, (codes.get(entry.code) ?? 0) + 1);
    }
    assert.ok(CASES[part].length >= 300, `${CASES[part].length} cases`);
    if (part === "damaged") assert.ok(codes.size >= 11, `only ${[...codes.keys()]}`);
  });
}

test("chains: the next line after a prefix, linked or refused as Python's verify_transcript says", { skip }, async () => {
  for (const entry of CASES.chains) {
    const chain = new Chain();
    for (const line of entry.prefix) {
      const message = await decode(line);
      if (chain.standing(message) === "next") chain.append(message);
    }
    const code = await refusal(async () => chain.append(await decode(entry.line)));
    assert.equal(code, entry.code, entry.name);
  }
});

test("transcripts: each line's hash, signer, type and place as Python reads them", { skip }, async () => {
  const vectors = new URL("../../protocol/vectors/", import.meta.url);
  for (const [name, expected] of Object.entries(CASES.transcripts)) {
    const { messages } = await readTranscript(readFileSync(new URL(name, vectors), "utf8"));
    assert.deepEqual(messages.map((m) => [m.hash, m.signer.text, m.type, m.seq, m.slot, m.prev, m.game]),
      expected.map((m) => [m.hash, m.signer, m.type, m.seq, m.slot, m.prev, m.game]), name);
  }
});

test("consents: an undo carries the waiter's signature of its takeback line, as Python's consents says", { skip }, async () => {
  assert.ok(CASES.consents.length >= 10);
  for (const entry of CASES.consents) {
    const undo = await decode(entry.line);
    assert.equal(await consents(undo, publicKey(entry.waiter)), entry.consents, entry.name);
    assert.equal(await consents(undo, undo.signer), entry.mover_consents, `${entry.name} (the mover's)`);
  }
});
