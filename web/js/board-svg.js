// The board as SVG, for the spectator's page: either game's board (a rules board of oxono.js or olix.js), the squares
// of the last move marked, Olix's stones that hold a marker ringed, coordinates on every edge.
//
// Built with DOM calls only (createElementNS, textContent): nothing here parses markup, and every text is one of the
// board's own (square names, symbols). Each square is a `g.square` with `data-square` (`c3`), which tests and
// people's own tools may read: its piece is a child with `data-piece` (`pink X`, `totem O`, `first`).

const SVG = "http://www.w3.org/2000/svg";
const CELL = 40;
const MARGIN = 24;

/**
 * The squares a move names: an Oxono move's totem square and pawn square, an Olix move's square.
 * @param {{ to?: number, pawn?: number, square?: number } | null} move
 * @returns {number[]}
 */
export function moveSquares(move) {
  if (move === null) return [];
  if (typeof move.square === "number") return [move.square];
  return [move.to, move.pawn].filter((square) => typeof square === "number").map(Number);
}

/**
 * @param {Document} doc
 * @param {string} name
 * @param {Record<string, string | number>} attributes
 * @param {string} [text]
 */
function element(doc, name, attributes, text) {
  const node = doc.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

/**
 * Olix: the squares of the formations that hold a marker on the scoreboard (as the terminal's board underlines them).
 * @param {any} board an OlixBoard
 * @returns {Set<number>}
 */
function heldSquares(board) {
  const held = new Set();
  for (const track of board.scoreboard().tracks) {
    if (track.field === null) continue;
    for (const player of track.holders) {
      for (const square of board.formations(player)[track.kind].squares) held.add(square);
    }
  }
  return held;
}

/**
 * The pieces on `square`: what they are called (`data-piece`) and drawn as.
 * @param {Document} doc
 * @param {any} board
 * @param {number} square
 * @param {number} x the square's centre
 * @param {number} y
 * @param {Set<number>} held
 * @returns {Element[]}
 */
function pieces(doc, board, square, x, y, held) {
  const out = [];
  if (board.constructor.KIND === "oxono") {
    const totem = board.totemAt(square);
    if (totem !== null) {
      const group = element(doc, "g", { class: "totem", "data-piece": `totem ${totem}` });
      group.append(element(doc, "rect", { x: x - 15, y: y - 15, width: 30, height: 30, rx: 6 }),
        element(doc, "text", { x, y: y + 6, "text-anchor": "middle" }, totem));
      out.push(group);
    }
    const pawn = board.pawnAt(square);
    if (pawn !== null) {
      const group = element(doc, "g", { class: `pawn ${pawn.colour}`, "data-piece": `${pawn.colour} ${pawn.symbol}` });
      group.append(element(doc, "circle", { cx: x, cy: y, r: 15 }),
        element(doc, "text", { x, y: y + 6, "text-anchor": "middle" }, pawn.symbol));
      out.push(group);
    }
  } else {
    const stone = board.stoneAt(square);
    if (stone !== null) {
      const holds = held.has(square);
      const group = element(doc, "g", { class: `stone ${stone}${holds ? " holds" : ""}`, "data-piece": stone });
      group.append(element(doc, "circle", { cx: x, cy: y, r: 14 }));
      if (holds) group.append(element(doc, "circle", { class: "marker", cx: x, cy: y, r: 5 }));
      out.push(group);
    }
  }
  return out;
}

/**
 * The board as an `svg` element.
 * @param {Document} doc
 * @param {any} board an OxonoBoard or OlixBoard (web/js/oxono.js, web/js/olix.js)
 * @param {{ marked?: number[], flipped?: boolean, label?: string }} [options] the squares to mark (the last move's),
 *   the board seen from the second player's side, and the image's spoken description
 * @returns {SVGSVGElement}
 */
export function drawBoard(doc, board, { marked = [], flipped = false, label = "" } = {}) {
  const width = board.constructor.WIDTH;
  const size = 2 * MARGIN + width * CELL;
  const svg = /** @type {SVGSVGElement} */ (element(doc, "svg", {
    viewBox: `0 0 ${size} ${size}`, class: `board ${board.constructor.KIND}`, role: "img",
  }));
  svg.append(element(doc, "title", {}, label || `${board.constructor.KIND} board`));
  const markedSet = new Set(marked);
  const held = board.constructor.KIND === "olix" ? heldSquares(board) : new Set();
  const files = "abcdefghijk".slice(0, width);
  for (let square = 0; square < width * width; square += 1) {
    const file = square % width;
    const rank = Math.floor(square / width);
    const column = flipped ? width - 1 - file : file;
    const row = flipped ? rank : width - 1 - rank;
    const x = MARGIN + column * CELL;
    const y = MARGIN + row * CELL;
    const name = `${files[file]}${rank + 1}`;
    const group = element(doc, "g", {
      class: `square${(file + rank) % 2 ? " light" : " dark"}${markedSet.has(square) ? " last" : ""}`,
      "data-square": name,
    });
    group.append(element(doc, "rect", { x, y, width: CELL, height: CELL }));
    group.append(...pieces(doc, board, square, x + CELL / 2, y + CELL / 2, held));
    svg.append(group);
  }
  for (let index = 0; index < width; index += 1) {
    const along = MARGIN + (flipped ? width - 1 - index : index) * CELL + CELL / 2;
    const across = MARGIN + (flipped ? index : width - 1 - index) * CELL + CELL / 2 + 4;
    for (const [x, y, text] of [[along, MARGIN - 8, files[index]], [along, size - 8, files[index]],
      [MARGIN / 2, across, String(index + 1)], [size - MARGIN / 2, across, String(index + 1)]]) {
      svg.append(element(doc, "text", { class: "coordinate", x, y, "text-anchor": "middle" }, String(text)));
    }
  }
  return svg;
}
