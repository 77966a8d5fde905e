// The judge in JavaScript against Python's watcher: every vector and a few hundred games played with Python's
// sessions, fed line by line in their order, shuffled and with duplicates; the events of each line, the state at the
// end and verifyTranscript's verdict must be Python's exactly.
// tests/test_web_judge.py writes the cases (tests/web_judge_cases.py) and names the file in OLIXONO_WEB_JUDGE_CASES.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { GameSession } from "../js/session.js";
import { verifyTranscript } from "../js/transcript.js";
import { lineHash } from "../js/messages.js";
import { unhex } from "../js/keys.js";
import { quoted } from "../js/judge.js";

const FILE = process.env.OLIXONO_WEB_JUDGE_CASES;
const CASES = FILE ? JSON.parse(readFileSync(FILE, "utf8")) : null;
const skip = CASES ? false : "OLIXONO_WEB_JUDGE_CASES names no file of cases (tests/test_web_judge.py writes one)";

/**
 * An event as both implementations write it down (tests/web_judge_cases.py's `normal`).
 * @param {import("../js/events.js").Event} e
 * @returns {unknown[]}
 */
function normal(e) {
  switch (e.kind) {
    case "LineApplied": return [e.kind, e.message.hash];
    case "LineRejected": return [e.kind, e.code];
    case "OfferReceived": return [e.kind, e.game, e.gameKind, e.host.text, e.invite?.text ?? null, e.terms, e.at];
    case "JoinRequested": case "GuestAccepted": case "ConfirmationReceived": return [e.kind, e.key.text];
    case "GameStarted": return [e.kind, e.seats.map((/** @type {any} */ [player, key]) => [player, key.text])];
    case "MoveApplied": return [e.kind, e.seq, e.player, e.move, e.ply];
    case "EndProposed": case "ProposalWithdrawn": case "EndDeclined": return [e.kind, e.player];
    case "ChatReceived": return [e.kind, e.key.text, e.text];
    case "PresenceChanged": return [e.kind, e.key.text, e.here];
    case "GameOver": return [e.kind, e.result.code(), e.result.sentence()];
    case "Superseded": return [e.kind, e.message.hash, e.by.hash];
    case "ResyncNeeded": return [e.kind];
    case "EquivocationDetected": return [e.kind, e.key.text, e.slot, lineHash(e.first), lineHash(e.second), e.point,
      e.playedOn];
    case "ClaimVoided": return [e.kind, e.timeout.hash];
    case "MovesTakenBack": return [e.kind, e.seq, e.player, e.plies, e.moves];
    case "TakebackAsked": return [e.kind, e.player, e.plies, e.seq, e.message.hash];
    case "RematchAsked": return [e.kind, e.key.text, e.game, e.message.hash];
    default: throw new Error(`an event the test does not know: ${e.kind}`);
  }
}

/**
 * What a watcher shows of a game (tests/web_judge_cases.py's `summary`).
 * @param {GameSession} session
 */
function summary(session) {
  const result = session.result;
  const keys = [session.host, session.guest].filter((key) => key !== null).map((key) => /** @type {any} */ (key));
  return {
    phase: session.phase,
    position: session.position,
    moves: session.standing().map((line) => line.get("move")),
    turns: session.moves,
    result: result === null ? null : { code: result.code(), sentence: result.sentence(), winner: result.winner,
      reason: result.reason },
    seats: Object.fromEntries(Object.entries(session.seats).map(([player, key]) => [player, key.text])),
    host: session.host?.text ?? null,
    guest: session.guest?.text ?? null,
    actor: session.actor?.text ?? null,
    proposal: session.proposal,
    transcript: session.transcript,
    waiting: session.waiting.length,
    confirmations: Object.fromEntries(keys.map((key) => [key.text, session.confirmation(key)])),
    confirmed_endings: Object.fromEntries(keys.map((key) => [key.text, session.confirmedEnding(key)])),
    confirmed_by: session.confirmedBy.map((key) => key.text).sort(),
    waiting_of: Object.fromEntries(keys.map((key) => [key.text, session.waitingOf(key).map((line) => line.hash)])),
    present: Object.fromEntries(keys.map((key) => [key.text, session.present(key)])),
    clocks: session.clocks,
    first_move_ms: session.firstMoveMs,
    claim_remaining: session.claimRemaining(),
    claims: session.claims().map(([flag, status]) => [flag.hash, status]),
    time_used: Object.fromEntries(Object.entries(session.timeUsed()).map(([player, used]) => [player,
      [used.used, used.unexplained, used.moves, used.measured]])),
    answers: session.answers().map((a) => [a.player, a.think, a.elapsed, a.roundTrip, a.offset, a.unexplained]),
    record: session.record,
    takebacks: Object.fromEntries(keys.map((key) => [key.text, session.takebackOf(key)?.hash ?? null])),
    rematches: Object.fromEntries(keys.map((key) => [key.text, session.rematchOf(key)])),
    rematch: session.rematch,
    proofs: session.proofs.map((proof) => [proof.key.text, proof.slot, lineHash(proof.first), lineHash(proof.second),
      proof.point]),
    compromised_by: session.compromisedBy.map((key) => key.text).sort(),
    forfeit_pending: session.forfeitPending,
    branch: session.branch === null ? null : session.branch.map((line) => line.hash),
    seating_lines: session.seatingLines(),
    witness_lies: Object.fromEntries(session.witnessLies()),
  };
}

/**
 * Replay one feed and compare it with Python's, line by line.
 * @param {any} entry
 */
async function replay(entry) {
  const session = new GameSession(entry.game);
  const lines = entry.lines.map((/** @type {string | {hex: string}} */ line) => (typeof line === "string" ? line
    : unhex(line.hex)));
  for (const [index, line] of lines.entries()) {
    const events = (await session.receive(line)).map(normal);
    assert.deepEqual(events, entry.events[index], `${entry.name}: line ${index + 1}: ${quoted(line).slice(0, 80)}`);
  }
  assert.deepEqual(summary(session), entry.summary, `${entry.name}: the state at the end`);
  const checked = await verifyTranscript(lines);
  assert.deepEqual({ number: checked.number, code: checked.problem?.code ?? null,
    result: checked.session.result?.code() ?? null, phase: checked.session.phase }, entry.verify,
  `${entry.name}: verifyTranscript`);
}

for (const part of ["vectors", "games"]) {
  test(`the judge reaches Python's state, events and refusals on every feed of the ${part}`, { skip }, async () => {
    const feeds = CASES[part];
    assert.ok(feeds.length > 0);
    for (const entry of feeds) await replay(entry);
  });
}
