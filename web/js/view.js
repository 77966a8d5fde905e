// What the spectator's page shows of a game, drawn from a snapshot of it (the judge's state in the page's words).
//
// Every string that came from the network (chat, a refusal's detail, a name) is set as text (`textContent`), never
// parsed as markup. The hooks tests and people's own tools rely on: one `#moves li` per applied move (its text holds
// the move), `#result` with `data-code` (the result token, as `--plain`'s `result: … (CODE)`) once the game is over,
// and one `.rejected` element with `data-code` (the rejection code) per refused line.

import { drawBoard, moveSquares } from "./board-svg.js";

/**
 * A game as the page shows it at one moment.
 * @typedef {object} Snapshot
 * @property {string} game the game's id
 * @property {string} kind `oxono` or `olix`
 * @property {any} board the position now (a rules board of oxono.js or olix.js); null before the offer came
 * @property {{ player: string, text: string, move: any }[]} moves the moves that stand, in order (`move`: the rules'
 *   move object, to mark its squares)
 * @property {string | null} turn whose turn it is, while the game is played
 * @property {{ player: string, fingerprint: string, present: boolean | null, clock: string | null }[]} players the
 *   seats, once drawn
 * @property {{ code: string, sentence: string } | null} result once the game is over
 * @property {{ who: string, text: string }[]} chat the players' chat
 * @property {{ code: string, detail: string }[]} rejected the lines refused, with the protocol's codes
 * @property {string[]} proofs what each proof of equivocation says
 * @property {{ who: string, text: string }[]} [talk] the watchers' talk, beside the game
 */

/**
 * @param {Document} doc
 * @param {string} tag
 * @param {string} text
 * @param {Record<string, string>} [attributes]
 */
function textElement(doc, tag, text, attributes = {}) {
  const node = doc.createElement(tag);
  node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/**
 * Make `list`'s items the `texts` given, keeping those already right (so that a live region announces only what is
 * new), each made by `make`.
 * @param {Element} list
 * @param {string[]} texts
 * @param {(text: string, index: number) => Element} make
 */
function syncList(list, texts, make) {
  const items = [...list.children];
  let same = 0;
  while (same < items.length && same < texts.length && items[same].textContent === texts[same]) same += 1;
  for (const item of items.slice(same)) item.remove();
  list.append(...texts.slice(same).map((text, index) => make(text, same + index)));
}

/**
 * Olix's scoreboard into `table` (emptied for Oxono): a row a track, each field's value, the one marked with who
 * holds its marker (as the terminal's board shows it), and a caption saying who leads.
 * @param {Document} doc
 * @param {HTMLElement} table
 * @param {any} board
 */
function drawScoreboard(doc, table, board) {
  if (board === null || board.constructor.KIND !== "olix") {
    table.replaceChildren();
    table.hidden = true;
    return;
  }
  const scoreboard = board.scoreboard();
  const [first, second] = board.constructor.PLAYERS;
  const leader = scoreboard.leader();
  const counts = `${scoreboard.positions(first).length} to ${scoreboard.positions(second).length}`;
  const rows = scoreboard.tracks.map((/** @type {any} */ track) => {
    const row = doc.createElement("tr");
    row.append(textElement(doc, "th", track.kind, { scope: "row" }));
    for (const value of track.fields) {
      const held = value === track.field ? track.holders : [];
      const cell = textElement(doc, "td", held.length ? `${value} ${held.join(" ")}` : String(value));
      if (held.length) cell.className = `held ${held.join(" ")}`;
      row.append(cell);
    }
    return row;
  });
  table.replaceChildren(textElement(doc, "caption", `markers ${counts}: ${leader ? `${leader} leads` : "level"}`),
    ...rows);
  table.hidden = false;
}

/**
 * Draw `snapshot` into the page's elements (found by id under `root`).
 * @param {Document} doc
 * @param {ParentNode} root
 * @param {Snapshot} snapshot
 */
export function render(doc, root, snapshot) {
  /** @param {string} id */
  const byId = (id) => /** @type {HTMLElement} */ (root.querySelector(`#${id}`));
  const last = snapshot.moves.at(-1) ?? null;
  if (snapshot.board !== null) {
    const label = `${snapshot.kind} board after ${snapshot.moves.length} move${snapshot.moves.length === 1 ? "" : "s"}` +
      (last === null ? "" : `, the last ${last.player} ${last.text}`);
    byId("board").replaceChildren(drawBoard(doc, snapshot.board, { marked: moveSquares(last?.move ?? null), label }));
  }
  const scoreboard = byId("scoreboard");
  if (scoreboard !== null) drawScoreboard(doc, scoreboard, snapshot.board);
  syncList(byId("moves"), snapshot.moves.map((move, index) => `${index + 1}. ${move.player} ${move.text}`),
    (text) => textElement(doc, "li", text));
  byId("turn").textContent = snapshot.result !== null ? "" : snapshot.turn === null ? "waiting for the seats"
    : `${snapshot.turn} to move`;
  syncList(byId("players"), snapshot.players.map((seat) => `${seat.player} ${seat.fingerprint}` +
    `${seat.present === null ? "" : seat.present ? ", here" : ", away"}${seat.clock === null ? "" : `, ${seat.clock}`}`),
  (text) => textElement(doc, "li", text));
  const result = byId("result");
  if (snapshot.result === null) {
    result.hidden = true;
    result.removeAttribute("data-code");
    result.textContent = "";
  } else {
    result.hidden = false;
    result.dataset.code = snapshot.result.code;
    result.textContent = `${snapshot.result.sentence} (${snapshot.result.code})`;
  }
  syncList(byId("chat"), snapshot.chat.map((line) => `${line.who}: ${line.text}`), (text) => textElement(doc, "li", text));
  syncList(byId("rejections"), snapshot.rejected.map((line) => `${line.code}: ${line.detail}`),
    (text, index) => textElement(doc, "li", text, { class: "rejected", "data-code": snapshot.rejected[index].code }));
  syncList(byId("proofs"), snapshot.proofs, (text) => textElement(doc, "li", text, { class: "proof" }));
  const talk = byId("talk");
  if (talk !== null) {
    syncList(talk, (snapshot.talk ?? []).map((line) => `${line.who}: ${line.text}`), (text) => textElement(doc, "li", text));
  }
}
