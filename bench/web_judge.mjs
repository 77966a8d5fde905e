// The browser's judge, timed in Node: prints one figure a line as `name: value` (recorded in BENCHMARKS.md).
//
//     node bench/web_judge.mjs [--quick]
//
// Verifies protocol/vectors/olix-game.txt (a 100-move Olix game, 104 lines) end to end as a spectator's page would:
// web/js/transcript.js's verifyTranscript, every line decoded with its signature checked and judged by the session
// (seats, coin, the table, each move's legality by olix.js, the ending, the confirmations). Figures: the first pass in
// a fresh process, the best of the later rounds, the line layer alone over the same lines (readTranscript), and the
// byte size of the judge's modules (raw and gzipped).

import { readFileSync, statSync } from "node:fs";
import { gzipSync } from "node:zlib";

import { best, timed } from "./web_timing.mjs";

const ROOT = new URL("../", import.meta.url);
const JUDGE = ["judge.js", "session.js", "transcript.js", "events.js", "evidence.js", "seating.js", "waiting.js",
  "protocol-rules.js", "clock.js", "claims.js", "witness.js"];
const ROUNDS = process.argv.includes("--quick") ? 5 : 50;

const { readTranscript, splitLines } = await import(new URL("web/js/protocol.js", ROOT).href);
const { verifyTranscript } = await import(new URL("web/js/transcript.js", ROOT).href);
const text = readFileSync(new URL("protocol/vectors/olix-game.txt", ROOT), "utf8");
const lines = splitLines(text);

const first = await timed(() => verifyTranscript(lines));
const checked = await verifyTranscript(lines);
if (checked.number !== null || checked.session.moves !== 100 || checked.session.result?.code() !== "first-stones") {
  throw new Error(`olix-game.txt did not verify as a finished 100-move game: ${checked.number} ${checked.problem?.code}`);
}
const judged = await best(ROUNDS, () => verifyTranscript(lines));
const lineLayer = await best(ROUNDS, () => readTranscript(text));
const sources = JUDGE.map((name) => readFileSync(new URL(`web/js/${name}`, ROOT)));
const figures = {
  olix_100_moves_judge_first_ms: first.toFixed(1),
  olix_100_moves_judge_ms: judged.toFixed(1),
  judge_us_per_line: ((judged * 1000) / lines.length).toFixed(0),
  line_layer_ms: lineLayer.toFixed(1),
  judge_cost_vs_line_layer: (judged / lineLayer).toFixed(2),
  judge_modules_bytes: JUDGE.reduce((sum, name) => sum + statSync(new URL(`web/js/${name}`, ROOT)).size, 0),
  judge_modules_gzip_bytes: gzipSync(Buffer.concat(sources)).length,
};
for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
