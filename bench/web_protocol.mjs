// The browser's protocol line layer, timed in Node: prints one figure a line as `name: value`.
//
//     node bench/web_protocol.mjs [--quick]
//
// Verifies the lines of protocol/vectors/olix-game.txt (a 100-move Olix game, 104 lines) as a spectator's page
// would: every line decoded (grammar, canonical check, keys, WebCrypto Ed25519 signature, SHA-256 line hash) and
// linked into its chain (web/js/protocol.js's readTranscript). Figures: the first pass in a fresh process (modules
// loaded, keys imported, nothing compiled yet), the best of the later rounds, the same without signatures, WebCrypto's
// bare verify over the same lines, and the byte size of the modules a page loads (raw and gzipped).

import { readFileSync, statSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";

import { best, timed } from "./web_timing.mjs";

const ROOT = new URL("../", import.meta.url);
const MODULES = ["protocol.js", "protocol-errors.js", "messages.js", "messages-unicode.js", "keys.js", "protocol-sha256.js"];
const ROUNDS = process.argv.includes("--quick") ? 5 : 50;

const started = performance.now();
const { decode, readTranscript, splitLines } = await import(new URL("web/js/protocol.js", ROOT).href);
const loaded = performance.now() - started;
const text = readFileSync(new URL("protocol/vectors/olix-game.txt", ROOT), "utf8");
const lines = splitLines(text);

const first = await timed(() => readTranscript(text));
const { messages } = await readTranscript(text);
if (messages.length !== 104) throw new Error(`olix-game.txt holds ${messages.length} lines, not 104`);
const verified = await best(ROUNDS, () => readTranscript(text));
const unsigned = await best(ROUNDS, async () => {
  for (const line of lines) await decode(line, { verify: false });
});
const ed25519 = { name: "Ed25519" };
const cryptoKeys = new Map();
for (const message of messages) {
  if (!cryptoKeys.has(message.signer.text)) {
    cryptoKeys.set(message.signer.text,
      await crypto.subtle.importKey("raw", message.signer.raw, ed25519, false, ["verify"]));
  }
}
const bare = await best(ROUNDS, async () => {
  for (const message of messages) {
    await crypto.subtle.verify(ed25519, cryptoKeys.get(message.signer.text), message.signature, message.signed());
  }
});

const figure = (name, value) => console.log(`${name}: ${value}`);
figure("node", process.version);
figure("modules_load_ms", loaded.toFixed(1));
figure("olix_100_moves_lines", messages.length);
figure("olix_100_moves_first_verify_ms", first.toFixed(1));
figure("olix_100_moves_verify_ms", verified.toFixed(2));
figure("verify_us_per_line", ((verified * 1000) / messages.length).toFixed(1));
figure("parse_and_hash_us_per_line", ((unsigned * 1000) / messages.length).toFixed(1));
figure("bare_webcrypto_verify_us_per_line", ((bare * 1000) / messages.length).toFixed(1));
figure("check_cost_vs_bare_verify", (verified / bare).toFixed(2));
let total = 0;
let zipped = 0;
for (const name of MODULES) {
  const path = new URL(`web/js/${name}`, ROOT);
  const size = statSync(path).size;
  const gzipped = gzipSync(readFileSync(path)).length;
  total += size;
  zipped += gzipped;
  figure(`module_bytes ${name}`, `${size} (${gzipped} gzipped)`);
}
figure("modules_bytes_total", `${total} (${zipped} gzipped)`);
