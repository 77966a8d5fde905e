// A spectator's view of one game: the judge's session (session.js) fed every line the relays bring, each line once,
// and what the page shows of it (view.js's Snapshot): the board and the moves that stand, whose turn, the seats with
// their presence and clocks, the result in words and as its token, the chat, every refused line and every proof.

import { Gallery, isTalk } from "./gallery.js";
import { GameSession } from "./session.js";

/** Lines remembered as seen (the relays send each line once per copy of it); past it, the set starts again. */
const SEEN_KEPT = 50_000;
/** Refused lines kept to show (the latest); the rest are counted. */
const REJECTED_SHOWN = 100;

/**
 * `ms` as a game clock shows it, as the terminal does (client/words/board.py's clock_left_text): `4:07`, `1:02:30`
 * past an hour, `2 d 23:59:59` past a day; under ten seconds in tenths and marked, `0:09.4!`.
 * @param {number} ms
 */
export function clockText(ms) {
  const left = Math.max(0, Math.floor(ms));
  if (left < 10_000) return `0:${String(Math.floor(left / 1000)).padStart(2, "0")}.${Math.floor((left % 1000) / 100)}!`;
  let whole = Math.floor(left / 1000);
  const days = Math.floor(whole / 86_400);
  whole %= 86_400;
  const hours = Math.floor(whole / 3600);
  whole %= 3600;
  const minutes = Math.floor(whole / 60);
  const seconds = String(whole % 60).padStart(2, "0");
  const text = hours || days ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
  return days ? `${days} d ${text}` : text;
}

/**
 * One proof in words, as the terminal says it (client/words/record.py's proof_text): who signed two lines, where, and what
 * it did to the game.
 * @param {GameSession} session
 * @param {{ key: any, slot: string, point: number | null }} proof
 */
export function proofText(session, proof) {
  const result = session.result;
  let effect;
  if (proof.point === null) effect = "they never change the game";
  else if (result !== null && result.reason === "equivocation" && result.slot === proof.point) {
    effect = "so they forfeit the game there";
  } else if (session.forfeitPending === proof.point) {
    effect = "so they forfeit the game there, once the lines before it are in";
  } else if (result === null) effect = "so they forfeit the game, unless it ended before";
  else effect = "after the game had ended, so the result stands";
  const where = /^\d+$/.test(proof.slot) ? `slot ${proof.slot}` : proof.slot.replaceAll("-", " ");
  return `${session.nameOf(proof.key)} signed two lines that cannot both stand (${where}): ${effect}`;
}

export class Watcher {
  /** @param {string} game the game's id */
  constructor(game) {
    this.game = game;
    this.session = new GameSession(game);
    /** The watchers' talk, beside the game (gallery.js). */
    this.gallery = new Gallery(game);
    /** @type {Set<string>} */
    this._seen = new Set();
    /** @type {{ code: string, detail: string }[]} */
    this._rejected = [];
    this.rejectedCount = 0;
    /** @type {{ who: string, text: string }[]} */
    this._chat = [];
    /** When this page saw the current turn begin (its own clock, ms), and how many turns there were then. */
    this._turnSeen = { turns: -1, at: 0 };
  }

  /**
   * One line from a relay (its bytes as they came, or its text): judged once, whichever relay and topic it came
   * from; bytes that are no UTF-8 are refused as the judge refuses them (bad-utf8).
   * @param {Uint8Array | string} data
   */
  async receive(data) {
    const line = typeof data === "string" ? data : new TextDecoder("utf-8", { fatal: false }).decode(data);
    const seen = typeof data === "string" ? data : `${line}\u0000${data.length}`; // (a lossy decoding: told apart)
    if (this._seen.has(seen)) return;
    if (this._seen.size >= SEEN_KEPT) this._seen.clear();
    this._seen.add(seen);
    if (isTalk(line)) {
      try {
        await this.gallery.receive(line);
      } catch (error) {
        this._refused(/** @type {any} */ (error));
      }
      return;
    }
    for (const event of await this.session.receive(data)) {
      if (event.kind === "LineRejected") {
        this._refused(event);
      } else if (event.kind === "ChatReceived") {
        this._chat.push({ who: this.session.nameOf(event.key), text: event.text });
      }
    }
    const turns = this.session.moves;
    if (turns !== this._turnSeen.turns) this._turnSeen = { turns, at: performance.now() };
  }

  /**
   * A line refused (its code and why), shown among the last REJECTED_SHOWN and counted.
   * @param {{ code: unknown, detail: unknown }} refusal
   */
  _refused(refusal) {
    if (refusal.code === undefined) throw refusal; // no refusal: a fault of this page's, said by page.js
    this.rejectedCount += 1;
    this._rejected.push({ code: String(refusal.code), detail: String(refusal.detail) });
    if (this._rejected.length > REJECTED_SHOWN) this._rejected.shift();
  }

  /**
   * What the page shows now (view.js).
   * @returns {import("./view.js").Snapshot}
   */
  snapshot() {
    const session = this.session;
    const board = session.board;
    const kind = board === null ? "" : board.constructor.KIND;
    const replay = board === null ? null : new board.constructor();
    const moves = session.standing().map((message) => {
      const text = String(message.get("move"));
      const player = session.nameOf(message.signer);
      const move = replay === null ? null : replay.parseMove(text);
      if (replay !== null && move !== null) replay.push(move);
      return { player, text, move };
    });
    const result = session.result;
    const clocks = session.clocks;
    const turn = result === null && board !== null && Object.keys(session.seats).length ? board.turn : null;
    const players = Object.entries(session.seats).map(([player, key]) => {
      let clock = null;
      if (clocks !== null) {
        const running = turn === player && result === null ? performance.now() - this._turnSeen.at : 0;
        const first = turn === player ? session.firstMoveMs : null; // rules:2: a first move is off the clock
        clock = first === null ? `${clockText(clocks[player] - running)} left`
          : `${clockText(clocks[player])} left; first move: ${clockText(first - running)} (the clock starts after it)`;
      }
      return { player, fingerprint: key.fingerprint, present: session.present(key), clock };
    });
    const proofs = session.proofs.map((proof) => proofText(session, proof));
    return {
      game: this.game, kind, board, moves, turn, players,
      result: result === null ? null : { code: result.code(), sentence: result.sentence() },
      chat: [...this._chat], rejected: [...this._rejected], proofs,
      talk: this.gallery.talk.map((said) => ({ who: `watcher ${said.key.fingerprint}`, text: said.text })),
    };
  }

  /** The page's status line: where the game stands, in a few words. */
  status() {
    const session = this.session;
    if (session.board === null) return `Game ${this.game}: waiting for its offer…`;
    const refused = this.rejectedCount ? `; ${this.rejectedCount} line${this.rejectedCount === 1 ? "" : "s"} refused` : "";
    const verified = `every line verified here${refused}`;
    if (session.result !== null) return `Game ${this.game} is over: ${verified}.`;
    return `Watching game ${this.game} live: ${verified}.`;
  }
}
