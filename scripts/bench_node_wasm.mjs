// Native addon vs WebAssembly, same input, one process (run by scripts/bench-node).
// Usage: node bench_node_wasm.mjs NATIVE_DIR EVENTS.jsonl
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus } from "node:os";
import { join } from "node:path";

const require = createRequire(import.meta.url);
const [nativeDir, eventsPath] = process.argv.slice(2);
const addon = readdirSync(nativeDir).find((f) => f.endsWith(".node"));
const native = require(join(nativeDir, addon));
const wasm = require("../bindings-wasm/pkg/node/undertone_wasm.js");

const REPEATS = 3;
const DEPLOYMENT = "support-bot"; // the AI actor of scripts/bench_ai_turns.py
const bytes = readFileSync(eventsPath);
const events = bytes.toString("utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const humans = events.filter((e) => e.actor_id !== DEPLOYMENT).length;

function best(fn) {
  let seconds = Infinity;
  let result;
  for (let i = 0; i < REPEATS; i++) {
    const t0 = process.hrtime.bigint();
    result = fn();
    seconds = Math.min(seconds, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  if (result.intelligence.human_turn_count !== humans) {
    throw new Error(`scored ${result.intelligence.human_turn_count} human turns, expected ${humans}`);
  }
  return seconds;
}

console.log(
  `node ${process.version}, ${cpus().length} CPUs; ${humans} user messages, ${events.length} events; best of ${REPEATS}`,
);
const options = { deploymentId: DEPLOYMENT };
for (const [name, input] of [["array of events", events], ["JSON Lines bytes", new Uint8Array(bytes)]]) {
  const n = best(() => native.score(input, options));
  const w = best(() => wasm.score(input, options));
  console.log(`${name}:`);
  console.log(`  native (napi, release)   ${n.toFixed(3).padStart(8)} s ${(humans / n).toFixed(0).padStart(8)} msg/s`);
  console.log(`  wasm (opt-level z, -Oz)  ${w.toFixed(3).padStart(8)} s ${(humans / w).toFixed(0).padStart(8)} msg/s`);
  console.log(`  native / wasm            ${(w / n).toFixed(2)}x`);
}
