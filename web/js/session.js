// A game's session as the spectator's page keeps it (protocol/session.py's GameSession as a watcher: no key of its
// own, so nothing to sign). Python's session also signs the local player's lines; a page watches only.

import { Receiver } from "./judge.js";

/** The verified state of one game, for a watcher: `receive` lines in any order, read the views. */
export class GameSession extends Receiver {
  /**
   * A session rebuilt from lines (a journal, a transcript, what a relay retains), in any order.
   * @param {Iterable<string | Uint8Array>} lines
   * @param {{gameId?: string | null}} [options]
   * @returns {Promise<GameSession>}
   */
  static async restore(lines, { gameId = null } = {}) {
    const session = new GameSession(gameId);
    await session.receiveAll(lines);
    return session;
  }
}
