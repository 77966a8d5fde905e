// Whole records, checked offline (protocol/transcript.py): a transcript replayed strictly in order, and a proof of
// equivocation on its own.

import { NUMBERED_APART, decode } from "./messages.js";
import { RemoteProtocolError } from "./protocol-errors.js";
import { FINAL, UNCHAINED, contradicts, refusedOnSight } from "./protocol-rules.js";
import { quoted } from "./judge.js";
import { GameSession } from "./session.js";

/** Lines of one key without a seat that `unseatedProofs` pairs (a proof needs two). */
export const MAX_UNSEATED_PAIRS = 16;

/**
 * @param {string | Uint8Array} line
 * @returns {string}
 */
function text(line) {
  return typeof line === "string" ? line : new TextDecoder("utf-8", { fatal: false }).decode(line);
}

/**
 * The type a line says it is (unchecked).
 * @param {string} line
 */
function typeOf(line) {
  const rest = line.slice(line.indexOf(" ") + 1);
  const space = rest.indexOf(" ");
  return line.includes(" ") ? (space < 0 ? rest : rest.slice(0, space)) : "";
}

/**
 * @typedef {{kind: "LineRejected", code: string, detail: string, line: string}} Problem
 */

/**
 * Replay a record strictly in order (Python's verify_transcript): the session, and for the first line that does not
 * apply at once its 1-based number and why (gap for a line that would have to wait, or a duplicate; superseded for a
 * race left in). The lines of a seated key's equivocation proof are part of a record (the session ends the game by
 * the forfeit rule), and so are the moves a claimant's timeout set aside and what decided whom a host that signed two
 * accepts seated (a timeout the witnesses voided, and a witness's second line, apply as they are); a stranger's
 * proof is reported and decides nothing.
 * @param {Iterable<string | Uint8Array>} lines
 * @returns {Promise<{session: GameSession, number: number | null, problem: Problem | null}>}
 */
export async function verifyTranscript(lines) {
  const session = new GameSession();
  /** @type {[number, Problem, string][]} */
  const problems = [];
  const read = new Set();
  /** @type {Set<string>} the lines of every proof told on the way, a stranger's too (reported, never kept) */
  const told = new Set();
  let number = 0;
  for (const line of lines) {
    number += 1;
    const line_ = text(line);
    const again = read.has(line_);
    read.add(line_);
    const events = await session.receive(line);
    const shown = quoted(line);
    /** @type {Problem | null} */
    let problem = null;
    for (const event of events) {
      if (event.kind === "LineRejected" && event.line === shown) {
        problem = /** @type {Problem} */ (event);
      } else if (event.kind === "EquivocationDetected") {
        told.add(event.first);
        told.add(event.second);
        problem = { kind: "LineRejected", code: "equivocation", detail: `${event.slot} signed twice`, line: shown };
      } else if (event.kind === "Superseded") {
        problem = { kind: "LineRejected", code: "superseded", detail: `seq ${event.message.seq} holds two players' lines`,
          line: shown };
      }
      if (problem !== null) break;
    }
    if (problem === null && (again || !session.holds(line_))) {
      let why;
      if (again) why = "duplicate line";
      else if (typeOf(line_) === "presence") why = "a presence line is not part of a transcript";
      else why = "it depends on a line that is not before it";
      problem = { kind: "LineRejected", code: "gap", detail: why, line: shown };
    }
    if (problem !== null) problems.push([number, problem, line_]);
  }
  const proven = await unseatedProofs(session, problems.map(([, , line]) => line));
  for (const line of [...session.proofs.flatMap((proof) => [proof.first, proof.second]), ...session.displaced,
    ...session.seatingLines(), ...told]) {
    proven.add(line); // proofs, the answers a claimant's timeout set aside, what decided a host's seating: a record's
  }
  for (const [at, problem, line] of problems) {
    if (!proven.has(line)) return { session, number: at, problem };
  }
  return { session, number: null, problem: null };
}

/**
 * Of `lines`, those that are halves of a portable proof by a key that holds no seat in `session`'s game.
 * @param {GameSession} session
 * @param {string[]} lines
 * @returns {Promise<Set<string>>}
 */
export async function unseatedProofs(session, lines) {
  /** @type {Map<string, string[]>} */
  const byKey = new Map();
  for (const line of lines) {
    let signer;
    try {
      signer = (await decode(line)).signer;
    } catch (error) {
      if (error instanceof RemoteProtocolError) continue;
      throw error;
    }
    if (session.roleOf(signer) !== null) continue;
    const mine = byKey.get(signer.text) ?? [];
    mine.push(line);
    byKey.set(signer.text, mine);
  }
  /** @type {Set<string>} */
  const found = new Set();
  for (const mine of byKey.values()) {
    const some = mine.slice(0, MAX_UNSEATED_PAIRS);
    for (let i = 0; i < some.length; i++) {
      for (let j = i + 1; j < some.length; j++) {
        if (await checkEquivocationProof(some[i], some[j]) !== null) {
          found.add(some[i]);
          found.add(some[j]);
        }
      }
    }
  }
  return found;
}

/**
 * Check a portable equivocation proof offline (Python's check_equivocation_proof): the key that signed both lines
 * (its text), or null.
 * @param {string} first
 * @param {string} second
 * @returns {Promise<string | null>}
 */
export async function checkEquivocationProof(first, second) {
  let a, b;
  try {
    a = await decode(first);
    b = await decode(second);
  } catch (error) {
    if (error instanceof RemoteProtocolError) return null;
    throw error;
  }
  if (a.signer.text !== b.signer.text || a.game !== b.game || a.line === b.line || UNCHAINED.has(a.type)
      || UNCHAINED.has(b.type)) {
    return null;
  }
  if (refusedOnSight(a) !== null || refusedOnSight(b) !== null) return null;
  if (a.slot === b.slot || contradicts(a, b) || contradicts(b, a)) return a.signer.text;
  if (NUMBERED_APART.has(a.type) || NUMBERED_APART.has(b.type)) return null;
  const [early, late] = a.seq < b.seq ? [a, b] : [b, a];
  return FINAL.has(early.type) && early.seq < late.seq ? a.signer.text : null;
}
