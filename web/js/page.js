// The spectator's page: watch one game (`#game=ID`), or list the games a relay holds (no fragment).
//
// It reads the game's lines from every relay the link names (`#game=ID&relay=wss://a/mqtt&relay=wss://b/mqtt`;
// default: the relay that served the page, at /mqtt), counts each line once whichever relay it came from, and hands
// it to the watcher (watcher.js: the judge, in this browser), then draws what the watcher says (view.js). Nothing
// from the network is trusted: a line that fails a check is shown as refused and changes nothing.

import mqtt from "../vendor/mqtt.esm.js";
import { decode } from "./protocol.js";
import { render } from "./view.js";
import { Watcher } from "./watcher.js";

const GAMES = "olixono/1/games";
const GAME_ID = /^[A-Za-z0-9_-]{22}$/;
const RELAY_URL = /^wss?:\/\/[^\s/?#]+(\/[^\s?#]*)?$/;

/**
 * The game and the relays a link names.
 * @param {string} fragment `location.hash`
 * @param {Location} where the page's own address (its relay is the default)
 * @returns {{ game: string | null, relays: string[], problem: string | null }}
 */
export function linkOf(fragment, where) {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const game = params.get("game");
  const named = params.getAll("relay");
  const relays = named.length ? named : [`${where.protocol === "https:" ? "wss" : "ws"}://${where.host}/mqtt`];
  if (game !== null && !GAME_ID.test(game)) return { game: null, relays, problem: `no game id: ${game}` };
  const bad = relays.find((url) => !RELAY_URL.test(url));
  if (bad !== undefined) return { game, relays: [], problem: `not a relay's WebSocket address: ${bad}` };
  return { game, relays: [...new Set(relays)], problem: null };
}

/**
 * Connect to each relay and hand every message on `filters` to `take` (topic, its bytes as they came); `told` hears each relay's
 * state. Returns the clients.
 * @param {string[]} relays
 * @param {string[]} filters
 * @param {(topic: string, line: Uint8Array) => void} take
 * @param {(relay: string, state: string) => void} told
 */
function follow(relays, filters, take, told) {
  return relays.map((url) => {
    const client = mqtt.connect(url, { protocolVersion: 4, clean: true, reconnectPeriod: 3000, connectTimeout: 10000,
      clientId: `olixono-page-${crypto.getRandomValues(new Uint32Array(2)).join("")}` });
    client.on("connect", () => {
      told(url, "connected");
      client.subscribe(filters, { qos: 1 });
    });
    client.on("reconnect", () => told(url, "connecting again"));
    client.on("close", () => told(url, "lost"));
    client.on("error", (error) => told(url, `error: ${error.message}`));
    client.on("message", (topic, payload) => {
      if (payload.length) take(topic, new Uint8Array(payload));
    });
    return client;
  });
}

/**
 * What hears each relay's state and shows them all in the header's #relays line.
 * @param {string[]} relays
 * @returns {(relay: string, state: string) => void}
 */
function relayStates(relays) {
  const line = /** @type {HTMLElement} */ (document.querySelector("#relays"));
  const states = new Map(relays.map((url) => [url, "connecting"]));
  return (url, state) => {
    states.set(url, state);
    line.textContent = [...states].map(([each, said]) => `${each}: ${said}`).join("; ");
  };
}

/**
 * Watch one game: its lines from every relay, each once, judged by the watcher, drawn on every change.
 * @param {string} game
 * @param {string[]} relays
 */
function watch(game, relays) {
  const root = /** @type {HTMLElement} */ (document.querySelector("#game"));
  root.hidden = false;
  const status = /** @type {HTMLElement} */ (document.querySelector("#status"));
  status.textContent = `Watching game ${game}: reading its lines…`;
  const watcher = new Watcher(game);
  let drawing = false;
  const draw = () => {
    drawing = false;
    const snapshot = watcher.snapshot();
    render(document, document, snapshot);
    status.textContent = watcher.status();
  };
  const later = () => {
    if (!drawing) {
      drawing = true;
      requestAnimationFrame(draw);
    }
  };
  /** @type {Promise<void>} */
  let queue = Promise.resolve();
  follow(relays, [`${GAMES}/${game}/#`], (_, line) => {
    queue = queue.then(() => watcher.receive(line)).then(later, (error) => {
      status.textContent = `this page failed on a line: ${error}`;
    });
  }, relayStates(relays));
  setInterval(() => {  // the clock of the player to move runs between lines
    if (watcher.session.result === null && watcher.session.clocks !== null) later();
  }, 1000);
}

/**
 * The front page: every game whose offer verifies, open or in progress, with the link that watches it.
 * @param {string[]} relays
 */
function lobby(relays) {
  const root = /** @type {HTMLElement} */ (document.querySelector("#lobby"));
  root.hidden = false;
  const list = /** @type {HTMLElement} */ (document.querySelector("#games"));
  const status = /** @type {HTMLElement} */ (document.querySelector("#status"));
  status.textContent = "Games whose offer verifies, newest first.";
  /** @type {Map<string, HTMLElement>} */
  const shown = new Map();
  const seen = new Set();
  const named = relays.length > 1 || relays[0] !== linkOf("", location).relays[0];
  /** @type {Map<string, string>} the host of each game shown, by game */
  const hosts = new Map();
  /** @type {Map<string, string>} the key each accept came from, by game (an accept may come before its offer) */
  const accepted = new Map();
  /** @param {string} game */
  const mark = (game) => {
    const item = shown.get(game);
    if (item !== undefined && accepted.get(game) === hosts.get(game)) item.dataset.state = "in progress";
    const state = item?.querySelector(".state");
    if (state && item) state.textContent = ` ${item.dataset.state}`;
  };
  follow(relays, [`${GAMES}/+/+/offer`, `${GAMES}/+/+/2`], async (_, line) => {
    const text = new TextDecoder("utf-8", { fatal: false }).decode(line);
    if (seen.has(text)) return;
    if (seen.size > 20_000) seen.clear(); // (a flood of junk on an open broker: the shown games stay)
    seen.add(text);
    let message;
    try {
      message = await decode(line);
    } catch {
      return; // junk, or a forged line: the lobby never shows it
    }
    if (message.type === "accept") {
      accepted.set(message.game, message.signer.text);
      mark(message.game);
      return;
    }
    const offer = message;
    if (offer.type !== "offer" || shown.has(offer.game)) return;
    const item = document.createElement("li");
    const link = document.createElement("a");
    const params = new URLSearchParams({ game: offer.game });
    if (named) for (const url of relays) params.append("relay", url);
    link.href = `#${params}`;
    link.textContent = `${offer.get("kind")} game ${offer.game}`;
    const state = document.createElement("span");
    state.className = "state";
    item.append(link, document.createTextNode(` hosted by ${offer.signer.fingerprint} (${offer.get("terms")})`), state);
    item.dataset.game = offer.game;
    item.dataset.state = "open";
    state.textContent = " open";
    shown.set(offer.game, item);
    hosts.set(offer.game, offer.signer.text);
    list.prepend(item);
    mark(offer.game);
  }, relayStates(relays));
}

function start() {
  const { game, relays, problem } = linkOf(location.hash, location);
  if (problem !== null) {
    /** @type {HTMLElement} */ (document.querySelector("#status")).textContent = problem;
    return;
  }
  if (game !== null) watch(game, relays);
  else lobby(relays);
}

if (typeof window !== "undefined") {
  window.addEventListener("hashchange", () => location.reload());
  start();
}
